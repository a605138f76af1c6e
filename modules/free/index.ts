import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The free utilities module, mounted by the gateway. */
export function free(deps: Deps) {
  return routes(deps)
}
