import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The batch payments module (`batch/execute`, `batch/estimate`), mounted by the gateway. */
export function batch(deps: Deps) {
  return routes(deps)
}
