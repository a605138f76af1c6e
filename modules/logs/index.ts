import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The logs module, mounted by the gateway. */
export function logs(deps: Deps) {
  return routes(deps)
}

/** The payer's own logs (`/api/v1/logs/*`) on the store. */
export const manifest = Module.define({
  name: 'logs',
  paths: ['/api/v1/logs/'],
  needs: ['store'],
  routes: ({ ports }) => logs({ store: ports.store }),
})
