import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The free utilities module, mounted by the gateway. */
export function free(deps: Deps) {
  return routes(deps)
}

/** The free utilities (`/free/*`); with a price source, conversions across assets too. */
export const manifest = Module.define({
  name: 'free',
  paths: ['/free/'],
  needs: [],
  uses: ['oracle'],
  routes: ({ ports }) => free({ oracle: ports.oracle }),
})
