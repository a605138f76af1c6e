import { Elysia } from 'elysia'
import { queryOf } from './schema.js'
import * as Service from './service.js'

/** The response header the gateway gives every call its request id in (its `X-Request-Id`). */
const requestIdHeader = 'x-request-id'

/** The research endpoints, each query checked in `transform` (before payment; the module's readiness asks the sources). */
export function routes(deps: Service.Deps) {
  const app = new Elysia({ name: 'research' })
  for (const endpoint of Service.endpoints)
    app.get(
      endpoint.path,
      ({ query, set }) =>
        Service.run(deps, endpoint, query, String(set.headers[requestIdHeader] ?? crypto.randomUUID())),
      {
        query: queryOf(endpoint.parameters),
        transform: ({ query }) => {
          endpoint.parse(query)
        },
      },
    )
  return app
}
