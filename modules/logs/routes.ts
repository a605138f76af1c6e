import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { IngestBody, QueryQuery } from './schema.js'
import * as Service from './service.js'

/** The payer's own logs: batch ingest and filtered query. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'logs' })
    .post('/api/v1/logs/ingest', ({ caller, body }) => Service.ingest(deps, { caller, ...body }), {
      body: IngestBody,
      // Transform runs before validation and payment: `fields` are judged before the framework reshapes them.
      transform: ({ body }) => Service.assertFields((body as { entries?: unknown } | undefined)?.entries),
    })
    .get('/api/v1/logs/query', ({ caller, query }) => Service.query(deps, { caller, ...query }), {
      query: QueryQuery,
    })
}
