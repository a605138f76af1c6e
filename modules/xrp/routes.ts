import { Elysia } from 'elysia'
import { BatchBody, EstimateBody } from './schema.js'
import * as Service from './service.js'

/** XRP Ledger batch payments and network facts: validate, call the service. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia({ name: 'xrp' })
      // Each preflight runs in `transform`, ahead of the payment guard: which form a body takes and every amount in
      // it are judged before any payment is asked for.
      .post('/api/v1/xrp/batch', ({ body }) => Service.batch(deps, body), {
        body: BatchBody,
        transform: ({ body }) => Service.preflightBatch(body),
      })
      .post('/api/v1/xrp/estimate', ({ body }) => Service.estimate(deps, body), {
        body: EstimateBody,
        transform: ({ body }) => Service.preflightEstimate(body),
      })
      .get('/api/v1/xrp/info', () => Service.info(deps))
  )
}
