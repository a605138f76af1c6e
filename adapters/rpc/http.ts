import type * as Rpc from '../../core/Rpc.js'

/** An RPC endpoint reached over HTTP JSON-RPC (a Base node or provider URL), with a timeout per call. */
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
      if (!response.ok) throw new Error(`RPC ${name} answered HTTP ${response.status}`)
      const answer = (await response.json()) as { result?: unknown; error?: { code: number; message: string } }
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
