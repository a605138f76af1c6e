import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

export { scan } from './service.js'

const env = Type.Object({
  SCTP_PRICE_TOLERANCE_BPS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 50,
    description:
      'how far (basis points) an invoiced unit price may exceed the purchase order’s and still verify; beyond it the invoice is `review_required`. Quantities and totals have no tolerance',
  }),
})

/** The module's dependencies from its resources. */
function depsOf(resources: Module.Resources<'store' | 'onchain' | 'batch', typeof env, 'events'>): Service.Deps {
  const { ports } = resources
  return {
    store: ports.store,
    batch: ports.batch.base,
    transfers: ports.onchain.transfers,
    tokens: ports.onchain.tokens,
    toleranceBps: resources.env.SCTP_PRICE_TOLERANCE_BPS,
    events: ports.events,
  }
}

/**
 * Supply-chain payments (`/api/v1/sctp/*`): suppliers, purchase orders, invoices matched against them, and verified
 * invoices paid in one batch transaction on the settlement chain; a job each minute marks them paid from the chain,
 * which is `invoice.paid` and `transfer.seen` to buyer and supplier, committed with the invoice's update. Its public
 * names keep the original gateway's `sctp` (its "Supply Chain Task Protocol"): paths, the family, its environment, its
 * job and its store collections.
 */
export const manifest = Module.define({
  name: 'sctp',
  paths: ['/api/v1/sctp/'],
  needs: ['store', 'onchain', 'batch'],
  uses: ['events'],
  env,
  routes: (resources) => routes(depsOf(resources)),
  jobs: [{ name: 'sctp-payments', run: (resources) => Service.scan(depsOf(resources)) }],
})
