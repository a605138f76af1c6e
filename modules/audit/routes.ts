import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { LogBody, QueryQuery } from './schema.js'
import * as Service from './service.js'

/** The payer's own tamper-evident audit trail: append and query with verification. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'audit' })
    .post(
      '/api/v1/audit/log',
      ({ paid, body }) => Service.log(Module.withJournal(deps, paid), { caller: paid.payer, ...body }),
      {
        body: LogBody,
        // Transform runs before validation and payment: `details` are judged before the framework reshapes them.
        transform: ({ body }) => Service.assertDetails((body as { details?: unknown } | undefined)?.details),
      },
    )
    .get(
      '/api/v1/audit/query',
      ({ paid, query }) => Service.query(Module.withJournal(deps, paid), { caller: paid.payer, ...query }),
      {
        query: QueryQuery,
      },
    )
}
