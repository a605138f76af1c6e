import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The RPC module, mounted by the gateway. */
export function rpc(deps: Deps) {
  return routes(deps)
}
