import { Elysia } from 'elysia'
import { QuoteQuery } from './schema.js'
import * as Service from './service.js'

/** Bridge quotes and the chains bridges serve: validate, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'bridge' })
    .get('/api/v1/bridge/quote', ({ query }) => Service.quote(deps, query), {
      query: QuoteQuery,
      // Transform runs before the payment guard, so a quote from a chain to itself, or another chain's native coin, is
      // refused before any payment.
      transform: ({ query }) => Service.preflight(query),
    })
    .get('/api/v1/bridge/chains', () => Service.chains(deps))
}
