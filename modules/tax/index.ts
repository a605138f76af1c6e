import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The tax module, mounted by the gateway. */
export function tax(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Capital gains reports (`/api/v1/tax/*`) by the core engine (core/Tax.ts): FIFO, LIFO or HIFO lots, exact decimals,
 * short and long term; missing USD values from historical prices (DefiLlama keyless, CoinGecko when keyed). Reports
 * belong to the payer.
 */
export const manifest = Module.define({
  name: 'tax',
  paths: ['/api/v1/tax/'],
  needs: ['store'],
  uses: ['historicalPrices'],
  env: Type.Object({
    TAX_MAX_TRANSACTIONS: Type.Integer({
      minimum: 1,
      default: 10_000,
      description:
        'most transactions one `tax/calculate` takes (the JSON body is bounded by BODY_LIMIT_BYTES too: 10,000 transactions need about 2 MiB)',
    }),
  }),
  routes: ({ ports, env }) =>
    tax({
      store: ports.store,
      prices: ports.historicalPrices,
      maxTransactions: env.TAX_MAX_TRANSACTIONS,
      now: Date.now,
    }),
})
