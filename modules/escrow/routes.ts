import { Elysia } from 'elysia'
import { CreateBody, FundBody, GetByQuery, GetParams, GetQuery, ListQuery, SettleBody } from './schema.js'
import * as Service from './service.js'

/** Escrow on chain: validate, name the verified payer, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'escrow' })
    .post('/api/v1/escrow/create', ({ body, request }) => Service.create(deps, { ...body, payer: deps.caller(request) }), {
      body: CreateBody,
    })
    .post('/api/v1/escrow/fund', ({ body, request }) => Service.fund(deps, { ...body, payer: deps.caller(request) }), {
      body: FundBody,
    })
    .post('/api/v1/escrow/release', ({ body, request }) => Service.release(deps, { ...body, payer: deps.caller(request) }), {
      body: SettleBody,
    })
    .post('/api/v1/escrow/cancel', ({ body, request }) => Service.cancel(deps, { ...body, payer: deps.caller(request) }), {
      body: SettleBody,
    })
    // Each preflight runs in `transform`, ahead of schema validation and of the payment guard: a parameter the
    // service would refuse is refused before any payment is asked for.
    .get('/api/v1/escrow/list', ({ query, request }) => Service.list(deps, { ...query, payer: deps.caller(request) }), {
      query: ListQuery,
      transform: ({ query }) => Service.preflightList(query),
    })
    .get(
      '/api/v1/escrow/:id',
      ({ params, query, request }) => Service.get(deps, { pathId: params.id, queryId: query.id, payer: deps.caller(request) }),
      { params: GetParams, query: GetQuery, transform: ({ params, query }) => Service.preflightGet({ pathId: params.id, queryId: query.id }) },
    )
    .get('/api/v1/escrow', ({ query, request }) => Service.get(deps, { queryId: query.id, payer: deps.caller(request) }), {
      query: GetByQuery,
      transform: ({ query }) => Service.preflightGet({ queryId: query.id }),
    })
}
