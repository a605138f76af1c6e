import { Elysia } from 'elysia'
import { HistoryQuery, SearchQuery, SymbolQuery } from './schema.js'
import * as Service from './service.js'

/** Stock quotes, symbol search, candles and company profiles; every input checked before payment. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'stocks' })
    .get('/api/v1/stocks/price', ({ query }) => Service.price(deps, query.symbol), { query: SymbolQuery })
    .get('/api/v1/stocks/search', ({ query }) => Service.search(deps, query.q), { query: SearchQuery })
    .get('/api/v1/stocks/history', ({ query }) => Service.history(deps, query), {
      query: HistoryQuery,
      transform: ({ query }) => {
        Service.rangeOf(deps, query)
      },
    })
    .get('/api/v1/stocks/company', ({ query }) => Service.company(deps, query.symbol), { query: SymbolQuery })
}
