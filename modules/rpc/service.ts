import { RpcCallFailedError } from '../../core/Errors.js'
import * as Rpc from '../../core/Rpc.js'
import * as Upstream from '../../core/Upstream.js'
import type { CallBody } from './schema.js'

/** What the RPC module needs from outside. */
export type Deps = {
  /** The chains callers may read from. */
  chains: readonly Rpc.Endpoint[]
}

/** The configured chains and the methods that may be forwarded. */
export function chains(deps: Deps) {
  return {
    chains: deps.chains.map((chain) => ({
      name: chain.name,
      chainId: chain.chainId,
      network: `eip155:${chain.chainId}`,
    })),
    allowedMethods: [...Rpc.allowedMethods],
  }
}

/** Forwards one read-only call to the named chain and answers the node's result. */
export async function call(deps: Deps, input: CallBody) {
  const chain = deps.chains.find((candidate) => candidate.name === input.chain)!
  const answer = await chain.request(input.method, input.params ?? [])
  // No answer (unreachable, timed out, refused before sending): 502, 504 or 503, naming no URL.
  if (Upstream.isFailure(answer)) throw Upstream.toError(answer)
  if (!answer.ok)
    throw new RpcCallFailedError(`${input.method} failed on ${chain.name}: ${answer.message}`, {
      details: { rpcError: { code: answer.code, message: answer.message } },
    })
  return { jsonrpc: '2.0', result: answer.result }
}
