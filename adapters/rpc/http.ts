import type * as Rpc from '../../core/Rpc.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * An RPC endpoint reached over HTTP JSON-RPC (a Base node or provider URL). Every forwarded method is a read, so a
 * call that got no answer (or 408, 429, 5xx) is sent again. A node's JSON-RPC error is its answer; a node that cannot
 * be reached, times out, or answers an HTTP error or no JSON is an upstream failure, never thrown.
 */
export function http(parameters: http.Parameters): Rpc.Endpoint {
  const { name, chainId, url, retryReads = true, ...options } = parameters
  const client = vendor({
    id: 'chain-rpc',
    name: `the ${name} node`,
    baseUrl: url,
    timeoutMs: 10_000,
    errorMessage: ({ status }) => `The ${name} node answered HTTP ${status}.`,
    ...options,
  })
  let id = 0
  return {
    name,
    chainId,
    async request(method, params) {
      const answer = await client.json({
        method: 'POST',
        body: { jsonrpc: '2.0', id: ++id, method, params },
        idempotent: retryReads,
        check: (body, status) =>
          'result' in fieldsOf(body) || 'error' in fieldsOf(body)
            ? undefined
            : client.fail('failed', `The ${name} node answered neither a result nor an error.`, status),
      })
      if (!answer.ok) return answer
      const { result, error } = fieldsOf(answer.body)
      if (error !== undefined && error !== null) {
        const { code, message } = fieldsOf(error)
        if (typeof code !== 'number')
          return client.fail('failed', `The ${name} node answered an error without a code.`, answer.status)
        return { ok: false, code, message: typeof message === 'string' ? message : '' }
      }
      return { ok: true, result: result ?? null }
    },
  }
}

export declare namespace http {
  type Parameters = vendor.Options & {
    /** Name callers use in `chain`. */
    name: string
    /** EIP-155 chain id. */
    chainId: number
    /** JSON-RPC URL; may carry a provider key, so it is never shown to callers. @default timeoutMs 10_000 */
    url: string
    /** Whether a call that got no answer is sent again; every method in `Rpc.allowedMethods` is a read. @default true */
    retryReads?: boolean
  }
}
