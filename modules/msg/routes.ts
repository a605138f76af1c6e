import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { InboxQuery, KeyBody, KeyParams, SendBody } from './schema.js'
import * as Service from './service.js'

/**
 * Wallet messages: validate (the envelope's shape and the recipient's key before payment), call the service with the
 * payer. The key routes are free and outside the catalog.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'msg' })
    .post(
      '/api/v1/msg/send',
      ({ body, paid }) => Service.send(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: SendBody,
        transform: ({ body }) => Service.preflightSend(deps, body),
      },
    )
    .get(
      '/api/v1/msg/inbox',
      ({ query, paid }) => Service.inbox(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      { query: InboxQuery },
    )
    .post('/api/v1/msg/keys', ({ body }) => Service.registerKey(deps, body), { body: KeyBody })
    .get('/api/v1/msg/keys/:address', ({ params }) => Service.getKey(deps, params), { params: KeyParams })
}
