import { Elysia } from 'elysia'
import { IngestBody, QueryQuery } from './schema.js'
import * as Service from './service.js'

/** The payer's own logs: batch ingest and filtered query. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'logs' })
    .post('/api/v1/logs/ingest', ({ request, body }) => Service.ingest(deps, { caller: deps.caller(request), ...body }), {
      body: IngestBody,
      // Transform runs before validation and payment: `fields` are judged before the framework reshapes them.
      transform: ({ body }) => Service.assertFields((body as { entries?: unknown } | undefined)?.entries),
    })
    .get('/api/v1/logs/query', ({ request, query }) => Service.query(deps, { caller: deps.caller(request), ...query }), {
      query: QueryQuery,
    })
}
