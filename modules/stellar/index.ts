import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/**
 * The Stellar module, mounted by the gateway. It needs a network (`deps.network`); where no Horizon server is
 * configured the gateway does not mount it, and its routes answer 503 before any payment.
 */
export function stellar(deps: Deps) {
  return routes(deps)
}

/** Stellar batch payments (`/api/v1/stellar/*`) through Horizon; unavailable while Horizon is not answering. */
export const manifest = Module.define({
  name: 'stellar',
  paths: ['/api/v1/stellar/'],
  needs: ['stellar'],
  routes: ({ ports }) => stellar({ network: ports.stellar }),
  ready: ({ ports }) => Module.reasonOf(ports.stellar.available()),
})
