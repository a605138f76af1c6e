import { type Static, Type } from '@sinclair/typebox'

/** Query of `GET /api/v1/tx/decode`. */
export const DecodeQuery = Type.Object({
  hash: Type.String({
    pattern: '^0x[0-9a-fA-F]{64}$',
    description: 'Transaction hash on the settlement chain: 0x and 64 hex digits.',
  }),
  chain: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'Chain of the transaction; only `base` (also spelled `base-mainnet`), the settlement chain, is served. @default base',
    }),
  ),
})
/** Query of `GET /api/v1/tx/decode`. */
export type DecodeQuery = Static<typeof DecodeQuery>
