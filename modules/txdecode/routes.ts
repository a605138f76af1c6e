import { Elysia } from 'elysia'
import { DecodeQuery } from './schema.js'
import * as Service from './service.js'

/** Decodes a settlement-chain transaction: validate the hash, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'txdecode' }).get('/api/v1/tx/decode', ({ query }) => Service.decode(deps, query), {
    query: DecodeQuery,
  })
}
