import { routes } from './routes.js'
import type { Deps } from './service.js'

/**
 * The Stellar module, mounted by the gateway. It needs a network (`deps.network`); where no Horizon server is
 * configured the gateway does not mount it, and its routes answer 503 before any payment.
 */
export function stellar(deps: Deps) {
  return routes(deps)
}
