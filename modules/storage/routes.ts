import { Value } from '@sinclair/typebox/value'
import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { GetQuery, PinBody, StatusQuery } from './schema.js'
import * as Service from './service.js'

/** Storage routes; the body, the CID and the provider are checked in `transform`, so bad input is a 400 before payment. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'storage' })
    .post('/api/v1/storage/pin', ({ body, paid }) => Service.pin(Module.withJournal(deps, paid), paid.payer, body), {
      body: PinBody,
      // Ahead of schema validation and the payment guard: a body of the schema's shape is decoded and checked here, so
      // its domain errors are 400s before payment; any other body is left to the schema's own 400.
      transform: ({ body }) => {
        if (Value.Check(PinBody, body)) Service.decode(deps, body)
      },
    })
    .get(
      '/api/v1/storage/get',
      ({ query, paid }) => Service.get(Module.withJournal(deps, paid), paid.payer, Service.cidOf(query.cid)),
      {
        query: GetQuery,
        transform: ({ query }) => {
          if (Value.Check(GetQuery, query)) Service.cidOf(query.cid)
        },
      },
    )
    .get(
      '/api/v1/storage/status',
      ({ query, paid }) => Service.status(Module.withJournal(deps, paid), paid.payer, query.id),
      {
        query: StatusQuery,
      },
    )
}
