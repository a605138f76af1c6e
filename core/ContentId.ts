import { importer } from 'ipfs-unixfs-importer'
import { fixedSize } from 'ipfs-unixfs-importer/chunker'
import { balanced } from 'ipfs-unixfs-importer/layout'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'

/**
 * Content identifiers (CIDs) of a caller's bytes, computed the way IPFS does, so anyone can recompute and check them.
 * The bytes are imported as one UnixFS file under the IPIP-499 profile `unixfs-v1-2025`: CIDv1, sha2-256, raw leaves,
 * fixed-size 1 MiB chunks, a balanced DAG of at most 1024 links per node, no wrapping directory, no inlining. That is
 * what Kubo gives for `ipfs add --cid-version=1 --raw-leaves --chunker=size-1048576 --max-file-links=1024` (and for a
 * plain `ipfs add` on a repository initialised with `--profile=unixfs-v1-2025`). Every parameter is set here rather
 * than left to the importer's defaults, which have changed between versions.
 *
 * Content of at most one chunk (1 MiB) is a single raw block, so its CID (`bafkrei…`) is the raw sha2-256 CID of the
 * bytes. Kubo's implicit default with only `--cid-version=1` chunks at 256 KiB with 174 links: the same CID up to
 * 256 KiB, a different dag-pb root (`bafybei…`) above it. We reproduce `unixfs-v1-2025`.
 */

/** The import parameters every CID here is computed with; adapters send them to providers that import themselves. */
export const profile = {
  /** IPIP-499 profile name. */
  name: 'unixfs-v1-2025',
  /** CID version. */
  cidVersion: 1,
  /** Multihash function. */
  hash: 'sha2-256',
  /** Leaves are raw blocks (codec 0x55), not dag-pb wrapped. */
  rawLeaves: true,
  /** Fixed chunk size, in bytes (Kubo's `--chunker=size-1048576`). */
  chunkSize: 1_048_576,
  /** Most links of one file node; more chunks build a deeper balanced tree. */
  maxLinks: 1024,
} as const

/** A block of a DAG: its CID (string) and bytes. */
export type Block = {
  /** CIDv1 of the block, base32. */
  cid: string
  /** The block's bytes. */
  bytes: Uint8Array
}

/** The DAG of some content: its root CID, its blocks and its leaves in order. */
export type Dag = {
  /** Root CID, base32 CIDv1. */
  cid: string
  /** Size of the content, in bytes. */
  size: number
  /** Every block of the DAG, each once (identical chunks share a block), root included. */
  blocks: Block[]
  /** CIDs of the leaves in content order (chunk i is `leaves[i]`); the root alone for single-chunk content. */
  leaves: string[]
}

/**
 * The UnixFS DAG of `bytes` under {@link profile}: its root CID, blocks and leaves. Pure: nothing is stored.
 */
export async function compute(bytes: Uint8Array): Promise<Dag> {
  const blocks = new Map<string, Uint8Array>()
  const store = {
    put: async (cid: CID, block: Uint8Array) => {
      blocks.set(cid.toString(), block)
      return cid
    },
  }
  let root: CID | undefined
  for await (const entry of importer([{ content: bytes }], store, {
    profile: profile.name,
    cidVersion: profile.cidVersion,
    rawLeaves: profile.rawLeaves,
    chunker: fixedSize({ chunkSize: profile.chunkSize }),
    layout: balanced({ maxChildrenPerNode: profile.maxLinks }),
    reduceSingleLeafToSelf: true,
    wrapWithDirectory: false,
    fieldOrder: 'links-first',
  }))
    root = entry.cid
  const leaves: string[] = []
  for (let offset = 0; offset < bytes.length || leaves.length === 0; offset += profile.chunkSize)
    leaves.push((await rawCid(bytes.subarray(offset, offset + profile.chunkSize))).toString())
  return {
    cid: root!.toString(),
    size: bytes.length,
    blocks: [...blocks].map(([cid, block]) => ({ cid, bytes: block })),
    leaves,
  }
}

/** The raw-codec CIDv1 of one block's bytes (what a raw leaf's CID is). */
export async function rawCid(bytes: Uint8Array): Promise<CID> {
  return CID.createV1(raw.code, await sha256.digest(bytes))
}

/** Whether `bytes` hash to `cid`'s multihash (sha2-256 only): a block read back is the block that was stored. */
export async function matches(cid: string, bytes: Uint8Array): Promise<boolean> {
  const parsed = parse(cid)
  if (!parsed || parsed.multihash.code !== sha256.code) return false
  const digest = await sha256.digest(bytes)
  return equal(digest.digest, parsed.multihash.digest)
}

/** `text` as a CID, or `undefined` when it is not one. */
export function parse(text: string): CID | undefined {
  try {
    return CID.parse(text)
  } catch {
    return undefined
  }
}

/** `text` in its canonical form (CIDv1 base32; a CIDv0 is upgraded), or `undefined` when it is not a CID. */
export function normalize(text: string): string | undefined {
  return parse(text)?.toV1().toString()
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false
  return true
}
