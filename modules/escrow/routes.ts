import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { CreateBody, FundBody, GetByQuery, GetParams, GetQuery, ListQuery, SettleBody } from './schema.js'
import * as Service from './service.js'

/** Escrow on chain: validate, name the verified payer, call the service. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'escrow' })
      // Each preflight runs in `transform`, ahead of schema validation and of the payment guard: a parameter the
      // service would refuse whoever pays is refused before any payment is asked for.
      .post(
        '/api/v1/escrow/create',
        ({ body, paid }) => Service.create(Module.withJournal(deps, paid), { ...body, payer: paid.payer }),
        {
          body: CreateBody,
          transform: ({ body }) => Service.preflightCreate(deps, body),
        },
      )
      .post(
        '/api/v1/escrow/fund',
        ({ body, paid }) => Service.fund(Module.withJournal(deps, paid), { ...body, payer: paid.payer }),
        {
          body: FundBody,
          transform: ({ body }) => Service.preflightFund(body),
        },
      )
      .post(
        '/api/v1/escrow/release',
        ({ body, paid }) => Service.release(Module.withJournal(deps, paid), { ...body, payer: paid.payer }),
        {
          body: SettleBody,
          transform: ({ body }) => Service.preflightSettle(body),
        },
      )
      .post(
        '/api/v1/escrow/cancel',
        ({ body, paid }) => Service.cancel(Module.withJournal(deps, paid), { ...body, payer: paid.payer }),
        {
          body: SettleBody,
          transform: ({ body }) => Service.preflightSettle(body),
        },
      )
      .get(
        '/api/v1/escrow/list',
        ({ query, paid }) => Service.list(Module.withJournal(deps, paid), { ...query, payer: paid.payer }),
        {
          query: ListQuery,
          transform: ({ query }) => Service.preflightList(query),
        },
      )
      .get(
        '/api/v1/escrow/:id',
        ({ params, query, paid }) =>
          Service.get(Module.withJournal(deps, paid), { pathId: params.id, queryId: query.id, payer: paid.payer }),
        {
          params: GetParams,
          query: GetQuery,
          transform: ({ params, query }) => Service.preflightGet({ pathId: params.id, queryId: query.id }),
        },
      )
      .get(
        '/api/v1/escrow',
        ({ query, paid }) => Service.get(Module.withJournal(deps, paid), { queryId: query.id, payer: paid.payer }),
        {
          query: GetByQuery,
          transform: ({ query }) => Service.preflightGet({ queryId: query.id }),
        },
      )
  )
}
