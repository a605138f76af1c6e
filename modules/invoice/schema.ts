import { type Static, Type } from '@sinclair/typebox'
import * as Invoice from '../../core/Invoice.js'

// Length bounds here only cap the work; the exact rules (code points, digits, dates) are checked by the service and
// core, which name the offending field in their message, in the route's preflight: before any payment is asked for.

/** Body of `POST /api/v1/invoice/create`. */
export const CreateBody = Type.Object(
  {
    creator: Type.String({
      maxLength: 128,
      description: 'EVM address creating the invoice; must be the paying address.',
    }),
    token: Type.String({
      maxLength: 128,
      description: 'Token symbol (`USDC`) or the ERC-20 address of a token this gateway accepts.',
    }),
    amount: Type.String({
      maxLength: 128,
      description: 'Amount due in raw base units, e.g. `"1500000"` for 1.5 USDC; greater than 0.',
    }),
    recipient: Type.Optional(
      Type.String({ maxLength: 128, description: 'EVM address that receives the payment. Default: creator.' }),
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
          'ISO 8601 date-time with an offset, in the future, e.g. `2030-01-31T17:00:00Z`. Transfers mined later do not pay the invoice.',
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

/** Query of `GET /api/v1/invoice/list`. */
export const ListQuery = Type.Object({
  address: Type.String({
    maxLength: 128,
    description: 'Creator or recipient whose invoices to list; must be the paying address.',
  }),
})
/** Query of `GET /api/v1/invoice/list`. */
export type ListQuery = Static<typeof ListQuery>

/** An invoice identifier, as invoice/create makes them; checked here, before any payment is asked for. */
const Id = Type.String({
  pattern: '^inv_[0-9a-f]{32}$',
  description: 'Invoice identifier from invoice/create: `inv_` and 32 hex digits.',
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
