import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The audit module, mounted by the gateway. */
export function audit(deps: Deps) {
  return routes(deps)
}

/** The payer's own audit trail (`/api/v1/audit/*`) on the store. */
export const manifest = Module.define({
  name: 'audit',
  paths: ['/api/v1/audit/'],
  needs: ['store'],
  routes: ({ ports }) => audit({ store: ports.store }),
})
