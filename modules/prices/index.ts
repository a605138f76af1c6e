import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The prices module, mounted by the gateway. */
export function prices(deps: Service.Deps) {
  return routes(deps)
}

/**
 * USD spot prices: of USDC, ETH and SOL from AggregatorV3 feeds (`/free/prices`), and of every listed token of the
 * settlement chain (the curated ones and Uniswap's default token list) from the feeds or the chain's Uniswap v3 pools
 * (`/api/v1/prices`, `/api/v1/oracle/prices`).
 */
export const manifest = Module.define({
  name: 'prices',
  paths: ['/free/prices', '/api/v1/prices', '/api/v1/oracle/prices'],
  needs: ['prices'],
  uses: ['chains'],
  routes: ({ ports }) => prices(Service.from({ feeds: ports.prices, chain: ports.chains?.[0] })),
})
