import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { RunBody, StatusParams } from './schema.js'
import * as Service from './service.js'

/** `/api/v1/gpu/*` and the Replicate callback: validate (model and upstream before payment), call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'gpu' })
    .post(
      '/api/v1/gpu/run',
      async ({ body, paid, set }) => {
        const started = await Service.run(deps, { ...body, paid })
        set.status = 202
        return started
      },
      { body: RunBody, transform: ({ body }) => Service.preflight(deps, body) },
    )
    .get(
      '/api/v1/gpu/status/:id',
      ({ params, paid }) => Service.status(Module.withJournal(deps, paid), { id: params.id, caller: paid.payer }),
      {
        params: StatusParams,
      },
    )
    .get(
      '/api/v1/gpu/status',
      ({ query, paid }) => Service.status(Module.withJournal(deps, paid), { id: query.id, caller: paid.payer }),
      {
        query: StatusParams,
      },
    )
    .get('/api/v1/gpu/models', () => Service.models(deps))
    .post('/callbacks/gpu/:jobId', ({ params, body, request }) =>
      Service.callback(deps, { jobId: params.jobId, body: String(body ?? ''), headers: request.headers }),
    )
}
