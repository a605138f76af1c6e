import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { CancelBody, CreateBody, ListQuery } from './schema.js'
import * as Service from './service.js'

/** Cron: validate (schedule, callback URL and batch payload before payment), call the service with the payer. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'cron' })
    .post('/api/v1/cron/create', ({ body, caller }) => Service.create(deps, { ...body, caller }), {
      body: CreateBody,
      transform: ({ body }) => Service.preflight(deps, body as Partial<CreateBody>),
    })
    .get('/api/v1/cron/list', ({ query, caller }) => Service.list(deps, { ...query, caller }), { query: ListQuery })
    .post('/api/v1/cron/cancel', ({ body, caller }) => Service.cancel(deps, { ...body, caller }), { body: CancelBody })
}
