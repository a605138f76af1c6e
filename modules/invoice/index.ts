import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'
import { collection, scan } from './service.js'

export { scan } from './service.js'

/** The invoicing module, mounted by the gateway; `scan` is its scheduled payment detection. */
export function invoice(deps: invoice.Deps) {
  return routes(deps)
}

export declare namespace invoice {
  /** What the module needs: the service's dependencies. */
  type Deps = Service.Deps
}

/**
 * Invoices (`/api/v1/invoice/*`) in the store, paid on the settlement chain; a job detects their payments. A payment
 * found is `invoice.paid` and `transfer.seen` to the invoice's parties, committed with the invoice's update.
 */
export const manifest = Module.define({
  name: 'invoice',
  paths: ['/api/v1/invoice/'],
  needs: ['store', 'onchain'],
  uses: ['events', 'batch'],
  routes: ({ ports }) =>
    invoice({ store: ports.store, ...ports.onchain, events: ports.events, balances: ports.batch?.base.balances }),
  jobs: [
    {
      name: 'scan-invoices',
      run: ({ ports }) => scan({ store: ports.store, ...ports.onchain, events: ports.events }),
    },
  ],
  // Its creator and recipient, and whoever paid to read it, re-read an invoice by signing in.
  reaccess: { 'GET /api/v1/invoice/:id': Module.ownedIn(collection, Module.idOf) },
})
