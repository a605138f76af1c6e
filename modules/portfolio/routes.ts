import { Elysia } from 'elysia'
import { NftsQuery, TokensQuery } from './schema.js'
import * as Service from './service.js'

/**
 * What a wallet holds across chains: tokens and NFTs, paged. Networks, page size and page key are checked in
 * `transform`, with the chains' availability, so that a bad query is a 400 and an unreadable chain a 503 before payment.
 */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'portfolio' })
    .get('/api/v1/portfolio/tokens', ({ query }) => Service.tokens(deps, query), {
      query: TokensQuery,
      transform: ({ query }) => Service.preflight(deps, 'tokens', query),
    })
    .get('/api/v1/portfolio/nfts', ({ query }) => Service.nfts(deps, query), {
      query: NftsQuery,
      transform: ({ query }) => Service.preflight(deps, 'nfts', query),
    })
}
