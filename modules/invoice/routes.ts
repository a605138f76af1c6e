import { Elysia } from 'elysia'
import type { Address } from 'viem'
import { ByIdQuery, CreateBody, IdParams, IdQuery, ListQuery } from './schema.js'
import * as Service from './service.js'

/** Invoicing: validate, call the service with the verified payer, nothing else. */
export function routes(deps: routes.Deps) {
  return new Elysia({ name: 'invoice' })
    .post('/api/v1/invoice/create', ({ body, request }) => Service.create(deps, { ...body, caller: deps.caller(request) }), {
      body: CreateBody,
    })
    // Each preflight runs in `transform`, ahead of schema validation and of the payment guard: a parameter the
    // service would refuse is refused before any payment is asked for.
    .get('/api/v1/invoice/list', ({ query, request }) => Service.list(deps, { address: query.address, caller: deps.caller(request) }), {
      query: ListQuery,
      transform: ({ query }) => Service.preflightList(query),
    })
    .get(
      '/api/v1/invoice/:id',
      ({ params, query, request }) => Service.get(deps, { pathId: params.id, queryId: query.id, caller: deps.caller(request) }),
      { params: IdParams, query: IdQuery, transform: ({ params, query }) => Service.preflightGet({ pathId: params.id, queryId: query.id }) },
    )
    .get('/api/v1/invoice', ({ query, request }) => Service.get(deps, { queryId: query.id, caller: deps.caller(request) }), {
      query: ByIdQuery,
      transform: ({ query }) => Service.preflightGet({ queryId: query.id }),
    })
}

export declare namespace routes {
  type Deps = Service.Deps & {
    /** The verified payer of a paid request: the caller. */
    caller: (request: Request) => Address
  }
}
