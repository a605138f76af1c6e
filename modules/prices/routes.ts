import { Elysia } from 'elysia'
import { OraclePricesQuery, PricesQuery } from './schema.js'
import * as Service from './service.js'

/** USD prices from the price feeds. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'prices' })
    .get('/free/prices', () => Service.prices(deps, Service.select(deps, undefined)))
    .get(
      '/api/v1/prices',
      ({ query }) =>
        Service.prices(
          deps,
          Service.select(deps, query.tokens ?? query.token, query.tokens === undefined ? 'token' : 'tokens'),
        ),
      { query: PricesQuery },
    )
    .get('/api/v1/oracle/prices', ({ query }) => Service.prices(deps, Service.select(deps, query.tokens)), {
      query: OraclePricesQuery,
    })
}
