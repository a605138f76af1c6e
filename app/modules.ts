import type { AnyElysia } from 'elysia'
import type { Address } from 'viem'
import type { Oracle } from '../core/Oracle.js'
import type * as Rpc from '../core/Rpc.js'
import { free } from '../modules/free/index.js'
import { rpc } from '../modules/rpc/index.js'

/** Everything a module may need, chosen by the composition root. */
export type Deps = {
  /** USD price source; absent until an oracle is configured. */
  oracle: Oracle | undefined
  /** Chains that RPC forwarding reads from. */
  chains: readonly Rpc.Endpoint[]
  /** The verified payer of a paid request: the caller. */
  caller: (request: Request) => Address
}

/** A module to mount, or the reason it cannot run here (its routes then answer 503 before any payment). */
export type Mount = { plugin: AnyElysia; missing: string | undefined }

/** Every module of the gateway with what it needs. */
export function modules(deps: Deps): Mount[] {
  return [
    { plugin: free({ oracle: deps.oracle }), missing: undefined },
    { plugin: rpc({ chains: deps.chains }), missing: deps.chains.length === 0 ? 'needs a chain and none is configured' : undefined },
  ]
}
