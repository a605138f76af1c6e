import { Elysia } from 'elysia'
import { PairParams, SearchQuery, TokenParams } from './schema.js'
import * as Service from './service.js'

/** The free DEX data: validate, call the service, nothing else. A path's parameters are also taken as a query. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'dex' })
    .get('/free/dex/search', ({ query }) => Service.search(deps, query), { query: SearchQuery })
    .get('/free/dex/pairs/:chain/:pair', ({ params }) => Service.pair(deps, params), { params: PairParams })
    .get('/free/dex/pairs', ({ query }) => Service.pair(deps, query), { query: PairParams })
    .get('/free/dex/tokens/:address', ({ params }) => Service.tokens(deps, params), { params: TokenParams })
    .get('/free/dex/tokens', ({ query }) => Service.tokens(deps, query), { query: TokenParams })
    .get('/free/dex/trending', () => Service.trending(deps))
}
