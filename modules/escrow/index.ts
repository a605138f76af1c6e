import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The escrow module, mounted by the gateway. */
export function escrow(deps: Deps) {
  return routes(deps)
}
