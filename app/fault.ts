import {
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  HttpRequestError,
  RpcError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem'
import { BaseError, UpstreamFailedError, UpstreamTimeoutError } from '../core/Errors.js'

/** How deep a cause chain is followed. */
const maxDepth = 16

/** Errors of a chain node that answered with an error, or of the transport to it. */
const nodeFailures = [
  HttpRequestError,
  RpcRequestError,
  WebSocketRequestError,
  SocketClosedError,
  RpcError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
] as const

/** `code` of the errors a fetch throws when a connection cannot be made or is cut (Bun, Node and undici). */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
])

/**
 * What a fault thrown from a handler says about the chain node or upstream behind it: `timeout` when a time limit
 * ran out anywhere in its cause chain (viem's `TimeoutError`, `AbortSignal.timeout`), `failed` when the node
 * answered with an error or the connection to it failed, `undefined` for anything else (a fault of ours).
 */
export function classify(error: unknown): 'timeout' | 'failed' | undefined {
  let failed = false
  let current = error
  for (let depth = 0; depth < maxDepth && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (current instanceof TimeoutError || current.name === 'TimeoutError' || code === 'ETIMEDOUT') return 'timeout'
    if (nodeFailures.some((type) => current instanceof type)) failed = true
    if (typeof code === 'string' && connectionCodes.has(code)) failed = true
    current = current.cause
  }
  return failed ? 'failed' : undefined
}

/**
 * The one place where a chain or node fault becomes a problem: a fault thrown raw from a handler is 504
 * `upstream_timeout` or 502 `upstream_failed`; a module's own 503 `upstream_unavailable` over a timeout is 504.
 * Anything else is left as it is. The message is ours: the fault's own names the node's URL and the request body.
 */
export function fromFault(error: unknown): BaseError | undefined {
  if (error instanceof BaseError) {
    if (error.code !== 'upstream_unavailable' || classify(error.cause) !== 'timeout') return undefined
    return new UpstreamTimeoutError(error.message, {
      cause: error,
      ...(error.details ? { details: error.details } : {}),
    })
  }
  const kind = classify(error)
  if (kind === 'timeout')
    return new UpstreamTimeoutError('A chain node or upstream did not answer in time; nothing was charged.', {
      cause: error,
    })
  if (kind === 'failed')
    return new UpstreamFailedError('A chain node or upstream failed the call; nothing was charged.', { cause: error })
  return undefined
}
