import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The KYC module, mounted by the gateway. */
export function kyc(deps: kyc.Deps) {
  return routes(deps)
}

export declare namespace kyc {
  /** What the module needs: the service's dependencies. */
  type Deps = Service.Deps
}

/**
 * Identity checks (`/api/v1/kyc/*`) from Coinbase Verifications, EAS attestations on the settlement chain (Coinbase's
 * indexer, attester and schemas on Base; the devnet's own EAS, indexer and attester otherwise), recorded in the store
 * and owned by the payer who asked.
 */
export const manifest = Module.define({
  name: 'kyc',
  paths: ['/api/v1/kyc/'],
  needs: ['store', 'settlementChain'],
  routes: ({ ports }) => kyc({ store: ports.store, endpoint: ports.settlementChain }),
})
