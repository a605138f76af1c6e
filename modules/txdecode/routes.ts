import { Elysia } from 'elysia'
import * as EvmChain from '../../core/EvmChain.js'
import { DecodeQuery } from './schema.js'
import * as Service from './service.js'

/** Decodes a settlement-chain transaction: validate the hash, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'txdecode' }).get('/api/v1/tx/decode', ({ query }) => Service.decode(deps, query), {
    query: DecodeQuery,
    // Ahead of the payment guard: a chain other than the settlement chain is a 400 before any payment is asked for.
    transform: ({ query }) => {
      EvmChain.only({ value: query.chain, served: 'base' })
    },
  })
}
