import { Value } from '@sinclair/typebox/value'
import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { CalculateBody, ReportQuery } from './schema.js'
import * as Service from './service.js'

/** Tax routes; the transactions are parsed and checked in `transform`, so bad input is a 400 before payment. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'tax' })
    .post(
      '/api/v1/tax/calculate',
      ({ body, paid }) => Service.calculate(Module.withJournal(deps, paid), paid.payer, body),
      {
        body: CalculateBody,
        // Ahead of schema validation and the payment guard: a body of the schema's shape is checked in full here, so
        // its domain errors are 400s before payment; any other body is left to the schema's own 400.
        transform: ({ body }) => {
          if (Value.Check(CalculateBody, body)) Service.parse(deps, body)
        },
      },
    )
    .get(
      '/api/v1/tax/report',
      ({ query, paid }) => Service.report(Module.withJournal(deps, paid), paid.payer, query.reportId),
      {
        query: ReportQuery,
      },
    )
}
