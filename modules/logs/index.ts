import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The logs module, mounted by the gateway. */
export function logs(deps: Deps) {
  return routes(deps)
}
