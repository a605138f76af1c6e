import { Elysia } from 'elysia'
import { ResolveQuery } from './schema.js'
import * as Service from './service.js'

/** Name resolution: a name to its address, an address to its primary name. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'resolve' })
    .get('/api/v1/resolve', ({ query }) => Service.resolve(deps, Service.lookupOf(query)), { query: ResolveQuery })
    .get('/free/resolve', ({ query }) => Service.resolveCached(deps, Service.lookupOf(query)), { query: ResolveQuery })
}
