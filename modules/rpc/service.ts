import { BadRequestError, RpcCallFailedError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import { echo } from '../../core/internal/echo.js'
import * as Rpc from '../../core/Rpc.js'
import * as Upstream from '../../core/Upstream.js'
import type { CallBody } from './schema.js'

/** What the RPC module needs from outside. */
export type Deps = {
  /** The chains callers may read from. */
  chains: readonly Rpc.Endpoint[]
}

/**
 * The chain each name `rpc/call` takes stands for: every configured chain by its own name, and the settlement chain
 * (the first) also as `base`, in any of the original gateway's spellings of it (`base-mainnet`): `base` is the chain
 * the gateway settles on, the devnet on embedded defaults, as the chain-data endpoints read it.
 */
export function byName(chains: readonly Rpc.Endpoint[]): ReadonlyMap<string, Rpc.Endpoint> {
  const named = new Map(chains.map((chain) => [chain.name, chain]))
  const settlement = chains[0]
  const spellings = Object.keys(EvmChain.aliases).filter((alias) => EvmChain.aliases[alias] === 'base')
  if (settlement) for (const name of ['base', ...spellings]) if (!named.has(name)) named.set(name, settlement)
  return named
}

/** Most characters of a node's error message a refusal repeats. */
const maxNodeMessageLength = 200

/** The configured chains (`key` is the name `rpc/call` takes, as the original gateway lists it) and the methods. */
export function chains(deps: Deps) {
  return {
    chains: deps.chains.map((chain) => ({
      key: chain.name,
      name: chain.name,
      chainId: chain.chainId,
      network: `eip155:${chain.chainId}`,
    })),
    allowedMethods: [...Rpc.allowedMethods],
  }
}

/**
 * Refuses, before payment, parameters too few or too many for the method (see {@link Rpc.arity}); a body the schema
 * refuses (an unknown method, parameters that are not an array) is left to it, which names the field.
 */
export function preflight(body: unknown): void {
  const { method, params = [] } = (body ?? {}) as { method?: unknown; params?: unknown }
  if (typeof method !== 'string' || !Object.hasOwn(Rpc.arity, method) || !Array.isArray(params)) return
  const [fewest, most] = Rpc.arity[method as Rpc.Method]
  if (params.length < fewest || params.length > most)
    throw new ValidationError({
      field: 'params',
      message: `${method} takes ${fewest === most ? fewest : `${fewest} to ${most}`} positional parameters, not ${params.length}`,
    })
}

/**
 * Forwards one read-only call to the named chain and answers the node's result, with the chain, its chain id and the
 * method as the original gateway answers them (`error` is always `null`: a node's error is a 4xx or 502, not charged).
 */
export async function call(deps: Deps, input: CallBody) {
  const chain = byName(deps.chains).get(input.chain)!
  const answer = await chain.request(input.method, input.params ?? [])
  // No answer (unreachable, timed out, refused before sending): 502, 504 or 503, naming no URL.
  if (Upstream.isFailure(answer)) throw Upstream.toError(answer)
  if (!answer.ok) {
    // The node's message may quote the caller's parameters: it is echoed bounded.
    const rpcError = { code: answer.code, message: echo(answer.message, maxNodeMessageLength) }
    if (Rpc.invalidRequestCodes.includes(answer.code))
      throw new BadRequestError(`${input.method} is not a valid request on ${chain.name}: ${rpcError.message}`, {
        details: { field: answer.code === -32601 ? 'method' : 'params', rpcError },
      })
    throw new RpcCallFailedError(`${input.method} failed on ${chain.name}: ${rpcError.message}`, {
      details: { rpcError },
    })
  }
  return {
    jsonrpc: '2.0',
    chain: chain.name,
    chainId: chain.chainId,
    method: input.method,
    result: answer.result,
    error: null,
  }
}
