import { type Static, Type } from '@sinclair/typebox'
import { evmSchema } from '../../core/Address.js'

/**
 * Query of `GET /free/agent-card`: one of `agentId` (or the original gateway's `id`) and `address`, or neither for how
 * many agents the registry holds.
 */
export const AgentCardQuery = Type.Object({
  agentId: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,78}$',
      description:
        'ERC-8004 agentId (the registry token id) to look up, in decimal, e.g. `0`: its owner, agentURI and registration file.',
    }),
  ),
  id: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,78}$',
      description: "The original gateway's name of `agentId`: the same lookup.",
    }),
  ),
  address: Type.Optional(evmSchema('Owner whose registered agents to list')),
})
/** Query of `GET /free/agent-card`. */
export type AgentCardQuery = Static<typeof AgentCardQuery>
