import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The payroll module (`payroll/execute`, `payroll/estimate`, `payroll/tokens`), mounted by the gateway. */
export function payroll(deps: Deps) {
  return routes(deps)
}
