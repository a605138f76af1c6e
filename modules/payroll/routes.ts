import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { EstimateBody, ExecuteBody } from './schema.js'
import * as Service from './service.js'

/**
 * Payroll on the batch contract. As in the batch module, each preflight runs in `transform`, ahead of schema
 * validation and of the payment guard, so a refused chain or malformed run is answered before any payment.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'payroll' })
    .post(
      '/api/v1/payroll/execute',
      ({ body, paid }) => Service.execute(Module.withJournal(deps, paid), body, paid.payer),
      {
        body: ExecuteBody,
        transform: ({ body }) => Service.preflightExecute(deps, body),
      },
    )
    .post('/api/v1/payroll/estimate', ({ body }) => Service.estimate(deps, body), {
      body: EstimateBody,
      transform: ({ body }) => Service.preflightEstimate(deps, body),
    })
    .get('/api/v1/payroll/tokens', () => Service.tokens(deps))
}
