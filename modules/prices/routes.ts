import { Elysia } from 'elysia'
import { OraclePricesQuery, PricesQuery } from './schema.js'
import * as Service from './service.js'

/** The tokens of `GET /api/v1/prices`: `tokens`, else `token`, else every feed's; the field named is the one given. */
function pricesTokens(deps: Service.Deps, query: { tokens?: string | undefined; token?: string | undefined }) {
  return Service.select(deps, query.tokens ?? query.token, query.tokens === undefined ? 'token' : 'tokens')
}

/**
 * USD prices from the price feeds. The symbols are checked in `transform`, ahead of the payment guard, so an unknown
 * one is a 400 before any payment is asked for.
 */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'prices' })
    .get('/free/prices', () => Service.prices(deps, Service.select(deps, undefined)))
    .get('/api/v1/prices', ({ query }) => Service.prices(deps, pricesTokens(deps, query)), {
      query: PricesQuery,
      transform: ({ query }) => {
        pricesTokens(deps, query)
      },
    })
    .get(
      '/api/v1/oracle/prices',
      ({ query }) => Service.oraclePrices(deps, Service.oracleSelect(deps, query.tokens, query.category)),
      {
        query: OraclePricesQuery,
        transform: ({ query }) => {
          Service.oracleSelect(deps, query.tokens, query.category)
        },
      },
    )
}
