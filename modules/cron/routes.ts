import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { CancelBody, CreateBody, ListQuery } from './schema.js'
import * as Service from './service.js'

/** Cron: validate (schedule, callback URL and batch payload before payment), call the service with the payer. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'cron' })
    .post(
      '/api/v1/cron/create',
      ({ body, paid }) => Service.create(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: CreateBody,
        transform: ({ body }) => Service.preflight(deps, body as Partial<CreateBody>),
      },
    )
    .get(
      '/api/v1/cron/list',
      ({ query, paid }) => Service.list(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      { query: ListQuery },
    )
    .post(
      '/api/v1/cron/cancel',
      ({ body, paid }) => Service.cancel(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      { body: CancelBody },
    )
}
