import { Elysia } from 'elysia'
import { BatchBody, EstimateBody } from './schema.js'
import * as Service from './service.js'

/** Stellar batch payments: validate, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'stellar' })
    .post('/api/v1/stellar/batch', ({ body }) => Service.batch(deps, body), { body: BatchBody })
    .post('/api/v1/stellar/estimate', ({ body }) => Service.estimate(deps, body), { body: EstimateBody })
}
