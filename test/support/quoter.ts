import {
  type Address,
  decodeFunctionData,
  encodeFunctionResult,
  type Hex,
  hexToBigInt,
  numberToHex,
  size,
  slice,
} from 'viem'
import { base } from 'viem/chains'
import * as Multicall3 from '../../core/Multicall3.js'
import type * as Rpc from '../../core/Rpc.js'
import * as Uniswap from '../../core/Uniswap.js'
import type { paidGateway } from './paid.js'

/** One quote a stand-in node was asked for: one pool, or a path through several. */
export type Asked = {
  /** Tokens from input to output. */
  tokens: readonly Address[]
  /** Fee tier of each hop. */
  fees: readonly number[]
  /** Base units of the input token. */
  amountIn: bigint
}

/**
 * A stand-in for a Base mainnet node (chain id 8453) that answers what the gateway asks of Uniswap v3 on Base: each
 * `eth_call` is Multicall3 `aggregate3`, whose QuoterV2 quotes it answers from `quote` (`undefined`: no pool, the
 * call fails, as QuoterV2 reverts) and whose block number and time it answers; any other inner call fails. Nothing
 * leaves the machine.
 */
export function baseQuoter(parameters: baseQuoter.Parameters) {
  const { quote, blockNumber = 30_000_000n, timestamp = 1_767_225_600n } = parameters
  const asked: Asked[][] = []
  const answer = (target: Address, callData: Hex, batch: Asked[]): Hex | undefined => {
    if (target.toLowerCase() === Multicall3.address.toLowerCase()) {
      const { functionName } = decodeFunctionData({ abi: Multicall3.abi, data: callData })
      if (functionName === 'getBlockNumber') return numberToHex(blockNumber, { size: 32 })
      if (functionName === 'getCurrentBlockTimestamp') return numberToHex(timestamp, { size: 32 })
      return undefined
    }
    if (target.toLowerCase() !== Uniswap.baseMainnet.quoterV2.toLowerCase()) return undefined
    const call = decodeFunctionData({ abi: Uniswap.quoterV2Abi, data: callData })
    const one =
      call.functionName === 'quoteExactInputSingle'
        ? {
            tokens: [call.args[0].tokenIn, call.args[0].tokenOut],
            fees: [call.args[0].fee],
            amountIn: call.args[0].amountIn,
          }
        : { ...pathOf(call.args[0]), amountIn: call.args[1] }
    batch.push(one)
    const amountOut = quote(one)
    if (amountOut === undefined) return undefined
    return call.functionName === 'quoteExactInputSingle'
      ? encodeFunctionResult({
          abi: Uniswap.quoterV2Abi,
          functionName: 'quoteExactInputSingle',
          result: [amountOut, 0n, 0, 100_000n],
        })
      : encodeFunctionResult({
          abi: Uniswap.quoterV2Abi,
          functionName: 'quoteExactInput',
          result: [amountOut, [], [], 200_000n],
        })
  }
  const endpoint: Rpc.Endpoint = {
    name: 'base',
    chainId: base.id,
    async request(method, params) {
      const [call] = params as [{ to: Address; data: Hex }]
      if (method !== 'eth_call' || call.to.toLowerCase() !== Multicall3.address.toLowerCase())
        return { ok: false, code: -32601, message: `the stand-in answers aggregate3 only, not ${method}` }
      const { args } = decodeFunctionData({ abi: Multicall3.abi, data: call.data })
      const batch: Asked[] = []
      asked.push(batch)
      const results = (args[0] as readonly Multicall3.Call3[]).map(({ target, callData }) => {
        const returnData = answer(target, callData, batch)
        return { success: returnData !== undefined, returnData: returnData ?? '0x' }
      })
      return {
        ok: true,
        result: encodeFunctionResult({ abi: Multicall3.abi, functionName: 'aggregate3', result: results }),
      }
    },
  }
  return { endpoint, asked }
}

export declare namespace baseQuoter {
  type Parameters = {
    /** QuoterV2's output for a quote, in base units of the output token; `undefined` when no pool quotes it. */
    quote: (asked: Asked) => bigint | undefined
    /** Block number answered. @default 30_000_000n */
    blockNumber?: bigint
    /** Block time answered, seconds since the Unix epoch. @default 1_767_225_600n */
    timestamp?: bigint
  }
}

/** The tokens and fees of a packed QuoterV2 path. */
function pathOf(path: Hex): { tokens: Address[]; fees: number[] } {
  const tokens: Address[] = [slice(path, 0, 20)]
  const fees: number[] = []
  for (let at = 20; at < size(path); at += 23) {
    fees.push(Number(hexToBigInt(slice(path, at, at + 3))))
    tokens.push(slice(path, at + 3, at + 23))
  }
  return { tokens, fees }
}

/** The embedded devnet as a booted gateway gives it. */
type Devnet = Awaited<ReturnType<typeof paidGateway>>['devnet']

/**
 * What the devnet's QuoterV2 itself answers for `amountIn` of `tokenIn` into `tokenOut` (devnet symbols) on the pool of
 * `fee`; 0 when it reverts (no pool).
 */
export async function devnetQuote(
  devnet: Devnet,
  quote: { tokenIn: string; tokenOut: string; amountIn: bigint; fee: number },
) {
  const { tokenIn, tokenOut, amountIn, fee } = quote
  try {
    const { result } = await devnet.publicClient.simulateContract({
      address: devnet.uniswap.quoterV2,
      abi: Uniswap.quoterV2Abi,
      functionName: 'quoteExactInputSingle',
      args: [
        {
          tokenIn: devnet.tokens[tokenIn]!.address,
          tokenOut: devnet.tokens[tokenOut]!.address,
          amountIn,
          fee,
          sqrtPriceLimitX96: 0n,
        },
      ],
    })
    return result[0]
  } catch {
    return 0n
  }
}
