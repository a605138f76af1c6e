import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { SessionBody, VerifyQuery } from './schema.js'
import * as Service from './service.js'

/** Session tokens: issue for the payer's own address, verify offline plus revocation. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'auth' })
    .post(
      '/api/v1/auth/session',
      ({ paid, body }) => Service.session(Module.withJournal(deps, paid), { caller: paid.payer, ...body }),
      {
        body: SessionBody,
        // Before validation and payment: metadata travels in the token, so its size is bounded up front.
        transform: ({ body }) => Service.assertMetadata((body as { metadata?: unknown } | undefined)?.metadata),
      },
    )
    .get('/api/v1/auth/verify', ({ query }) => Service.verify(deps, query), { query: VerifyQuery })
}
