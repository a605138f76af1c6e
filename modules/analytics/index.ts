import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The analytics module, mounted by the gateway. */
export function analytics(deps: analytics.Deps) {
  return routes(deps)
}

export declare namespace analytics {
  /** What the module needs: the service's dependencies. */
  type Deps = Service.Deps
}

/**
 * Transaction history and wallet classification of settlement-chain addresses (`/api/v1/analytics/*`): the history
 * from the `history` port (our indexer on a devnet, Blockscout on Base), code, nonce and calls from the chain itself.
 */
export const manifest = Module.define({
  name: 'analytics',
  paths: ['/api/v1/analytics/'],
  needs: ['history', 'settlementChain'],
  ready: ({ ports }) => Module.reasonOf(ports.history.available()),
  routes: ({ ports }) => analytics({ history: ports.history, endpoint: ports.settlementChain, now: Date.now }),
})
