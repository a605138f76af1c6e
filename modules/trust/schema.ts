import { type Static, Type } from '@sinclair/typebox'
import * as AddressRules from '../../core/Address.js'

/** Query of `GET /api/v1/trust/score`. */
export const ScoreQuery = Type.Object({
  address: AddressRules.evmSchema('Address (wallet or agent owner) to score; any address, not only the payer'),
  agentId: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,78}$',
      description:
        'ERC-8004 agent whose reputation to read, decimal; it must be owned by `address`. Default: every agent `address` owns (at most 10).',
    }),
  ),
  chain: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'Chain whose facts are read; only `base` (also spelled `base-mainnet`), the settlement chain, the default.',
    }),
  ),
})
/** Query of `GET /api/v1/trust/score`. */
export type ScoreQuery = Static<typeof ScoreQuery>
