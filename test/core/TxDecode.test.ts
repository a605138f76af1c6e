import { describe, expect, test } from 'bun:test'
import {
  checksumAddress,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  pad,
  parseAbi,
  toHex,
} from 'viem'
import * as TxDecode from '../../core/TxDecode.js'

const token = '0x1111111111111111111111111111111111111111'
const alice = checksumAddress('0xa11ce00000000000000000000000000000000001')
const bob = checksumAddress('0xb0b0000000000000000000000000000000000002')

describe('decodeCall', () => {
  test.each([
    [encodeFunctionData({ abi: TxDecode.standardAbi, functionName: 'deposit' }), 'deposit', []],
    [encodeFunctionData({ abi: TxDecode.standardAbi, functionName: 'withdraw', args: [5n] }), 'withdraw', ['5']],
    [
      encodeFunctionData({
        abi: TxDecode.standardAbi,
        functionName: 'aggregate3',
        args: [[{ target: token, allowFailure: true, callData: '0x1234' }]],
      }),
      'aggregate3',
      [[{ target: token, allowFailure: 'true', callData: '0x1234' }]],
    ],
    [
      encodeFunctionData({
        abi: TxDecode.standardAbi,
        functionName: 'safeTransferFrom',
        args: [alice, bob, 7n, 2n, '0x'],
      }),
      'safeTransferFrom',
      [alice, bob, '7', '2', '0x'],
    ],
  ] as const)('behavior: %s decodes as %s', (input, name, values) => {
    const call = TxDecode.decodeCall(input as Hex) as Extract<TxDecode.Call, { function: string }>
    expect(call.function).toBe(name)
    expect(call.args.map(({ value }) => value)).toEqual(values as never)
  })

  test('behavior: an overload is told by its selector', () => {
    const input = encodeFunctionData({
      abi: TxDecode.standardAbi,
      functionName: 'transferWithAuthorization',
      args: [alice, bob, 1n, 0n, 9n, pad('0x01'), '0xabcd'],
    })
    expect(TxDecode.decodeCall(input)).toMatchObject({
      signature: 'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
    })
  })

  test('behavior: an unknown or short selector is the selector only; empty input is no call', () => {
    expect(TxDecode.decodeCall('0x12345678ff')).toEqual({ selector: '0x12345678' })
    expect(TxDecode.decodeCall('0x1234')).toEqual({ selector: '0x1234' })
    expect(TxDecode.decodeCall('0x')).toBeUndefined()
  })
})

describe('decodeLog', () => {
  const nft = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)'])
  test('behavior: ERC-20 and ERC-721 transfers share a topic and are told apart by their topics', () => {
    const erc20 = TxDecode.decodeLog({
      address: token,
      topics: encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from: alice, to: bob } }) as Hex[],
      data: encodeAbiParameters([{ type: 'uint256' }], [10n]),
      logIndex: 0,
    })
    const erc721 = TxDecode.decodeLog({
      address: token,
      topics: encodeEventTopics({
        abi: nft,
        eventName: 'Transfer',
        args: { from: alice, to: bob, tokenId: 3n },
      }) as Hex[],
      data: '0x',
      logIndex: 1,
    })
    expect(TxDecode.transfersOf([erc20, erc721])).toEqual([
      { standard: 'erc20', token, from: alice, to: bob, amount: 10n, logIndex: 0 },
      { standard: 'erc721', token, from: alice, to: bob, amount: 1n, tokenId: 3n, logIndex: 1 },
    ])
  })

  test('behavior: ERC-1155 batches are one transfer per id', () => {
    const event = TxDecode.decodeLog({
      address: token,
      topics: encodeEventTopics({
        abi: TxDecode.standardAbi,
        eventName: 'TransferBatch',
        args: { operator: alice, from: alice, to: bob },
      }) as Hex[],
      data: encodeAbiParameters(
        [{ type: 'uint256[]' }, { type: 'uint256[]' }],
        [
          [1n, 2n],
          [5n, 6n],
        ],
      ),
      logIndex: 4,
    })
    expect(TxDecode.transfersOf([event]).map(({ tokenId, amount }) => [tokenId, amount])).toEqual([
      [1n, 5n],
      [2n, 6n],
    ])
  })

  test('behavior: indexed values come from the topics and the rest from the data, each named and typed', () => {
    const nonce = pad('0x42')
    const used = TxDecode.decodeLog({
      address: token,
      topics: encodeEventTopics({
        abi: TxDecode.standardAbi,
        eventName: 'AuthorizationUsed',
        args: { authorizer: alice, nonce },
      }) as Hex[],
      data: '0x',
      logIndex: 3,
    })
    expect(used).toEqual({
      address: token,
      logIndex: 3,
      event: 'AuthorizationUsed',
      args: [
        { name: 'authorizer', type: 'address', value: alice },
        { name: 'nonce', type: 'bytes32', value: nonce },
      ],
    })
  })

  test('behavior: a known topic whose data does not hold its values is its first topic only', () => {
    const topics = encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from: alice, to: bob } }) as Hex[]
    expect(TxDecode.decodeLog({ address: token, topics, data: '0x', logIndex: 5 })).toEqual({
      address: token,
      logIndex: 5,
      topic: topics[0]!,
    })
    expect(TxDecode.decodeLog({ address: token, topics, data: '0x01', logIndex: 5 })).toEqual({
      address: token,
      logIndex: 5,
      topic: topics[0]!,
    })
  })

  test('behavior: every event of one-word inputs reads as viem decodes it, for random values', () => {
    type Input = { type: string; name?: string; indexed?: boolean }
    const words = TxDecode.abi.filter(
      (item): item is typeof item & { type: 'event'; name: string; inputs: readonly Input[] } =>
        item.type === 'event' && item.inputs.every((input) => /^(address|bool|u?int\d*|bytes\d+)$/.test(input.type)),
    )
    expect(words.length).toBeGreaterThan(5)
    const randomOf = (type: string): unknown => {
      const bytes = (count: number) => toHex(crypto.getRandomValues(new Uint8Array(count)))
      if (type === 'address') return getAddress(bytes(20))
      if (type === 'bool') return Math.random() < 0.5
      const bits = Number(/\d+$/.exec(type)?.[0] ?? 256)
      if (type.startsWith('uint')) return BigInt.asUintN(bits, BigInt(bytes(32)))
      if (type.startsWith('int')) return BigInt.asIntN(bits, BigInt(bytes(32)))
      return bytes(Number(type.slice('bytes'.length)))
    }
    const shown = (value: unknown) =>
      typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? getAddress(value) : String(value)
    for (const event of words)
      for (let round = 0; round < 8; round++) {
        const values = event.inputs.map((input) => randomOf(input.type))
        const indexed = event.inputs.map((input) => input.indexed === true)
        const topics = (encodeEventTopics as unknown as (parameters: { abi: unknown; args: unknown[] }) => Hex[])({
          abi: [event],
          args: values.filter((_, index) => indexed[index]),
        })
        const data = encodeAbiParameters(
          event.inputs.filter((_, index) => !indexed[index]) as never,
          values.filter((_, index) => !indexed[index]) as never,
        )
        const theirs = decodeEventLog({ abi: [event] as never, topics: topics as never, data, strict: true }).args as
          | unknown[]
          | Record<string, unknown>
        const ours = TxDecode.decodeLog({ address: token, topics, data, logIndex: 0 })
        const expected = event.inputs.map((input, index) =>
          shown(Array.isArray(theirs) ? theirs[index] : theirs[input.name!]),
        )
        expect('args' in ours ? ours.args.map(({ value }) => value) : ours).toEqual(expected)
      }
  })

  test('behavior: an unknown event is its first topic only', () => {
    const topic = pad('0x99')
    expect(TxDecode.decodeLog({ address: token, topics: [topic], data: '0x', logIndex: 2 })).toEqual({
      address: token,
      logIndex: 2,
      topic,
    })
  })
})

describe('metadataOf', () => {
  test('behavior: a token that fails either call has nulls for it; a bytes32 symbol is read', () => {
    const answer = encodeAbiParameters(
      [{ type: 'tuple[]', components: [{ type: 'bool' }, { type: 'bytes' }] }],
      [
        [
          [true, encodeAbiParameters([{ type: 'string' }], ['USDC'])],
          [true, encodeAbiParameters([{ type: 'uint8' }], [6])],
          [true, pad('0x4d4b52', { dir: 'right' })],
          [false, '0x'],
        ],
      ],
    )
    expect(TxDecode.metadataOf([token, alice], answer)).toEqual(
      new Map([
        [token, { symbol: 'USDC', decimals: 6 }],
        [alice, { symbol: 'MKR', decimals: null }],
      ]),
    )
    expect(TxDecode.metadataOf([token], '0x')).toEqual(new Map([[token, { symbol: null, decimals: null }]]))
  })
})
