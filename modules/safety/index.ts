import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The safety screens, mounted by the gateway. */
export function safety(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Token and address screening on the settlement chain (`/api/v1/token/safety`, `/api/v1/address/safety`): each
 * verdict lists its checks with their evidence and source; GoPlus is the second opinion where reachable.
 */
export const manifest = Module.define({
  name: 'safety',
  paths: ['/api/v1/token/safety', '/api/v1/address/safety'],
  needs: ['settlementChain', 'simulator'],
  uses: ['intel'],
  routes: ({ ports }) =>
    safety({ chain: ports.settlementChain, intel: ports.intel, simulator: ports.simulator, now: Date.now }),
})
