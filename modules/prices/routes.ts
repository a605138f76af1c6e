import { Elysia } from 'elysia'
import { OraclePricesQuery, PricesQuery } from './schema.js'
import * as Service from './service.js'

/** The tokens of `GET /api/v1/prices`: `tokens`, else `token`, else every token; the field named is the one given. */
function pricesTokens(deps: Service.Deps, query: { tokens?: string | undefined; token?: string | undefined }) {
  return Service.select(deps, {
    tokens: query.tokens ?? query.token,
    field: query.tokens === undefined && query.token !== undefined ? 'token' : 'tokens',
  })
}

/** The tokens of `GET /api/v1/oracle/prices`: `tokens`, else the original gateway's `category`, else every token. */
function oracleTokens(deps: Service.Deps, query: { tokens?: string | undefined; category?: string | undefined }) {
  return Service.select(deps, { tokens: query.tokens, category: query.category })
}

/**
 * USD prices from the price feeds and the settlement chain's Uniswap v3 pools. The tokens are checked in `transform`,
 * ahead of the payment guard, so an unknown one is a 400 before any payment is asked for.
 */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'prices' })
    .get('/free/prices', () => Service.prices(deps, Service.feedSymbols(deps)))
    .get('/api/v1/prices', ({ query }) => Service.tokenPrices(deps, pricesTokens(deps, query)), {
      query: PricesQuery,
      transform: ({ query }) => {
        pricesTokens(deps, query)
      },
    })
    .get('/api/v1/oracle/prices', ({ query }) => Service.oraclePrices(deps, oracleTokens(deps, query)), {
      query: OraclePricesQuery,
      transform: ({ query }) => {
        oracleTokens(deps, query)
      },
    })
}
