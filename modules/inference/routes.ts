import { Elysia } from 'elysia'
import { AddressBody, SummarizeBody, TransactionBody } from './schema.js'
import * as Service from './service.js'

/** AI analysis of the settlement chain: validate, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'inference' })
    .post('/api/v1/inference/classify-address', ({ body }) => Service.classifyAddress(deps, body), {
      body: AddressBody,
    })
    .post('/api/v1/inference/classify-tx', ({ body }) => Service.classifyTransaction(deps, body), {
      body: TransactionBody,
    })
    .post('/api/v1/inference/explain-contract', ({ body }) => Service.explainContract(deps, body), {
      body: AddressBody,
    })
    .post('/api/v1/inference/summarize', ({ body }) => Service.summarize(deps, body), { body: SummarizeBody })
}
