import { Elysia } from 'elysia'
import { BatchBody, EstimateBody } from './schema.js'
import * as Service from './service.js'

/** XRP Ledger batch payments and network facts: validate, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'xrp' })
    .post('/api/v1/xrp/batch', ({ body }) => Service.batch(deps, body), { body: BatchBody })
    .post('/api/v1/xrp/estimate', ({ body }) => Service.estimate(deps, body), { body: EstimateBody })
    .get('/api/v1/xrp/info', () => Service.info(deps))
}
