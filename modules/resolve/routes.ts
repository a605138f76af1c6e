import { Elysia } from 'elysia'
import { ResolveQuery } from './schema.js'
import * as Service from './service.js'

/** Name resolution: a name to its address, an address to its primary name. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia({ name: 'resolve' })
      // The lookup is checked in `transform` too, ahead of the payment guard: neither or both of `name` and `address`,
      // or a malformed one, is refused before any payment is asked for.
      .get('/api/v1/resolve', ({ query }) => Service.resolve(deps, Service.lookupOf(query)), {
        query: ResolveQuery,
        transform: ({ query }) => Service.preflight(query),
      })
      .get('/free/resolve', ({ query }) => Service.resolveCached(deps, Service.lookupOf(query)), {
        query: ResolveQuery,
      })
  )
}
