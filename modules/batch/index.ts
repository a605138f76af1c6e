import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The batch payments module (`batch/execute`, `batch/estimate`), mounted by the gateway. */
export function batch(deps: Deps) {
  return routes(deps)
}

/** Batch payments (`/api/v1/batch/*`) on the batch contract of each accepted chain; a built batch is `batch.built`. */
export const manifest = Module.define({
  name: 'batch',
  paths: ['/api/v1/batch/'],
  needs: ['batch'],
  uses: ['events'],
  routes: ({ ports }) => batch({ chains: ports.batch, events: ports.events }),
})
