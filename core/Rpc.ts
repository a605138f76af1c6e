import type { Hash, Hex } from 'viem'
import { RpcCallFailedError } from './Errors.js'
import { type Failure, isFailure, toError } from './Upstream.js'

/** Read-only JSON-RPC methods a caller may forward through `POST /api/v1/rpc/call`. Nothing here signs or sends. */
export const allowedMethods = [
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getStorageAt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'net_version',
] as const

/** A method from {@link allowedMethods}. */
export type Method = (typeof allowedMethods)[number]

/**
 * How many positional parameters each method takes, fewest and most, as the Ethereum execution API defines them: a
 * call outside the range is refused before it is paid for. A trailing block tag counts as optional, since nodes differ
 * on whether it defaults to `latest`; `eth_call` and `eth_estimateGas` may add state and block overrides.
 */
export const arity: Readonly<Record<Method, readonly [fewest: number, most: number]>> = {
  eth_blockNumber: [0, 0],
  eth_call: [1, 4],
  eth_chainId: [0, 0],
  eth_estimateGas: [1, 3],
  eth_feeHistory: [2, 3],
  eth_gasPrice: [0, 0],
  eth_getBalance: [1, 2],
  eth_getBlockByHash: [1, 2],
  eth_getBlockByNumber: [1, 2],
  eth_getBlockTransactionCountByNumber: [1, 1],
  eth_getCode: [1, 2],
  eth_getLogs: [1, 1],
  eth_getStorageAt: [2, 3],
  eth_getTransactionByHash: [1, 1],
  eth_getTransactionCount: [1, 2],
  eth_getTransactionReceipt: [1, 1],
  eth_maxPriorityFeePerGas: [0, 0],
  net_version: [0, 0],
}

/** Largest number of positional parameters one forwarded call may carry. */
export const maxParams = 8

/**
 * JSON-RPC 2.0 error codes by which a node says the request itself is invalid (-32600 invalid request, -32601 method
 * not found, -32602 invalid params): the caller's input is at fault, not the node.
 */
export const invalidRequestCodes: readonly number[] = [-32600, -32601, -32602]

/** Answer of a JSON-RPC endpoint: a result, or the node's own error. */
export type Answer = { ok: true; result: unknown } | { ok: false; code: number; message: string }

/** A chain the gateway can read from: its name in requests, its id, and a way to send one JSON-RPC call. */
export type Endpoint = {
  /** Name callers use in `chain`, e.g. `base` or `devnet`. */
  name: string
  /** EIP-155 chain id. */
  chainId: number
  /**
   * Sends one JSON-RPC request and returns the node's answer, or the upstream {@link Failure} when there is none
   * (unreachable, timed out, an HTTP error): the node's own errors never carry `status`, a failure always does.
   */
  request: (method: Method, params: readonly unknown[]) => Promise<Answer | Failure>
}

/**
 * Sends signed transactions to one chain's node (`eth_sendRawTransaction`): the only write the gateway makes for a
 * caller, once the transaction was simulated and its signature checked.
 */
export type Broadcaster = {
  /** EIP-155 chain id of the chain it sends to. */
  chainId: number
  /**
   * Sends one signed transaction: its hash, the node's refusal (a nonce already used, funds short), or the upstream
   * {@link Failure} when the node did not answer.
   */
  send: (transaction: Hex) => Promise<{ ok: true; hash: Hash } | { ok: false; code: number; message: string } | Failure>
}

/** Opens a JSON-RPC client to the EVM node at `url`; every call answers as {@link Endpoint.request} does. */
export type Connect = (parameters: {
  /** Name callers use for the chain. */
  name: string
  /** EIP-155 chain id. */
  chainId: number
  /** JSON-RPC URL; may carry a provider key, so it is never shown to callers. */
  url: string
}) => Endpoint

/**
 * One JSON-RPC read of `endpoint`, answering its result. No answer is thrown as the upstream's error (503 or 504),
 * the node's own error as {@link RpcCallFailedError}: either way the paid call it serves charges nothing.
 */
export async function result(endpoint: Endpoint, method: Method, params: readonly unknown[]): Promise<unknown> {
  const answer = await endpoint.request(method, params)
  if (isFailure(answer)) throw toError(answer)
  if (!answer.ok)
    throw new RpcCallFailedError(`${method} failed on ${endpoint.name}: ${answer.message}`, {
      details: { rpcError: { code: answer.code, message: answer.message } },
    })
  return answer.result
}

/** One JSON-RPC call whose failure is an answer, not an error: its result, or why there is none, in one sentence. */
export async function attempt(
  endpoint: Endpoint,
  method: Method,
  params: readonly unknown[],
): Promise<{ result: unknown } | { error: string }> {
  const answer = await endpoint.request(method, params)
  if (isFailure(answer)) return { error: answer.message }
  if (!answer.ok) return { error: `${method} failed: ${answer.message}` }
  return { result: answer.result }
}
