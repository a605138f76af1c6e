import { Elysia } from 'elysia'
import { AgentCardQuery } from './schema.js'
import * as Service from './service.js'

/** ERC-8004 agent cards: an agent by its id, or the agents an address owns. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'agentcard' }).get('/free/agent-card', ({ query }) => Service.lookup(deps, query), {
    query: AgentCardQuery,
  })
}
