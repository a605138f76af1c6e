import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/**
 * The XRP module, mounted by the gateway. It needs a network (`deps.network`); where no rippled server is
 * configured the gateway does not mount it, and its routes answer 503 before any payment.
 */
export function xrp(deps: Deps) {
  return routes(deps)
}

/** XRP Ledger batch payments and facts (`/api/v1/xrp/*`) through rippled; unavailable while it is not answering. */
export const manifest = Module.define({
  name: 'xrp',
  paths: ['/api/v1/xrp/'],
  needs: ['xrp'],
  routes: ({ ports }) => xrp({ network: ports.xrp }),
  ready: ({ ports }) => Module.reasonOf(ports.xrp.available()),
})
