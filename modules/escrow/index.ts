import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { collection, type Deps } from './service.js'

/** The escrow module, mounted by the gateway. */
export function escrow(deps: Deps) {
  return routes(deps)
}

/**
 * Escrows (`/api/v1/escrow/*`) on our escrow contract, recorded in the store; each move read off the contract is
 * `escrow.funded`, `escrow.released` or `escrow.cancelled` to the escrow's parties, committed with the record.
 */
export const manifest = Module.define({
  name: 'escrow',
  paths: ['/api/v1/escrow/'],
  needs: ['store', 'onchain', 'escrow'],
  uses: ['events', 'batch'],
  routes: ({ ports }) =>
    escrow({
      store: ports.store,
      chain: ports.escrow,
      tokens: ports.onchain.tokens,
      events: ports.events,
      balances: ports.batch?.base.balances,
    }),
  // Its parties, and whoever paid to read it, re-read an escrow by signing in; escrow ids are kept in lower case.
  reaccess: { 'GET /api/v1/escrow/:id': Module.ownedIn(collection, (target) => Module.idOf(target)?.toLowerCase()) },
})
