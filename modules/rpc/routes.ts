import { Elysia } from 'elysia'
import type { CallBody as CallBodyType } from './schema.js'
import { CallBody } from './schema.js'
import * as Service from './service.js'

/** Read-only JSON-RPC forwarding to the configured chains. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia({ name: 'rpc' })
      .get('/api/v1/rpc/chains', () => Service.chains(deps))
      // The method's parameter count is checked in `transform`, ahead of the payment guard: refused before payment.
      .post('/api/v1/rpc/call', ({ body }) => Service.call(deps, body as CallBodyType), {
        body: CallBody([...Service.byName(deps.chains).keys()]),
        transform: ({ body }) => Service.preflight(body),
      })
  )
}
