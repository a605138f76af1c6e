import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { ListQuery, RegisterBody, WebhookBody } from './schema.js'
import * as Service from './service.js'

/** Webhooks: validate (the URL through the outbound guard, before payment), call the service with the payer. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'webhooks' })
    .post('/api/v1/webhook/register', ({ body, caller }) => Service.register(deps, { ...body, caller }), {
      body: RegisterBody,
      transform: ({ body }) => Service.preflight(deps, body as { url?: unknown }),
    })
    .post('/api/v1/webhook/test', ({ body, caller }) => Service.test(deps, { ...body, caller }), { body: WebhookBody })
    .get('/api/v1/webhook/list', ({ query, caller }) => Service.list(deps, { ...query, caller }), { query: ListQuery })
    .post('/api/v1/webhook/delete', ({ body, caller }) => Service.remove(deps, { ...body, caller }), {
      body: WebhookBody,
    })
}
