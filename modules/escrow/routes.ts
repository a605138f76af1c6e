import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { CreateBody, FundBody, GetByQuery, GetParams, GetQuery, ListQuery, SettleBody } from './schema.js'
import * as Service from './service.js'

/** Escrow on chain: validate, name the verified payer, call the service. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'escrow' })
      // Each preflight runs in `transform`, ahead of schema validation and of the payment guard: a parameter the
      // service would refuse whoever pays is refused before any payment is asked for.
      .post('/api/v1/escrow/create', ({ body, caller }) => Service.create(deps, { ...body, payer: caller }), {
        body: CreateBody,
        transform: ({ body }) => Service.preflightCreate(deps, body),
      })
      .post('/api/v1/escrow/fund', ({ body, caller }) => Service.fund(deps, { ...body, payer: caller }), {
        body: FundBody,
        transform: ({ body }) => Service.preflightFund(body),
      })
      .post('/api/v1/escrow/release', ({ body, caller }) => Service.release(deps, { ...body, payer: caller }), {
        body: SettleBody,
        transform: ({ body }) => Service.preflightSettle(body),
      })
      .post('/api/v1/escrow/cancel', ({ body, caller }) => Service.cancel(deps, { ...body, payer: caller }), {
        body: SettleBody,
        transform: ({ body }) => Service.preflightSettle(body),
      })
      .get('/api/v1/escrow/list', ({ query, caller }) => Service.list(deps, { ...query, payer: caller }), {
        query: ListQuery,
        transform: ({ query }) => Service.preflightList(query),
      })
      .get(
        '/api/v1/escrow/:id',
        ({ params, query, caller }) => Service.get(deps, { pathId: params.id, queryId: query.id, payer: caller }),
        {
          params: GetParams,
          query: GetQuery,
          transform: ({ params, query }) => Service.preflightGet({ pathId: params.id, queryId: query.id }),
        },
      )
      .get('/api/v1/escrow', ({ query, caller }) => Service.get(deps, { queryId: query.id, payer: caller }), {
        query: GetByQuery,
        transform: ({ query }) => Service.preflightGet({ queryId: query.id }),
      })
  )
}
