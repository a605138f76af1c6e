import { routes } from './routes.js'
import type * as Service from './service.js'

export { scan } from './service.js'

/** The invoicing module, mounted by the gateway; `scan` is its scheduled payment detection. */
export function invoice(deps: invoice.Deps) {
  return routes(deps)
}

export declare namespace invoice {
  /** What the module needs: the service's dependencies. */
  type Deps = Service.Deps
}
