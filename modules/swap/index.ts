import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The swap module, mounted by the gateway. */
export function swap(deps: Deps) {
  return routes(deps)
}

/**
 * Swap quotes and unsigned swaps on Uniswap v3 (`/api/v1/swap/*`) and Aave v3 / Compound v3 positions
 * (`/api/v1/defi/positions`), read from the settlement chain: Base's contracts in production, the devnet's otherwise.
 */
export const manifest = Module.define({
  name: 'swap',
  paths: ['/api/v1/swap/', '/api/v1/defi/'],
  needs: ['chains'],
  uses: ['prices', 'aggregator'],
  routes: ({ ports }) =>
    swap({ chain: ports.chains[0]!, feeds: ports.prices, aggregator: ports.aggregator, now: Date.now }),
})
