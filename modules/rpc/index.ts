import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The RPC module, mounted by the gateway. */
export function rpc(deps: Deps) {
  return routes(deps)
}

/** Read-only JSON-RPC forwarding (`/api/v1/rpc/*`) to the configured chains. */
export const manifest = Module.define({
  name: 'rpc',
  paths: ['/api/v1/rpc/'],
  needs: ['chains'],
  routes: ({ ports }) => rpc({ chains: ports.chains }),
})
