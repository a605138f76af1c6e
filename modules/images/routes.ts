import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { EditBody, GenerateBody, StatusParams } from './schema.js'
import * as Service from './service.js'

/** `/api/v1/image/*` and the Replicate callback: validate (model, upstream and URLs before payment), call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'images' })
    .post(
      '/api/v1/image/generate',
      async ({ body, paid, set }) => {
        const answer = await Service.generate(deps, { body, paid })
        set.status = answer.status
        return answer.body
      },
      { body: GenerateBody, transform: ({ body }) => Service.preflight(deps, false, GenerateBody, body) },
    )
    .post('/api/v1/image/edit', ({ body }) => Service.edit(deps, body), {
      body: EditBody,
      transform: ({ body }) => Service.preflight(deps, true, EditBody, body),
    })
    .get(
      '/api/v1/image/status/:id',
      ({ params, paid }) => Service.status(Module.withJournal(deps, paid), { id: params.id, caller: paid.payer }),
      {
        params: StatusParams,
      },
    )
    .get(
      '/api/v1/image/status',
      ({ query, paid }) => Service.status(Module.withJournal(deps, paid), { id: query.id, caller: paid.payer }),
      {
        query: StatusParams,
      },
    )
    .post('/callbacks/images/:jobId', ({ params, body, request }) =>
      Service.callback(deps, { jobId: params.jobId, body: String(body ?? ''), headers: request.headers }),
    )
}
