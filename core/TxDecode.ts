import {
  type AbiParameter,
  type Address,
  checksumAddress,
  decodeAbiParameters,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  formatTransaction,
  formatTransactionReceipt,
  formatUnits,
  type Hex,
  hexToString,
  parseAbi,
  type RpcTransaction,
  type RpcTransactionReceipt,
  size,
  slice,
  toEventSelector,
  toFunctionSelector,
} from 'viem'
import * as BatchPayment from './BatchPayment.js'
import * as Escrow from './Escrow.js'
import * as Units from './Units.js'

/**
 * Decodes a mined EVM transaction against a curated set of ABIs: the call, its events, its token transfers and one
 * plain sentence. Pure: the chain reads happen in the module, which hands the transaction, the receipt and the token
 * metadata in. A call or event outside the set is shown by its selector or topic only, never guessed.
 */

/** ERC-20, ERC-721 and ERC-1155 transfers and approvals, WETH, Multicall3 and EIP-3009 (a selector is never repeated). */
export const standardAbi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
  'function setApprovalForAll(address operator, bool approved)',
  'function deposit() payable',
  'function withdraw(uint256 wad)',
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'function aggregate3(Call3[] calls) payable returns ((bool success, bytes returnData)[])',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])

/**
 * Uniswap v3's routers (SwapRouter02 and the original SwapRouter, whose structs carry a deadline), the Universal
 * Router's `execute`, and a v3 pool's `Swap` event. A selector is never repeated.
 */
export const uniswapAbi = parseAbi([
  'struct ExactInputSingleParams02 { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'struct ExactInputParams02 { bytes path; address recipient; uint256 amountIn; uint256 amountOutMinimum; }',
  'struct ExactOutputSingleParams02 { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountOut; uint256 amountInMaximum; uint160 sqrtPriceLimitX96; }',
  'struct ExactOutputParams02 { bytes path; address recipient; uint256 amountOut; uint256 amountInMaximum; }',
  'function exactInputSingle(ExactInputSingleParams02 params) payable returns (uint256 amountOut)',
  'function exactInput(ExactInputParams02 params) payable returns (uint256 amountOut)',
  'function exactOutputSingle(ExactOutputSingleParams02 params) payable returns (uint256 amountIn)',
  'function exactOutput(ExactOutputParams02 params) payable returns (uint256 amountIn)',
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'struct ExactInputParams { bytes path; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; }',
  'function exactInputSingle(ExactInputSingleParams params) payable returns (uint256 amountOut)',
  'function exactInput(ExactInputParams params) payable returns (uint256 amountOut)',
  'function multicall(uint256 deadline, bytes[] data) payable returns (bytes[] results)',
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'function unwrapWETH9(uint256 amountMinimum, address recipient) payable',
  'function refundETH() payable',
  'function sweepToken(address token, uint256 amountMinimum, address recipient) payable',
  'function execute(bytes commands, bytes[] inputs, uint256 deadline) payable',
  'function execute(bytes commands, bytes[] inputs) payable',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
])

/** ERC-721's `Transfer` and `Approval`: the ERC-20 events' topics with the third argument indexed too. */
const nftAbi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
])

/** Every ABI a call or event is decoded against: the standards, Uniswap's routers, then our batch and escrow contracts. */
export const abi = [...standardAbi, ...uniswapAbi, ...BatchPayment.abi, ...Escrow.abi] as const

/** An ABI item as the decoders read it. */
type Item = { type: string; name?: string; inputs?: readonly AbiParameter[] }

/**
 * The functions of {@link abi} by selector, hashed once: viem's decoders hash every item of the ABI they are given on
 * each call, so each decode is handed the one item its selector names.
 */
const functions = new Map<Hex, Item>()
for (const item of abi as readonly Item[])
  if (item.type === 'function' && !functions.has(toFunctionSelector(item as never)))
    functions.set(toFunctionSelector(item as never), item)

/** The types that are one 32-byte word, read by {@link wordOf}. */
const wordType = /^(address|bool|u?int\d*|bytes\d+)$/

/** An event of the ABI, its inputs split the way a log carries them. */
type EventItem = {
  item: Item
  /** How many inputs are indexed (one topic each, after the event's own). */
  topics: number
  /** The inputs in the log's data, in order. */
  data: readonly AbiParameter[]
  /** Whether every input is one 32-byte word of a type {@link wordOf} reads (most token events). */
  words: boolean
}

/**
 * The events of an ABI by their first topic, hashed once (several where a signature repeats). A log is decoded from
 * its item directly: viem's `decodeEventLog` hashes the item's signature again on every call.
 */
function eventsOf(items: readonly Item[]): Map<Hex, EventItem[]> {
  const events = new Map<Hex, EventItem[]>()
  for (const item of items)
    if (item.type === 'event') {
      const topic = toEventSelector(item as never)
      const inputs = item.inputs ?? []
      const decoded = {
        item,
        topics: inputs.filter(isIndexed).length,
        data: inputs.filter((input) => !isIndexed(input)),
        words: inputs.every((input) => wordType.test(input.type)),
      }
      events.set(topic, [...(events.get(topic) ?? []), decoded])
    }
  return events
}

/** Whether an event input travels as a topic. */
function isIndexed(input: AbiParameter): boolean {
  return (input as { indexed?: boolean }).indexed === true
}

const events = eventsOf(abi as readonly Item[])
const nftEvents = eventsOf(nftAbi as readonly Item[])

/** A decoded value: numbers and booleans as decimal strings, arrays and tuples kept as arrays and objects. */
export type Value = string | Value[] | { [name: string]: Value }

/** One decoded argument. */
export type Argument = {
  /** Parameter name, or its position when the ABI names none. */
  name: string
  /** Solidity type, e.g. `uint256` or `tuple[]`. */
  type: string
  /** The value. */
  value: Value
}

/** The transaction's call: decoded when its selector is in {@link abi}, else only the selector. */
export type Call =
  | {
      /** 4-byte selector. */
      selector: Hex
      /** Function name. */
      function: string
      /** Signature, e.g. `transfer(address,uint256)`. */
      signature: string
      /** Arguments in order. */
      args: Argument[]
    }
  | { /** 4-byte selector of an unknown function. */ selector: Hex }

/** One log of the receipt: decoded when its topic is in {@link abi}, else only its first topic. */
export type Event =
  | {
      /** Emitting contract. */
      address: Address
      /** Position in the block. */
      logIndex: number
      /** Event name. */
      event: string
      /** Arguments in order. */
      args: Argument[]
    }
  | {
      /** Emitting contract. */
      address: Address
      /** Position in the block. */
      logIndex: number
      /** First topic of an unknown event, if any. */
      topic: Hex | null
    }

/** One token movement read from a log. */
export type Transfer = {
  /** Token standard of the log. */
  standard: 'erc20' | 'erc721' | 'erc1155'
  /** Token contract. */
  token: Address
  /** Sender of the tokens. */
  from: Address
  /** Recipient of the tokens. */
  to: Address
  /** Amount in atomic units (1 for an ERC-721 token). */
  amount: bigint
  /** Token id, for ERC-721 and ERC-1155. */
  tokenId?: bigint
  /** Position of the log in the block. */
  logIndex: number
}

/** Symbol and decimals a token answered on chain. */
export type Metadata = {
  /** Symbol, e.g. `USDC`; `null` when the token did not answer. */
  symbol: string | null
  /** Decimals; `null` when the token did not answer. */
  decimals: number | null
}

/** A raw log as the receipt holds it. */
export type Log = {
  /** Emitting contract. */
  address: Address
  /** Topics, the event's own first. */
  topics: readonly Hex[]
  /** Non-indexed data. */
  data: Hex
  /** Position in the block. */
  logIndex: number
}

/** Decodes `input` against {@link abi}; an empty input is a plain transfer and has no call. */
export function decodeCall(input: Hex): Call | undefined {
  if (size(input) === 0) return undefined
  if (size(input) < 4) return { selector: input }
  const selector = slice(input, 0, 4)
  const item = functions.get(selector)
  if (!item) return { selector }
  try {
    const decoded = decodeFunctionData({ abi: [item] as never, data: input })
    return {
      selector,
      function: item.name!,
      signature: `${item.name}(${item.inputs!.map(typeOf).join(',')})`,
      args: argumentsOf(item.inputs!, decoded.args ?? []),
    }
  } catch {
    return { selector }
  }
}

/** Decodes one log against {@link abi}; ERC-721's events are told from ERC-20's by their number of topics. */
export function decodeLog(log: Log): Event {
  const { address, logIndex } = log
  const topics = log.topics as [Hex, ...Hex[]]
  for (const known of topics.length === 4 ? [nftEvents, events] : [events]) {
    for (const candidate of known.get(topics[0]) ?? []) {
      if (candidate.topics !== topics.length - 1) continue
      try {
        const { item } = candidate
        return {
          address,
          logIndex,
          event: item.name!,
          args: argumentsOf(item.inputs!, argsOf(candidate, topics, log.data)),
        }
      } catch {}
    }
  }
  return { address, logIndex, topic: topics[0] ?? null }
}

/**
 * An event's values in the order of its inputs: indexed ones from the topics (a dynamic type's topic is its hash, kept
 * as such), the others from the data, which must hold them all.
 */
function argsOf(event: EventItem, topics: readonly Hex[], data: Hex): unknown[] {
  if (event.words && data.length === 2 + 64 * event.data.length) return wordsOf(event, topics, data)
  const fromData = event.data.length === 0 ? [] : decodeAbiParameters(event.data, data)
  let topic = 1
  let datum = 0
  return event.item.inputs!.map((input) => {
    if (!isIndexed(input)) return fromData[datum++]
    const value = topics[topic++]!
    return /^(string|bytes|tuple)$|\]$/.test(input.type) ? value : decodeAbiParameters([input], value)[0]
  })
}

/**
 * An event whose every input is one word, read from the hex of its topics and data directly, as viem's decoder reads
 * them (without converting each word to bytes and back): most logs of a transaction are token events like this.
 */
function wordsOf(event: EventItem, topics: readonly Hex[], data: Hex): unknown[] {
  let topic = 1
  let datum = 0
  return event.item.inputs!.map((input) => {
    if (isIndexed(input)) return wordOf(input.type, topics[topic++]!.slice(2))
    const at = 2 + 64 * datum++
    return wordOf(input.type, data.slice(at, at + 64))
  })
}

/**
 * One word (64 hex digits) of `type`: an address checksummed, a bool, an integer (two's complement for `int`), or the
 * leading bytes of a `bytesN`.
 */
function wordOf(type: string, word: string): unknown {
  if (!/^[0-9a-fA-F]{64}$/.test(word)) throw new Error(`Not a 32-byte word: ${word.length} characters.`)
  if (type === 'address') return checksumAddress(`0x${word.slice(24)}`)
  const value = BigInt(`0x${word}`)
  if (type === 'bool') {
    if (value > 1n) throw new Error('A bool word that is neither 0 nor 1.')
    return value === 1n
  }
  if (type.startsWith('uint')) return value
  if (type.startsWith('int')) return BigInt.asIntN(256, value)
  return `0x${word.slice(0, 2 * Number(type.slice('bytes'.length)))}`
}

/** The token transfers among `events`: ERC-20 and ERC-721 `Transfer`, ERC-1155 `TransferSingle` and `TransferBatch`. */
export function transfersOf(events: readonly Event[]): Transfer[] {
  const transfers: Transfer[] = []
  for (const event of events) {
    if (!('event' in event)) continue
    const args = Object.fromEntries(event.args.map(({ name, value }) => [name, value]))
    const base = { token: event.address, logIndex: event.logIndex }
    if (event.event === 'Transfer' && 'value' in args)
      transfers.push({
        standard: 'erc20',
        ...base,
        from: args.from as Address,
        to: args.to as Address,
        amount: BigInt(args.value as string),
      })
    else if (event.event === 'Transfer' && 'tokenId' in args)
      transfers.push({
        standard: 'erc721',
        ...base,
        from: args.from as Address,
        to: args.to as Address,
        amount: 1n,
        tokenId: BigInt(args.tokenId as string),
      })
    else if (event.event === 'TransferSingle')
      transfers.push({
        standard: 'erc1155',
        ...base,
        from: args.from as Address,
        to: args.to as Address,
        amount: BigInt(args.value as string),
        tokenId: BigInt(args.id as string),
      })
    else if (event.event === 'TransferBatch') {
      const ids = args.ids as string[]
      const values = args.values as string[]
      for (const [index, id] of ids.entries())
        transfers.push({
          standard: 'erc1155',
          ...base,
          from: args.from as Address,
          to: args.to as Address,
          amount: BigInt(values[index]!),
          tokenId: BigInt(id),
        })
    }
  }
  return transfers
}

/** Multicall3's `aggregate3` calldata reading `symbol()` and `decimals()` of every token, each allowed to fail. */
export function metadataCalldata(tokens: readonly Address[]): Hex {
  const calls = tokens.flatMap((target) => [
    { target, allowFailure: true, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }) },
    { target, allowFailure: true, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) },
  ])
  return encodeFunctionData({ abi: standardAbi, functionName: 'aggregate3', args: [calls] })
}

/** The metadata of every token from `aggregate3`'s answer to {@link metadataCalldata}; a token that did not answer has nulls. */
export function metadataOf(tokens: readonly Address[], answer: Hex): Map<Address, Metadata> {
  const metadata = new Map<Address, Metadata>(tokens.map((token) => [token, { symbol: null, decimals: null }]))
  let results: readonly { success: boolean; returnData: Hex }[]
  try {
    ;[results] = decodeAbiParameters(
      [
        {
          type: 'tuple[]',
          components: [
            { type: 'bool', name: 'success' },
            { type: 'bytes', name: 'returnData' },
          ],
        },
      ],
      answer,
    ) as [readonly { success: boolean; returnData: Hex }[]]
  } catch {
    return metadata
  }
  tokens.forEach((token, index) => {
    const symbol = results[2 * index]
    const decimals = results[2 * index + 1]
    metadata.set(token, {
      symbol: symbol?.success ? read(() => decodeString(symbol.returnData)) : null,
      decimals: decimals?.success
        ? read(() => {
            const [value] = decodeAbiParameters([{ type: 'uint8' }], decimals.returnData)
            return Number(value)
          })
        : null,
    })
  })
  return metadata
}

/** A mined transaction and its receipt, as the module reads them. */
export type Mined = {
  /** Transaction hash. */
  hash: Hex
  /** Sender. */
  from: Address
  /** Recipient; `null` for a contract creation. */
  to: Address | null
  /** Ether sent, in wei. */
  value: bigint
  /** Calldata. */
  input: Hex
  /** Whether the call succeeded. */
  status: 'success' | 'reverted'
  /** Gas used. */
  gasUsed: bigint
  /** Price paid per gas, in wei. */
  effectiveGasPrice: bigint
  /** Contract created, for a creation. */
  contractAddress: Address | null
  /** Block the transaction was mined in. */
  blockNumber: bigint
  /** Logs of the receipt. */
  logs: readonly Log[]
}

/** A transaction and its receipt as a node answers them (JSON-RPC), read as a {@link Mined}. */
export function minedOf(transaction: RpcTransaction, receipt: RpcTransactionReceipt): Mined {
  const tx = formatTransaction(transaction)
  const mined = formatTransactionReceipt(receipt)
  return {
    hash: tx.hash,
    from: tx.from,
    to: tx.to ?? null,
    value: tx.value,
    input: tx.input,
    status: mined.status,
    gasUsed: mined.gasUsed,
    // A node that predates EIP-1559 receipts answers no effective price; the transaction's own price is what it paid.
    effectiveGasPrice: mined.effectiveGasPrice ?? tx.gasPrice ?? 0n,
    contractAddress: mined.contractAddress ?? null,
    blockNumber: mined.blockNumber,
    logs: mined.logs.map((log) => ({
      address: checksumAddress(log.address),
      topics: log.topics,
      data: log.data,
      logIndex: log.logIndex,
    })),
  }
}

/** An amount both raw and formatted; `formatted` is `null` when the decimals are unknown. */
export type Amount = Units.Amount<string | null>

/** The decoded transaction as the endpoint answers it. */
export type Decoded = {
  /** Transaction hash. */
  hash: Hex
  /** Block the transaction was mined in, decimal string. */
  blockNumber: string
  /** Whether the call succeeded. */
  status: 'success' | 'reverted'
  /** Sender. */
  from: Address
  /** Recipient; `null` for a contract creation. */
  to: Address | null
  /** Contract created, for a creation. */
  contractAddress: Address | null
  /** Ether sent (formatted in ETH). */
  value: Amount
  /** Gas used times the effective gas price (formatted in ETH). */
  fee: Amount & {
    /** Gas used, decimal string. */
    gasUsed: string
    /** Wei per gas, decimal string. */
    effectiveGasPrice: string
  }
  /** The call, or `null` for a plain ether transfer. */
  call: Call | null
  /** Every log, decoded where known. */
  events: Event[]
  /** Token movements read from the logs. */
  transfers: (Omit<Transfer, 'amount' | 'tokenId'> & {
    /** Token symbol, when the token answered. */
    symbol: string | null
    /** Token decimals, when it answered. */
    decimals: number | null
    /** Amount moved. */
    amount: Amount
    /** Token id, for ERC-721 and ERC-1155. */
    tokenId?: string
  })[]
  /** One plain sentence. */
  summary: string
}

/** Decodes a mined transaction; `metadata` holds the symbol and decimals of the tokens its logs moved. */
export function decode(parameters: decode.Parameters): Decoded {
  const { mined, metadata, events = mined.logs.map(decodeLog) } = parameters
  const call = decodeCall(mined.input) ?? null
  const fee = mined.gasUsed * mined.effectiveGasPrice
  const transfers = transfersOf(events).map(({ amount, tokenId, ...transfer }) => {
    const { symbol, decimals } = metadata.get(transfer.token) ?? { symbol: null, decimals: null }
    return {
      ...transfer,
      symbol,
      decimals,
      amount: Units.toAmount(amount, transfer.standard === 'erc20' ? decimals : null),
      ...(tokenId === undefined ? {} : { tokenId: tokenId.toString() }),
    }
  })
  const decoded: Omit<Decoded, 'summary'> = {
    hash: mined.hash,
    blockNumber: mined.blockNumber.toString(),
    status: mined.status,
    from: checksumAddress(mined.from),
    to: mined.to ? checksumAddress(mined.to) : null,
    contractAddress: mined.contractAddress ? checksumAddress(mined.contractAddress) : null,
    value: Units.toAmount(mined.value, 18),
    fee: {
      ...Units.toAmount(fee, 18),
      gasUsed: mined.gasUsed.toString(),
      effectiveGasPrice: mined.effectiveGasPrice.toString(),
    },
    call,
    events,
    transfers,
  }
  return { ...decoded, summary: summarize(decoded) }
}

export declare namespace decode {
  type Parameters = {
    /** The transaction and its receipt. */
    mined: Mined
    /** Symbol and decimals by token address (checksummed). */
    metadata: ReadonlyMap<Address, Metadata>
    /** Its logs, decoded already (by {@link decodeLog}); decoded here when not given. */
    events?: Event[] | undefined
  }
}

/** Most transfers a summary lists one by one; beyond it, it counts them. */
export const listedTransfers = 3

/** `0xAbCd…1234`. */
export function shorten(address: Address): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`
}

/** One plain sentence: who sent what to whom (or called what), whether it reverted, and the fee. */
export function summarize(decoded: Omit<Decoded, 'summary'>): string {
  const fee = `fee ${decoded.fee.formatted} ETH`
  const from = shorten(decoded.from)
  const target = decoded.to ? shorten(decoded.to) : 'a new contract'
  const called = decoded.call
    ? 'function' in decoded.call
      ? decoded.call.function
      : `unknown function ${decoded.call.selector}`
    : undefined
  if (decoded.status === 'reverted') return `${from} called ${called ?? 'nothing'} on ${target} and it reverted; ${fee}`
  if (decoded.to === null) return `${from} created a contract at ${shorten(decoded.contractAddress!)}; ${fee}`
  const parts: string[] = []
  if (decoded.value.raw !== '0') parts.push(`${from} sent ${decoded.value.formatted} ETH to ${target}`)
  const moved = decoded.transfers
  if (moved.length > 0 && moved.length <= listedTransfers)
    for (const transfer of moved)
      parts.push(`${shorten(transfer.from)} sent ${amountOf(transfer)} to ${shorten(transfer.to)}`)
  else if (moved.length > listedTransfers) {
    const recipients = new Set(moved.map((transfer) => transfer.to)).size
    const totals = new Map<string, bigint>()
    const decimals = new Map<string, number | null>()
    for (const transfer of moved) {
      const unit = transfer.symbol ?? shorten(transfer.token)
      totals.set(unit, (totals.get(unit) ?? 0n) + BigInt(transfer.amount.raw))
      decimals.set(unit, transfer.standard === 'erc20' ? transfer.decimals : null)
    }
    const listed = [...totals].map(([unit, total]) => {
      const places = decimals.get(unit)
      return `${places === null || places === undefined ? total.toString() : formatUnits(total, places)} ${unit}`
    })
    const senders = [...new Set(moved.map((transfer) => transfer.from))]
    parts.push(
      senders.length === 1
        ? `${shorten(senders[0]!)} sent ${listed.join(' and ')} to ${recipients} addresses in ${moved.length} transfers`
        : `${moved.length} token transfers to ${recipients} addresses totalling ${listed.join(' and ')}`,
    )
  }
  if (parts.length === 0) parts.push(`${from} called ${called ?? 'nothing'} on ${target}`)
  return `${parts.join(', ')}; ${fee}`
}

/** `12.5 USDC`, `1 NFT #7 of 0xAbCd…1234`, or the raw amount when the decimals are unknown. */
function amountOf(transfer: Decoded['transfers'][number]): string {
  const unit = transfer.symbol ?? `tokens of ${shorten(transfer.token)}`
  if (transfer.standard !== 'erc20')
    return `${unit} #${transfer.tokenId}${transfer.amount.raw === '1' ? '' : ` ×${transfer.amount.raw}`}`
  return `${transfer.amount.formatted ?? `${transfer.amount.raw} atomic units of`} ${unit}`
}

/** The canonical type of a parameter, tuples spelled out. */
function typeOf(parameter: AbiParameter): string {
  if (!parameter.type.startsWith('tuple')) return parameter.type
  const components = (parameter as { components: readonly AbiParameter[] }).components
  return `(${components.map(typeOf).join(',')})${parameter.type.slice('tuple'.length)}`
}

/** Named, typed arguments from viem's decoded values (an array, or an object for named event arguments). */
function argumentsOf(
  inputs: readonly AbiParameter[],
  values: readonly unknown[] | Record<string, unknown>,
): Argument[] {
  return inputs.map((input, index) => ({
    name: input.name || String(index),
    type: typeOf(input),
    value: stringify(Array.isArray(values) ? values[index] : (values as Record<string, unknown>)[input.name ?? index]),
  }))
}

/** A decoded value as strings: bigints and booleans in decimal, addresses checksummed. */
function stringify(value: unknown): Value {
  if (Array.isArray(value)) return value.map(stringify)
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, stringify(inner)]))
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return checksumAddress(value as Address)
  return String(value)
}

/** A `string` return, or a `bytes32` one as older tokens answer. */
function decodeString(data: Hex): string {
  if (size(data) === 32) return hexToString(data, { size: 32 })
  const [value] = decodeAbiParameters([{ type: 'string' }], data)
  return value
}

/** The value `fn` reads, or `null` when it throws. */
function read<value>(fn: () => value): value | null {
  try {
    return fn()
  } catch {
    return null
  }
}

/** Canonical Multicall3 address, the same on every chain; token metadata is read through it in one call. */
export const multicall3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
