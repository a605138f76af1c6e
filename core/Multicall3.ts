import { type Address, type Hex, parseAbi, toFunctionSelector } from 'viem'
import { UpstreamFailedError, UpstreamUnavailableError } from './Errors.js'
import type * as Rpc from './Rpc.js'

/** Canonical Multicall3 address, the same on every chain (the devnet has it from genesis). */
export const address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * The Multicall3 functions the gateway calls: `aggregate3` (each call allowed to fail or not), `getEthBalance`, and
 * the block number and time that date the reads of one `aggregate3`.
 */
export const abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'function aggregate3(Call3[] calls) payable returns ((bool success, bytes returnData)[])',
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function getBlockNumber() view returns (uint256 blockNumber)',
  'function getCurrentBlockTimestamp() view returns (uint256 timestamp)',
])

/** One call of `aggregate3`. */
export type Call3 = { target: Address; allowFailure: boolean; callData: Hex }

/** One result of `aggregate3`. */
export type Result = { success: boolean; returnData: Hex }

/** Selector of `aggregate3((address,bool,bytes)[])`. */
const aggregate3Selector = toFunctionSelector(abi.find((item) => item.name === 'aggregate3')!)

/**
 * The calldata of `aggregate3(calls)`, written directly: byte for byte what `encodeFunctionData` writes (a test
 * compares them), without its generic encoder on the path of every verification. Throws on a target that is not an
 * address or calldata that is not whole bytes of hex.
 */
export function encodeAggregate3(calls: readonly Call3[]): Hex {
  const tuples = calls.map(({ target, allowFailure, callData }) => {
    if (!/^0x[0-9a-fA-F]{40}$/.test(target)) throw new TypeError(`${target} is not an address.`)
    if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(callData)) throw new TypeError('Calldata is whole bytes of hex.')
    const bytes = (callData.length - 2) / 2
    const padded = callData.slice(2).padEnd(Math.ceil(bytes / 32) * 64, '0')
    return `${target.slice(2).toLowerCase().padStart(64, '0')}${word(allowFailure ? 1 : 0)}${word(0x60)}${word(bytes)}${padded}`
  })
  let offset = calls.length * 32
  const offsets = tuples.map((tuple) => {
    const at = offset
    offset += tuple.length / 2
    return word(at)
  })
  return `${aggregate3Selector}${word(0x20)}${word(calls.length)}${offsets.join('')}${tuples.join('')}`
}

/**
 * The results of an `aggregate3` call, read directly from its return data (as `decodeFunctionResult` reads them).
 * Throws on data too short for what it declares.
 */
export function decodeAggregate3(data: Hex): Result[] {
  const hex = data.slice(2)
  const size = hex.length / 2
  const read = (at: number) => {
    if (!Number.isInteger(at) || at < 0 || at + 32 > size)
      throw new RangeError('The aggregate3 result is shorter than it declares.')
    return Number.parseInt(hex.slice(at * 2, at * 2 + 64), 16)
  }
  const array = read(0)
  const count = read(array)
  const results: Result[] = []
  for (let index = 0; index < count; index++) {
    const tuple = array + 32 + read(array + 32 + index * 32)
    const bytes = tuple + read(tuple + 32)
    const length = read(bytes)
    if (bytes + 32 + length > size) throw new RangeError('The aggregate3 result is shorter than it declares.')
    results.push({
      success: read(tuple) === 1,
      returnData: `0x${hex.slice((bytes + 32) * 2, (bytes + 32 + length) * 2)}`,
    })
  }
  return results
}

/**
 * Runs `calls` in one `eth_call` of `aggregate3` on `chain`, each allowed to fail; each result is its return data, or
 * `undefined` when it failed or returned nothing. A chain that does not answer is an {@link UpstreamUnavailableError},
 * one that refuses or answers in another shape an {@link UpstreamFailedError}: either way nothing is charged.
 */
export async function aggregate(
  chain: Rpc.Endpoint,
  calls: readonly { target: Address; callData: Hex }[],
): Promise<(Hex | undefined)[]> {
  const data = encodeAggregate3(calls.map((call) => ({ ...call, allowFailure: true })))
  const answer = await chain.request('eth_call', [{ to: address, data }, 'latest'])
  if (!answer.ok) {
    if ('status' in answer)
      throw new UpstreamUnavailableError(`The chain did not answer (${answer.message}); nothing is charged.`)
    throw new UpstreamFailedError(`The chain refused the read: ${answer.message}. Nothing is charged.`)
  }
  let results: Result[]
  try {
    const hex = answer.result
    results = typeof hex === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(hex) ? decodeAggregate3(hex as Hex) : []
  } catch {
    results = []
  }
  if (results.length !== calls.length)
    throw new UpstreamFailedError('The chain answered aggregate3 in an unknown shape; nothing is charged.')
  // A call to an address without code succeeds with no data (a chain without the contract): that is a failure too.
  return results.map((result) => (result.success && result.returnData !== '0x' ? result.returnData : undefined))
}

/** A number as one 32-byte ABI word, in hex. */
function word(value: number): string {
  return value.toString(16).padStart(64, '0')
}
