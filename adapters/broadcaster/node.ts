import { type Hash, isHash } from 'viem'
import type * as Rpc from '../../core/Rpc.js'

/**
 * Sends signed transactions to a node through an EIP-1193 `request` (the settlement chain's client): the node's
 * JSON-RPC error (`{ code, message }`) is its refusal; anything else thrown is a node that did not answer. Sent once:
 * a node that answers late may still have taken it, which the wallet's next nonce shows.
 */
export function node(parameters: node.Parameters): Rpc.Broadcaster {
  const { chainId, request } = parameters
  return {
    chainId,
    async send(transaction) {
      let hash: unknown
      try {
        hash = await request({ method: 'eth_sendRawTransaction', params: [transaction] })
      } catch (error) {
        const { code, shortMessage, message } = (error ?? {}) as {
          code?: unknown
          shortMessage?: unknown
          message?: unknown
        }
        if (typeof code === 'number')
          return { ok: false, code, message: String(typeof shortMessage === 'string' ? shortMessage : message) }
        return { ok: false, reason: 'failed', status: undefined, message: 'The node could not be reached.' }
      }
      if (typeof hash !== 'string' || !isHash(hash))
        return { ok: false, reason: 'failed', status: undefined, message: 'The node answered no transaction hash.' }
      return { ok: true, hash: hash as Hash }
    },
  }
}

export declare namespace node {
  type Parameters = {
    /** EIP-155 chain id of the node's chain. */
    chainId: number
    /** Sends one JSON-RPC request; throws `{ code, message }` for the node's errors. */
    request: (arguments_: { method: 'eth_sendRawTransaction'; params: [`0x${string}`] }) => Promise<unknown>
  }
}
