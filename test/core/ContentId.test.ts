import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import * as ContentId from '../../core/ContentId.js'

/**
 * The deterministic bytes of Kubo's CID-profile fixtures (`test/cli/cid_profiles_test.go`, `testutils`): the ChaCha20
 * keystream of key sha256(seed), nonce zero, counter zero.
 */
function seeded(size: number, seed: string): Uint8Array {
  const key = new Uint32Array(new Uint8Array(createHash('sha256').update(seed).digest()).buffer)
  const out = new Uint8Array(Math.ceil(size / 64) * 64)
  const view = new DataView(out.buffer)
  for (let counter = 0; counter * 64 < size; counter++) {
    // RFC 8439 block function: constants, key, counter, 96-bit nonce of zeros.
    const initial = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...key, counter, 0, 0, 0]
    const x = [...initial]
    const quarter = (a: number, b: number, c: number, d: number) => {
      x[a] = (x[a]! + x[b]!) | 0
      x[d] = rotl(x[d]! ^ x[a]!, 16)
      x[c] = (x[c]! + x[d]!) | 0
      x[b] = rotl(x[b]! ^ x[c]!, 12)
      x[a] = (x[a]! + x[b]!) | 0
      x[d] = rotl(x[d]! ^ x[a]!, 8)
      x[c] = (x[c]! + x[d]!) | 0
      x[b] = rotl(x[b]! ^ x[c]!, 7)
    }
    for (let round = 0; round < 10; round++) {
      for (const [a, b, c, d] of rounds) quarter(a, b, c, d)
    }
    for (let word = 0; word < 16; word++)
      view.setUint32(counter * 64 + word * 4, (x[word]! + initial[word]!) >>> 0, true)
  }
  return out.subarray(0, size)
}

/** The column rounds, then the diagonal rounds, of one ChaCha double round. */
const rounds = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
] as const

function rotl(value: number, shift: number): number {
  return (value << shift) | (value >>> (32 - shift))
}

const text = (value: string) => new TextEncoder().encode(value)

describe('compute', () => {
  test('behavior: known CIDs of fixed inputs (Kubo fixtures)', async () => {
    const vectors: [Uint8Array, string][] = [
      // `echo -n 'hello world' | ipfs add --cid-version=1`: Kubo's SmallFileCID of the unixfs-v1-2025 profile.
      [text('hello world'), 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e'],
      // `echo 'hello world' | ipfs add --cid-version=1` (with the newline): the raw CID of its sha2-256.
      [text('hello world\n'), 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4'],
      // Exactly one chunk: still a single raw leaf.
      [seeded(1_048_576, 'chunk-v1-seed'), 'bafkreiacndfy443ter6qr2tmbbdhadvxxheowwf75s6zehscklu6ezxmta'],
      // One byte over: a dag-pb root over two raw leaves.
      [seeded(1_048_577, 'chunk-v1-seed'), 'bafybeigmix7t42i6jacydtquhet7srwvgpizfg7gjbq7627d35mjomtu64'],
    ]
    for (const [bytes, cid] of vectors) expect((await ContentId.compute(bytes)).cid).toBe(cid)
  })

  test('behavior: a multi-chunk DAG lists its leaves in order and holds every block', async () => {
    const bytes = seeded(3 * 1_048_576 + 10, 'leaves')
    const dag = await ContentId.compute(bytes)
    expect(dag.cid.startsWith('bafybei')).toBe(true)
    expect(dag.leaves).toHaveLength(4)
    expect(dag.size).toBe(bytes.length)
    const byCid = new Map(dag.blocks.map((block) => [block.cid, block.bytes]))
    expect(byCid.has(dag.cid)).toBe(true)
    const joined = Buffer.concat(dag.leaves.map((cid) => byCid.get(cid)!))
    expect(joined.equals(Buffer.from(bytes))).toBe(true)
    for (const block of dag.blocks) expect(await ContentId.matches(block.cid, block.bytes)).toBe(true)
  })

  test('behavior: single-chunk content is its own root and only leaf; empty content has a CID', async () => {
    const dag = await ContentId.compute(text('x'))
    expect(dag.leaves).toEqual([dag.cid])
    expect(dag.blocks).toHaveLength(1)
    expect((await ContentId.compute(new Uint8Array(0))).cid).toBe(
      'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku',
    )
  })
})

describe('matches', () => {
  test('error: other bytes, or not a CID', async () => {
    const { cid } = await ContentId.compute(text('hello world'))
    expect(await ContentId.matches(cid, text('hello world'))).toBe(true)
    expect(await ContentId.matches(cid, text('hello worle'))).toBe(false)
    expect(await ContentId.matches('not-a-cid', text('x'))).toBe(false)
  })
})

describe('normalize', () => {
  test('behavior: CIDv0 becomes its CIDv1; junk is undefined', () => {
    expect(ContentId.normalize('QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o')).toBe(
      'bafybeicg2rebjoofv4kbyovkw7af3rpiitvnl6i7ckcywaq6xjcxnc2mby',
    )
    expect(ContentId.normalize('nope')).toBeUndefined()
  })
})
