import { Elysia } from 'elysia'
import { FxQuery } from './schema.js'
import * as Service from './service.js'

/** Exchange rates from the fiat feeds; `base` is checked in `transform`, so an unknown one is a 400 before payment. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'fx' }).get(
    '/api/v1/oracle/fx',
    ({ query }) => Service.rates(deps, Service.baseOf(deps, query.base)),
    {
      query: FxQuery,
      transform: ({ query }) => {
        Service.baseOf(deps, query.base)
      },
    },
  )
}
