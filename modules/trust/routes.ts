import { Elysia } from 'elysia'
import * as EvmChain from '../../core/EvmChain.js'
import { ScoreQuery } from './schema.js'
import * as Service from './service.js'

/** The trust score: validate, read, score; nothing is stored. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'trust' }).get('/api/v1/trust/score', ({ query }) => Service.score(deps, query), {
    query: ScoreQuery,
    // Ahead of the payment guard: a chain other than the settlement chain is a 400 before any payment is asked for.
    transform: ({ query }) => {
      EvmChain.only({ value: query.chain, served: 'base' })
    },
  })
}
