import { type Static, Type } from '@sinclair/typebox'
import * as Escrow from '../../core/Escrow.js'
import * as Units from '../../core/Units.js'

const address = (description: string) => Type.String({ minLength: 1, maxLength: 64, description })

// An id's format is checked here, in the path, the query or the body, before any payment is asked for; whether the
// escrow exists (a store read) is the paid call's to say.
const escrowId = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description:
    "Escrow id from escrow/create: 32 bytes as 0x-prefixed hex (the id the contract holds the deposit under; the original gateway's `ESC-` ids are not used here).",
})

/** Hours until the expiry when a request gives neither `expiresIn` nor `expiry`, as the original gateway does. */
export const defaultExpiresInHours = 168

/** Most hours `expiresIn` may give: 100 years. */
export const maxExpiresInHours = 876_000

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
    amount: Units.decimalSchema({
      description:
        'HUMAN decimal of the token, as the original gateway reads it: "2500" is 2,500 USDC, "25.5" is 25.5 USDC; at most the token\'s decimals (6 for USDC), greater than 0; a JSON number is read as the decimal it prints as. Answers give it back as `amount` (human) and `amountRaw` (atomic units).',
    }),
    arbiter: Type.Optional(address('EVM address that may release or cancel besides the depositor.')),
    description: Type.Optional(
      Type.String({
        maxLength: Escrow.maxDescriptionLength * 2,
        description: `What the escrow is for, at most ${Escrow.maxDescriptionLength} characters; kept by the gateway, not on chain.`,
      }),
    ),
    conditions: Type.Optional(
      Type.Array(Type.String({ maxLength: Escrow.maxConditionLength * 2 }), {
        maxItems: Escrow.maxConditions,
        description: `What must happen before release (e.g. "Design approved"), at most ${Escrow.maxConditions} of 1 to ${Escrow.maxConditionLength} characters; kept by the gateway, not on chain.`,
      }),
    ),
    expiresIn: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: maxExpiresInHours,
        description: `Hours from now until the expiry, as the original gateway reads it (a number, e.g. 24 or 0.5); from then on any party may cancel, refunding the depositor. Give this or \`expiry\`, not both; with neither, ${defaultExpiresInHours} hours (7 days).`,
      }),
    ),
    expiry: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Integer({ minimum: 0 })], {
        description:
          'The expiry as a time instead of `expiresIn`: ISO 8601 with a time zone (2030-01-01T00:00:00Z) or Unix time in seconds.',
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

/** The `status` values a list may be filtered by: ours, and the original gateway's `funded` and `expired`. */
export const listStatuses = ['created', 'active', 'funded', 'released', 'cancelled', 'expired'] as const

/** Query of `GET /api/v1/escrow/list`. */
export const ListQuery = Type.Object({
  address: address('Whose escrows; must be the paying wallet.'),
  status: Type.Optional(
    Type.String({
      maxLength: 32,
      description: `Only escrows in this status, any case: ${listStatuses.join(', ')}. \`funded\` is \`active\` (the original gateway's word); \`expired\` is created or active with the expiry reached. Default: all.`,
    }),
  ),
})
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
