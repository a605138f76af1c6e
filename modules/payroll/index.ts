import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The payroll module (`payroll/execute`, `payroll/estimate`, `payroll/tokens`), mounted by the gateway. */
export function payroll(deps: Deps) {
  return routes(deps)
}

/** Payroll runs (`/api/v1/payroll/*`) on the batch contract of each accepted chain; a built run is `payroll.built`. */
export const manifest = Module.define({
  name: 'payroll',
  paths: ['/api/v1/payroll/'],
  needs: ['batch'],
  uses: ['events'],
  routes: ({ ports }) => payroll({ chains: ports.batch, events: ports.events }),
})
