import { Elysia } from 'elysia'
import { SessionBody, VerifyQuery } from './schema.js'
import * as Service from './service.js'

/** Session tokens: issue for the payer's own address, verify offline plus revocation. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'auth' })
    .post('/api/v1/auth/session', ({ request, body }) => Service.session(deps, { caller: deps.caller(request), ...body }), {
      body: SessionBody,
    })
    .get('/api/v1/auth/verify', ({ query }) => Service.verify(deps, query), { query: VerifyQuery })
}
