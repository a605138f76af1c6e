import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { ListQuery, RegisterBody, WebhookBody } from './schema.js'
import * as Service from './service.js'

/** Webhooks: validate (the URL through the outbound guard, before payment), call the service with the payer. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'webhooks' })
    .post(
      '/api/v1/webhook/register',
      ({ body, paid }) => Service.register(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: RegisterBody,
        transform: ({ body }) => Service.preflight(deps, body as { url?: unknown }),
      },
    )
    .post(
      '/api/v1/webhook/test',
      ({ body, paid }) => Service.test(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      { body: WebhookBody },
    )
    .get(
      '/api/v1/webhook/list',
      ({ query, paid }) => Service.list(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      { query: ListQuery },
    )
    .post(
      '/api/v1/webhook/delete',
      ({ body, paid }) => Service.remove(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: WebhookBody,
      },
    )
}
