import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The trust-score module, mounted by the gateway. */
export function trust(deps: Service.Deps) {
  return routes(deps)
}

/**
 * A multi-axis trust score of an address (`/api/v1/trust/score`): age and activity from the settlement chain's history,
 * the sanctions oracle, Coinbase Verifications, ERC-8004 reputation of the agents it owns, and the payments it settled
 * through this gateway; the formula is core/Trust.ts and every axis answers with its inputs and source.
 */
export const manifest = Module.define({
  name: 'trust',
  paths: ['/api/v1/trust/score'],
  needs: ['settlementChain', 'payments'],
  uses: ['history'],
  routes: ({ ports }) =>
    trust({
      endpoint: ports.settlementChain,
      history: ports.history,
      payments: ports.payments,
      now: () => new Date(),
    }),
})
