import { Elysia } from 'elysia'
import { FxQuery } from './schema.js'
import * as Service from './service.js'

/** Exchange rates from the fiat feeds. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'fx' }).get(
    '/api/v1/oracle/fx',
    ({ query }) => Service.rates(deps, Service.baseOf(deps, query.base)),
    { query: FxQuery },
  )
}
