import { Elysia } from 'elysia'
import { queryOf } from './schema.js'
import * as Service from './service.js'

/** The research endpoints, each query checked in `transform` (before payment; the module's readiness asks the sources). */
export function routes(deps: Service.Deps) {
  const app = new Elysia({ name: 'research' })
  for (const endpoint of Service.endpoints)
    app.get(endpoint.path, ({ query }) => Service.run(deps, endpoint, query), {
      query: queryOf(endpoint.parameters),
      transform: ({ query }) => {
        endpoint.parse(query)
      },
    })
  return app
}
