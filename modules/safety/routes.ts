import { Elysia } from 'elysia'
import { AddressSafetyQuery, TokenSafetyQuery } from './schema.js'
import * as Service from './service.js'

/** The screens; each query is checked in `transform`, ahead of the schema and of anything read. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'safety' })
    .get('/api/v1/token/safety', ({ query }) => Service.token(deps, query), {
      query: TokenSafetyQuery,
      transform: ({ query }) => Service.preflight(query),
    })
    .get('/api/v1/address/safety', ({ query }) => Service.address(deps, query), {
      query: AddressSafetyQuery,
      transform: ({ query }) => Service.preflight(query),
    })
}
