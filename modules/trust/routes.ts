import { Elysia } from 'elysia'
import { ScoreQuery } from './schema.js'
import * as Service from './service.js'

/** The trust score: validate, read, score; nothing is stored. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'trust' }).get('/api/v1/trust/score', ({ query }) => Service.score(deps, query), {
    query: ScoreQuery,
  })
}
