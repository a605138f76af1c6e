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
    DEFILLAMA_COINS_URL: Type.String({
      pattern: '^https?://',
      default: 'https://coins.llama.fi',
      description:
        'DefiLlama coins API (`/prices/historical/{time}/{coin}`) that prices transactions given without a USD value (keyless public API unless set)',
    }),
    COINGECKO_API_KEY: Type.Optional(
      Type.String({
        minLength: 1,
        defaultText: 'none: DefiLlama prices',
        description: 'CoinGecko Pro API key; when set, historical prices come from CoinGecko instead of DefiLlama',
        secret: true,
      }),
    ),
    COINGECKO_API_URL: Type.String({
      pattern: '^https?://',
      default: 'https://pro-api.coingecko.com/api/v3',
      description: 'CoinGecko API (`/coins/{id}/history`) used with COINGECKO_API_KEY',
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
