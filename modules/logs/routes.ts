import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { IngestBody, QueryQuery } from './schema.js'
import * as Service from './service.js'

/** The payer's own logs: batch ingest and filtered query. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'logs' })
    .post(
      '/api/v1/logs/ingest',
      ({ paid, body }) => Service.ingest(Module.withJournal(deps, paid), { caller: paid.payer, ...body }),
      {
        body: IngestBody,
        // Transform runs before validation and payment: `fields` are judged before the framework reshapes them.
        transform: ({ body }) => Service.assertFields((body as { entries?: unknown } | undefined)?.entries),
      },
    )
    .get(
      '/api/v1/logs/query',
      ({ paid, query }) => Service.query(Module.withJournal(deps, paid), { caller: paid.payer, ...query }),
      {
        query: QueryQuery,
      },
    )
}
