import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import {
  CompleteBody,
  DeregisterBody,
  ListQuery,
  ProfileQuery,
  RegisterBody,
  StatusQuery,
  TaskBody,
  UpdateBody,
} from './schema.js'
import * as Service from './service.js'

/** Robot tasks: validate, authorise (operator signatures on the free routes, the payer on the paid ones), call the service. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'robots' })
      .post('/api/v1/robots/register', ({ body }) => Service.register(deps, body), { body: RegisterBody })
      .patch('/api/v1/robots/update', ({ body }) => Service.update(deps, body), { body: UpdateBody })
      .post('/api/v1/robots/deregister', ({ body }) => Service.deregister(deps, body), { body: DeregisterBody })
      .post('/api/v1/robots/complete', ({ body }) => Service.complete(deps, body), { body: CompleteBody })
      // Each paid route's preflight runs in `transform`, ahead of the payment guard: one name of each pair (ours or
      // the original gateway's) and readable amounts are judged before any payment is asked for.
      .get('/api/v1/robots/list', ({ query }) => Service.list(deps, query), {
        query: ListQuery,
        transform: ({ query }) => Service.preflightList(query),
      })
      .get('/api/v1/robots/profile', ({ query }) => Service.profile(deps, query), {
        query: ProfileQuery,
        transform: ({ query }) => Service.preflightProfile(query),
      })
      // The robot, its price and its limits are checked in `transform`, before the payment guard.
      .post(
        '/api/v1/robots/task',
        ({ body, paid }) => Service.task(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: TaskBody,
          transform: ({ body }) => Service.preflightTask(deps, body),
        },
      )
      .get(
        '/api/v1/robots/status',
        ({ query, paid }) => Service.status(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
        {
          query: StatusQuery,
          transform: ({ query }) => Service.preflightStatus(query),
        },
      )
  )
}
