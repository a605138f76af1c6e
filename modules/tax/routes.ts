import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { CalculateBody, ReportQuery } from './schema.js'
import * as Service from './service.js'

/** Tax routes; the transactions are parsed and checked in `transform`, so bad input is a 400 before payment. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'tax' })
    .post('/api/v1/tax/calculate', ({ body, caller }) => Service.calculate(deps, caller, body), {
      body: CalculateBody,
      transform: ({ body }) => {
        Service.parse(deps, body as CalculateBody)
      },
    })
    .get('/api/v1/tax/report', ({ query, caller }) => Service.report(deps, caller, query.reportId), {
      query: ReportQuery,
    })
}
