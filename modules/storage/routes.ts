import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { GetQuery, PinBody, StatusQuery } from './schema.js'
import * as Service from './service.js'

/** Storage routes; the body, the CID and the provider are checked in `transform`, so bad input is a 400 before payment. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'storage' })
    .post('/api/v1/storage/pin', ({ body, caller }) => Service.pin(deps, caller, body), {
      body: PinBody,
      transform: ({ body }) => {
        Service.decode(deps, body as PinBody)
      },
    })
    .get('/api/v1/storage/get', ({ query, caller }) => Service.get(deps, caller, Service.cidOf(query.cid)), {
      query: GetQuery,
      transform: ({ query }) => {
        Service.cidOf(query.cid)
      },
    })
    .get('/api/v1/storage/status', ({ query, caller }) => Service.status(deps, caller, query.id), {
      query: StatusQuery,
    })
}
