import { Type } from '@sinclair/typebox'

/** Decimal string of a quantity or a USD value. */
const decimal = (description: string) => Type.String({ maxLength: 80, description })

/** One transaction of `POST /api/v1/tax/calculate`. */
export const TransactionInput = Type.Object({
  kind: Type.String({ description: 'buy, sell, transfer_in, transfer_out, fee or income' }),
  asset: Type.String({ minLength: 1, maxLength: 64, description: 'Asset symbol or id, e.g. `ETH`.' }),
  amount: decimal('Quantity, a positive decimal string (at most 18 fractional digits).'),
  time: Type.String({ maxLength: 40, description: 'When (ISO 8601).' }),
  usdValue: Type.Optional(decimal('USD value of the whole amount.')),
  price: Type.Optional(decimal('USD per unit, when `usdValue` is absent.')),
  feeUsd: Type.Optional(
    decimal('USD fee paid with it: added to basis on acquisitions, subtracted from proceeds on disposals.'),
  ),
  priceId: Type.Optional(
    Type.String({
      maxLength: 120,
      description:
        'Id the price source knows the asset by (`coingecko:ethereum`, `base:0x…`), for a transaction without a USD value.',
    }),
  ),
})

/** Body of `POST /api/v1/tax/calculate`. */
export const CalculateBody = Type.Object({
  transactions: Type.Array(TransactionInput, { minItems: 1, description: 'The transactions, in any order.' }),
  method: Type.Optional(
    Type.Union([Type.Literal('fifo'), Type.Literal('lifo'), Type.Literal('hifo')], {
      description: 'Lot matching. @default fifo',
    }),
  ),
})

/** The calculate body, parsed. */
export type CalculateBody = typeof CalculateBody.static

/** Query of `GET /api/v1/tax/report`. */
export const ReportQuery = Type.Object({
  reportId: Type.String({ pattern: '^tax_[0-9a-f]{32}$', description: 'Id `tax/calculate` answered.' }),
})
