import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The name-resolution module, mounted by the gateway. */
export function resolve(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Name-service names to addresses and addresses to their primary names (`/api/v1/resolve`, `/free/resolve`, the
 * latter cached 5 minutes): ENS and Basenames on Ethereum when the gateway settles on Base, the devnet's own registry
 * on embedded defaults.
 */
export const manifest = Module.define({
  name: 'resolve',
  paths: ['/api/v1/resolve', '/free/resolve'],
  needs: ['names'],
  routes: ({ ports }) => resolve(Service.from({ names: ports.names })),
})
