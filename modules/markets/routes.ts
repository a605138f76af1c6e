import { Elysia } from 'elysia'
import {
  BookParams,
  EventsQuery,
  MarketParams,
  SearchQuery,
  TradesByQuery,
  TradesParams,
  TradesQuery,
} from './schema.js'
import * as Service from './service.js'

/** Polymarket's events, markets, order books and trades, and a search over them; every input checked before payment. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia({ name: 'markets' })
      .get('/api/v1/markets/polymarket/events', ({ query }) => Service.events(deps, query), {
        query: EventsQuery,
        transform: ({ query }) => {
          Service.eventsInput(query)
        },
      })
      .get('/api/v1/markets/polymarket/market/:conditionId', ({ params }) => Service.market(deps, params.conditionId), {
        params: MarketParams,
      })
      .get('/api/v1/markets/polymarket/orderbook/:tokenId', ({ params }) => Service.orderBook(deps, params.tokenId), {
        params: BookParams,
      })
      .get(
        '/api/v1/markets/polymarket/trades/:conditionId',
        ({ params, query }) => Service.trades(deps, params.conditionId, query),
        {
          params: TradesParams,
          query: TradesQuery,
          transform: ({ query }) => {
            Service.tradesLimit(query)
          },
        },
      )
      // The bare paths take the path parameter in the query, as every `:id` path of the gateway does.
      .get('/api/v1/markets/polymarket/market', ({ query }) => Service.market(deps, query.conditionId), {
        query: MarketParams,
      })
      .get('/api/v1/markets/polymarket/orderbook', ({ query }) => Service.orderBook(deps, query.tokenId), {
        query: BookParams,
      })
      .get('/api/v1/markets/polymarket/trades', ({ query }) => Service.trades(deps, query.conditionId, query), {
        query: TradesByQuery,
        transform: ({ query }) => {
          Service.tradesLimit(query)
        },
      })
      .get('/api/v1/markets/search', ({ query }) => Service.search(deps, query), {
        query: SearchQuery,
        transform: ({ query }) => {
          Service.searchInput(query)
        },
      })
  )
}
