import { Elysia } from 'elysia'
import { LogBody, QueryQuery } from './schema.js'
import * as Service from './service.js'

/** The payer's own tamper-evident audit trail: append and query with verification. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'audit' })
    .post('/api/v1/audit/log', ({ request, body }) => Service.log(deps, { caller: deps.caller(request), ...body }), {
      body: LogBody,
      // Transform runs before validation and payment: `details` are judged before the framework reshapes them.
      transform: ({ body }) => Service.assertDetails((body as { details?: unknown } | undefined)?.details),
    })
    .get('/api/v1/audit/query', ({ request, query }) => Service.query(deps, { caller: deps.caller(request), ...query }), {
      query: QueryQuery,
    })
}
