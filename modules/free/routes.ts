import { Elysia } from 'elysia'
import { ConvertQuery, EstimateBatchQuery, UuidQuery, ValidateAddressQuery, ValidateBatchBody } from './schema.js'
import * as Service from './service.js'

/** The free utilities that need no upstream: validate input, call the service, nothing else. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'free' })
    .get('/free/timestamp', () => Service.timestamp())
    .get('/free/uuid', ({ query }) => Service.uuid(query), { query: UuidQuery })
    .get('/free/convert', ({ query }) => Service.convert(deps, query), { query: ConvertQuery })
    .get('/free/validate-address', ({ query }) => Service.validateAddress(query), { query: ValidateAddressQuery })
    .post('/free/validate-batch', ({ body }) => Service.validateBatch(body), { body: ValidateBatchBody })
    .get('/free/estimate-batch', ({ query }) => Service.estimateBatch(deps, query), { query: EstimateBatchQuery })
}
