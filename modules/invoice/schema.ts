import { type Static, Type } from '@sinclair/typebox'
import * as Invoice from '../../core/Invoice.js'
import * as Units from '../../core/Units.js'

// Length bounds here only cap the work; the exact rules (code points, digits, dates) are checked by the service and
// core, which name the offending field in their message, in the route's preflight: before any payment is asked for.

/** Body of `POST /api/v1/invoice/create`. */
export const CreateBody = Type.Object(
  {
    creator: Type.String({
      maxLength: 128,
      description:
        'EVM address creating the invoice and paid by it (the payee, as in the original gateway); must be the address paying for this call.',
    }),
    token: Type.String({
      maxLength: 128,
      description: 'Token symbol (`USDC`) or the ERC-20 address of a token this gateway accepts.',
    }),
    amount: Units.decimalSchema({
      description:
        'Amount due as a HUMAN decimal of the token, as the original gateway reads it: "2500" is 2,500 USDC, "1500.50" is 1,500.5 USDC; at most the token\'s decimals (6 for USDC), greater than 0; a JSON number is read as the decimal it prints as. Answers carry it as `amount` (human) and `amountRaw` (atomic units).',
    }),
    recipient: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          "EVM address the invoice is addressed to, expected to pay it (the original gateway's meaning); it may read the invoice. Anyone may pay; without it the invoice is open.",
      }),
    ),
    payTo: Type.Optional(
      Type.String({
        maxLength: 128,
        description: 'EVM address that receives the payment when it is not the creator. Default: creator.',
      }),
    ),
    memo: Type.Optional(
      Type.String({
        maxLength: Invoice.maxMemoLength * 2,
        description: `Note for the payer, at most ${Invoice.maxMemoLength} characters.`,
      }),
    ),
    dueDate: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'In the future: a date, `2030-01-31` (its start, 00:00 UTC, as the original gateway reads it), or an ISO 8601 date-time with an offset, `2030-01-31T17:00:00Z`. Transfers mined later do not pay the invoice.',
      }),
    ),
    reference: Type.Optional(
      Type.String({
        maxLength: Invoice.maxReferenceLength * 2,
        description: `The creator's own identifier, 1 to ${Invoice.maxReferenceLength} characters.`,
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/invoice/create`. */
export type CreateBody = Static<typeof CreateBody>

/** The `status` values a list may be filtered by: ours, and the original gateway's `pending` and `cancelled`. */
export const listStatuses = ['open', 'pending', 'paid', 'expired', 'cancelled'] as const

/** Query of `GET /api/v1/invoice/list`. */
export const ListQuery = Type.Object({
  address: Type.String({
    maxLength: 128,
    description: 'Creator, payee or payer whose invoices to list; must be the paying address.',
  }),
  status: Type.Optional(
    Type.String({
      maxLength: 32,
      description: `Only invoices in this status, any case: ${listStatuses.join(', ')}. \`pending\` is \`open\` (the original gateway's word); no invoice is ever \`cancelled\` here. Default: all.`,
    }),
  ),
})
/** Query of `GET /api/v1/invoice/list`. */
export type ListQuery = Static<typeof ListQuery>

/** An invoice identifier, as invoice/create makes them; checked here, before any payment is asked for. */
const Id = Type.String({
  pattern: '^inv_[0-9a-f]{32}$',
  description:
    "Invoice identifier from invoice/create: `inv_` and 32 hex digits (the original gateway's `INV-` ids are not used here).",
})

/** Path of `GET /api/v1/invoice/:id`. */
export const IdParams = Type.Object({ id: Id })
/** Path of `GET /api/v1/invoice/:id`. */
export type IdParams = Static<typeof IdParams>

/** Query of `GET /api/v1/invoice/:id`, where the id may be repeated in the query. */
export const IdQuery = Type.Object({ id: Type.Optional(Id) })
/** Query of `GET /api/v1/invoice/:id`. */
export type IdQuery = Static<typeof IdQuery>

/** Query of `GET /api/v1/invoice?id=`, where the id is required. */
export const ByIdQuery = Type.Object({ id: Id })
/** Query of `GET /api/v1/invoice?id=`. */
export type ByIdQuery = Static<typeof ByIdQuery>
