import { type Static, Type } from '@sinclair/typebox'

const chain = Type.Optional(
  Type.String({
    maxLength: 32,
    description:
      'Chain to screen on; only `base` (also spelled `base-mainnet`), the settlement chain, is served. @default base',
  }),
)

/** Query of `GET /api/v1/token/safety`. */
export const TokenSafetyQuery = Type.Object({
  address: Type.String({
    maxLength: 64,
    description: 'The token contract, 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.',
  }),
  chain,
})
/** Query of `GET /api/v1/token/safety`. */
export type TokenSafetyQuery = Static<typeof TokenSafetyQuery>

/** Query of `GET /api/v1/address/safety`. */
export const AddressSafetyQuery = Type.Object({
  address: Type.String({
    maxLength: 64,
    description: 'The address screened, 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.',
  }),
  chain,
})
/** Query of `GET /api/v1/address/safety`. */
export type AddressSafetyQuery = Static<typeof AddressSafetyQuery>
