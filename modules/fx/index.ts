import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The FX module, mounted by the gateway. */
export function fx(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Exchange rates (`/api/v1/oracle/fx`): of the original gateway's stablecoins from the settlement chain's Uniswap v3
 * pools, and of USD and the fiat currencies with a USD feed, each computed from two feeds and checked against published
 * reference rates when a source of them is configured.
 */
export const manifest = Module.define({
  name: 'fx',
  paths: ['/api/v1/oracle/fx'],
  needs: ['fx'],
  uses: ['fxReference', 'chains'],
  routes: ({ ports }) => fx(Service.from({ feeds: ports.fx, reference: ports.fxReference, chain: ports.chains?.[0] })),
})
