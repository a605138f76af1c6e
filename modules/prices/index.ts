import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The prices module, mounted by the gateway. */
export function prices(deps: Service.Deps) {
  return routes(deps)
}

/** USD spot prices of USDC, ETH and SOL from AggregatorV3 feeds (`/free/prices`, `/api/v1/prices`, `/api/v1/oracle/prices`). */
export const manifest = Module.define({
  name: 'prices',
  paths: ['/free/prices', '/api/v1/prices', '/api/v1/oracle/prices'],
  needs: ['prices'],
  routes: ({ ports }) => prices(Service.from({ feeds: ports.prices })),
})
