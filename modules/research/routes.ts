import { Elysia } from 'elysia'
import { queryOf } from './schema.js'
import * as Service from './service.js'

/** The research endpoints: each query checked, and its source asked whether it takes calls, in `transform` (before payment). */
export function routes(deps: Service.Deps) {
  const app = new Elysia({ name: 'research' })
  for (const endpoint of Service.endpoints)
    app.get(endpoint.path, ({ query }) => Service.run(deps, endpoint, query), {
      query: queryOf(endpoint.parameters),
      transform: ({ query }) => {
        endpoint.parse(query)
        Service.ready(endpoint, deps.sources)
      },
    })
  return app
}
