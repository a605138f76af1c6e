import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The audit module, mounted by the gateway. */
export function audit(deps: Deps) {
  return routes(deps)
}
