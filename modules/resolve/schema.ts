import { type Static, Type } from '@sinclair/typebox'

/** Query of `GET /api/v1/resolve` and `GET /free/resolve`: exactly one of `name` and `address`. */
export const ResolveQuery = Type.Object({
  name: Type.Optional(
    Type.String({
      maxLength: 255,
      description:
        'Name to resolve to an address (forward), e.g. `alice.eth` or `alice.base.eth`; normalized by ENSIP-15, so `ALICE.eth` is `alice.eth`. An address here is a reverse lookup, as `address` is.',
    }),
  ),
  address: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'EVM address whose primary name to find (reverse), 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.',
    }),
  ),
})
/** Query of `GET /api/v1/resolve` and `GET /free/resolve`. */
export type ResolveQuery = Static<typeof ResolveQuery>
