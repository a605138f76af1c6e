import type * as Rpc from '../../core/Rpc.js'

/**
 * An RPC endpoint over an EIP-1193 `request` function (the embedded devnet, or any in-process provider): the
 * provider's thrown `{ code, message }` errors come back as the node's answer rather than as faults.
 */
export function eip1193(parameters: eip1193.Parameters): Rpc.Endpoint {
  const { name, chainId, request } = parameters
  return {
    name,
    chainId,
    async request(method, params) {
      try {
        return { ok: true, result: await request(method, [...params]) }
      } catch (error) {
        const { code, message } = error as { code?: unknown; message?: unknown }
        if (typeof code !== 'number') throw error
        return { ok: false, code, message: String(message) }
      }
    },
  }
}

export declare namespace eip1193 {
  type Parameters = {
    /** Name callers use in `chain`. */
    name: string
    /** EIP-155 chain id. */
    chainId: number
    /** Sends one request; throws `{ code, message }` for JSON-RPC errors. */
    request: (method: string, params: unknown[]) => Promise<unknown>
  }
}
