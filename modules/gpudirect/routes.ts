import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { QuoteQuery, RegisterBody, RunBody } from './schema.js'
import * as Service from './service.js'

/**
 * GPU direct: registration (signed by the operator's wallet), the operators online and a quote are free; a run is
 * paid, and a model no online operator serves is refused in `transform`, before the payment guard.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'gpu-direct' })
    .post('/api/v1/gpu-direct/register', ({ body }) => Service.register(deps, body), { body: RegisterBody })
    .get('/api/v1/gpu-direct/operators', () => Service.operators(deps))
    .get('/api/v1/gpu-direct/quote', ({ query }) => Service.quote(deps, query), { query: QuoteQuery })
    .post(
      '/api/v1/gpu-direct/run',
      ({ body, paid }) => Service.run(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: RunBody,
        transform: ({ body }) => Service.preflightRun(deps, body),
      },
    )
}
