import { type Static, Type } from '@sinclair/typebox'

const address = (description: string) => Type.String({ minLength: 1, maxLength: 64, description })

// An id's format is checked here, in the path, the query or the body, before any payment is asked for; whether the
// escrow exists (a store read) is the paid call's to say.
const escrowId = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: 'Escrow id from escrow/create: 32 bytes as 0x-prefixed hex.',
})

/** Body of `POST /api/v1/escrow/create`. */
export const CreateBody = Type.Object(
  {
    depositor: address('EVM address that deposits and is refunded on cancel; must be the paying wallet.'),
    beneficiary: address('EVM address paid on release.'),
    token: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Symbol of a supported token (e.g. USDC) or its contract address.',
    }),
    amount: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Amount in raw base units, e.g. "1500000" for 1.5 USDC; greater than 0.',
    }),
    arbiter: Type.Optional(address('EVM address that may release or cancel besides the depositor.')),
    expiry: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Integer({ minimum: 0 })], {
        description:
          'When anyone may cancel: ISO 8601 with a time zone (2030-01-01T00:00:00Z) or Unix time in seconds.',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/escrow/create`. */
export type CreateBody = Static<typeof CreateBody>

/** Body of `POST /api/v1/escrow/fund`. */
export const FundBody = Type.Object({ escrowId }, { additionalProperties: false })
/** Body of `POST /api/v1/escrow/fund`. */
export type FundBody = Static<typeof FundBody>

/** Body of `POST /api/v1/escrow/release` and `POST /api/v1/escrow/cancel`. */
export const SettleBody = Type.Object(
  { escrowId, caller: address('The address that will send the transaction; must be the paying wallet.') },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/escrow/release` and `POST /api/v1/escrow/cancel`. */
export type SettleBody = Static<typeof SettleBody>

/** Query of `GET /api/v1/escrow/list`. */
export const ListQuery = Type.Object({ address: address('Whose escrows; must be the paying wallet.') })
/** Query of `GET /api/v1/escrow/list`. */
export type ListQuery = Static<typeof ListQuery>

/** Path of `GET /api/v1/escrow/:id`. */
export const GetParams = Type.Object({ id: escrowId })
/** Path of `GET /api/v1/escrow/:id`. */
export type GetParams = Static<typeof GetParams>

/** Query of `GET /api/v1/escrow/:id`, where the id may be repeated in the query. */
export const GetQuery = Type.Object({ id: Type.Optional(escrowId) })
/** Query of `GET /api/v1/escrow/:id`. */
export type GetQuery = Static<typeof GetQuery>

/** Query of `GET /api/v1/escrow?id=`, where the id is required. */
export const GetByQuery = Type.Object({ id: escrowId })
/** Query of `GET /api/v1/escrow?id=`. */
export type GetByQuery = Static<typeof GetByQuery>
