import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { ByIdQuery, CreateBody, IdParams, IdQuery, ListQuery } from './schema.js'
import * as Service from './service.js'

/** Invoicing: validate, call the service with the verified payer, nothing else. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'invoice' })
      // Each preflight runs in `transform`, ahead of schema validation and of the payment guard: a parameter the
      // service would refuse whoever pays is refused before any payment is asked for.
      .post(
        '/api/v1/invoice/create',
        ({ body, paid }) => Service.create(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: CreateBody,
          transform: ({ body }) => Service.preflightCreate(deps, body),
        },
      )
      .get(
        '/api/v1/invoice/list',
        ({ query, paid }) => Service.list(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
        {
          query: ListQuery,
          transform: ({ query }) => Service.preflightList(query),
        },
      )
      .get(
        '/api/v1/invoice/:id',
        ({ params, query, paid }) =>
          Service.get(Module.withJournal(deps, paid), { pathId: params.id, queryId: query.id, caller: paid.payer }),
        {
          params: IdParams,
          query: IdQuery,
          transform: ({ params, query }) => Service.preflightGet({ pathId: params.id, queryId: query.id }),
        },
      )
      .get(
        '/api/v1/invoice',
        ({ query, paid }) => Service.get(Module.withJournal(deps, paid), { queryId: query.id, caller: paid.payer }),
        {
          query: ByIdQuery,
          transform: ({ query }) => Service.preflightGet({ queryId: query.id }),
        },
      )
  )
}
