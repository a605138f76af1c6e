import { Elysia } from 'elysia'
import { AssetQuery, AssetsQuery, PriceQuery, PricesQuery, QuoteQuery, SwapBody } from './schema.js'
import * as Service from './service.js'

/** Swap quotes and unsigned swap transactions on the aggregator: validate, call the service. */
export function swap(deps: Service.SwapDeps) {
  return new Elysia({ name: 'solana-swap' })
    .get('/api/v1/solana/aggregator/quote', ({ query }) => Service.quote(deps, query), { query: QuoteQuery })
    .post('/api/v1/solana/aggregator/swap-tx', ({ body }) => Service.swap(deps, body), { body: SwapBody })
}

/** Digital assets from the DAS index: validate, call the service. */
export function assets(deps: Service.AssetDeps) {
  return new Elysia({ name: 'solana-assets' })
    .get('/api/v1/solana/assetindex/assets-by-owner', ({ query }) => Service.assetsByOwner(deps, query), {
      query: AssetsQuery,
    })
    .get('/api/v1/solana/assetindex/asset', ({ query }) => Service.asset(deps, query), { query: AssetQuery })
}

/**
 * Pyth prices: validate, call the service. The feed list's preflight runs in `transform`, ahead of schema validation
 * and of the payment guard, so a list of more than 50 feeds is refused before any payment is asked for.
 */
export function prices(deps: Service.PriceDeps) {
  return new Elysia({ name: 'solana-prices' })
    .get('/api/v1/solana/pricefeed/price', ({ query }) => Service.price(deps, query), { query: PriceQuery })
    .get('/api/v1/solana/pricefeed/prices', ({ query }) => Service.prices(deps, query), {
      query: PricesQuery,
      transform: ({ query }) => Service.preflightPrices(query),
    })
}
