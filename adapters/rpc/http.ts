import { UpstreamFailedError } from '../../core/Errors.js'
import type * as Rpc from '../../core/Rpc.js'

/**
 * An RPC endpoint reached over HTTP JSON-RPC (a Base node or provider URL), with a timeout per call. A node that
 * answers HTTP errors or no JSON throws `upstream_failed`; a timeout or a failed connection throws as fetch does.
 */
export function http(parameters: http.Parameters): Rpc.Endpoint {
  const { name, chainId, url, timeoutMs = 10_000, fetch = globalThis.fetch } = parameters
  let id = 0
  return {
    name,
    chainId,
    async request(method, params) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (!response.ok) throw new UpstreamFailedError(`The ${name} node answered HTTP ${response.status}.`)
      const answer = (await response.json().catch((error) => {
        throw new UpstreamFailedError(`The ${name} node answered something that is not JSON.`, { cause: error })
      })) as { result?: unknown; error?: { code: number; message: string } }
      if (answer.error) return { ok: false, code: answer.error.code, message: answer.error.message }
      return { ok: true, result: answer.result ?? null }
    },
  }
}

export declare namespace http {
  type Parameters = {
    /** Name callers use in `chain`. */
    name: string
    /** EIP-155 chain id. */
    chainId: number
    /** JSON-RPC URL; may carry a provider key, so it is never shown to callers. */
    url: string
    /** Time limit of one call, in ms. @default 10_000 */
    timeoutMs?: number
    /** Fetch implementation. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
  }
}
