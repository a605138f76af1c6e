import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { EstimateBody, ExecuteBody } from './schema.js'
import * as Service from './service.js'

/**
 * Batch payments on the batch contract. Each route's preflight runs in `transform`, ahead of schema validation and
 * of the gateway's payment guard, so a refused chain or malformed batch is answered before any payment is asked for.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'batch' })
    .post(
      '/api/v1/batch/execute',
      ({ body, paid }) => Service.execute(Module.withJournal(deps, paid), body, paid.payer),
      {
        body: ExecuteBody,
        transform: ({ body }) => Service.preflightExecute(deps, body),
      },
    )
    .post('/api/v1/batch/estimate', ({ body }) => Service.estimate(deps, body), {
      body: EstimateBody,
      transform: ({ body }) => Service.preflightEstimate(deps, body),
    })
}
