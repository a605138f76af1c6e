import { Type } from '@sinclair/typebox'
import * as Units from '../../core/Units.js'

/** HUMAN decimal string of a USD value, at most 18 decimals (the lot form's). */
const decimal = (description: string) =>
  Type.String({
    maxLength: 80,
    ...Units.amountOptions({ unit: 'human', description: `HUMAN decimal USD, at most 18 decimals. ${description}` }),
  })

/** A USD figure as the original gateway reads it: a JSON number, or a HUMAN decimal string. */
const usd = (description: string) =>
  Type.Union(
    [Type.Number(), Type.String({ maxLength: 80 })],
    Units.amountOptions({ unit: 'human', description: `HUMAN decimal USD, at most 18 decimals. ${description}` }),
  )

/** A date as the original gateway reads it: ISO 8601, or unix time in seconds (or in milliseconds above 10^12). */
const date = (description: string) =>
  Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
    description: `${description} ISO 8601, or unix time in seconds (milliseconds above 10^12).`,
  })

/**
 * The `type` of a transaction in the per-transaction form: the original gateway's four, and the words its MCP server's
 * spraay_tax_calculate documents, which the original took as a swap; only a sale is computed otherwise.
 */
export const eventTypes = [
  'swap',
  'sale',
  'transfer',
  'income',
  'send',
  'receive',
  'bridge',
  'payroll',
  'escrow_release',
] as const

/**
 * One transaction of `POST /api/v1/tax/calculate`, in either of two forms (one per body): the original gateway's
 * per-transaction form (`type`, `acquisitionDate`, `disposalDate`, prices or USD overrides: each transaction's own gain),
 * or the lot form (`kind`, `time`: lots matched across transactions by `method`).
 */
export const TransactionInput = Type.Object(
  {
    asset: Type.String({ minLength: 1, maxLength: 64, description: 'Asset symbol or id, e.g. `ETH`.' }),
    amount: Type.Union(
      [Type.String({ maxLength: 80 }), Type.Number()],
      Units.amountOptions({
        unit: 'human',
        description:
          'Quantity of the asset in whole units (HUMAN decimal, e.g. 1.5 ETH), positive, at most 18 fractional digits: a decimal string, or a JSON number as the original gateway takes it.',
      }),
    ),
    type: Type.Optional(
      Type.Union(
        eventTypes.map((type) => Type.Literal(type)),
        {
          description:
            "Per-transaction form: swap, sale, transfer or income, or the words of the original gateway's MCP server (send, receive, bridge, payroll, escrow_release), echoed as given. A sale without a disposal price has no proceeds; any other type's proceeds default to its cost basis (zero gain, with a warning). @default swap",
        },
      ),
    ),
    acquisitionDate: Type.Optional(date('Per-transaction form: when the asset was acquired.')),
    disposalDate: Type.Optional(date('Per-transaction form: when it was disposed of.')),
    priceAtAcquisition: Type.Optional(usd('Per-transaction form: USD per unit when acquired; else looked up.')),
    priceAtDisposal: Type.Optional(usd('Per-transaction form: USD per unit when disposed of; else looked up.')),
    costBasisUsd: Type.Optional(usd('Per-transaction form: USD cost of the whole amount, over any price.')),
    proceedsUsd: Type.Optional(usd('Per-transaction form: USD proceeds of the whole amount, over any price.')),
    holdingDays: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'Per-transaction form: days held (more than 365 is long term); else from the two dates.',
      }),
    ),
    txHash: Type.Optional(Type.String({ maxLength: 128, description: 'Per-transaction form: its hash, echoed.' })),
    timestamp: Type.Optional(
      date('Per-transaction form: when the event is reported, echoed. @default disposalDate, else acquisitionDate.'),
    ),
    kind: Type.Optional(Type.String({ description: 'Lot form: buy, sell, transfer_in, transfer_out, fee or income.' })),
    time: Type.Optional(Type.String({ maxLength: 40, description: 'Lot form: when (ISO 8601).' })),
    usdValue: Type.Optional(decimal('Lot form: USD value of the whole amount.')),
    price: Type.Optional(decimal('Lot form: USD per unit, when `usdValue` is absent.')),
    feeUsd: Type.Optional(
      decimal(
        'Lot form: fee paid with it, in USD: added to basis on acquisitions, subtracted from proceeds on disposals.',
      ),
    ),
    priceId: Type.Optional(
      Type.String({
        maxLength: 120,
        description:
          'Id the price source knows the asset by (`coingecko:ethereum`, `base:0x…`), for a transaction without a USD value.',
      }),
    ),
  },
  { additionalProperties: false },
)

/** A transaction as parsed. */
export type TransactionInput = typeof TransactionInput.static

/** Body of `POST /api/v1/tax/calculate`. */
export const CalculateBody = Type.Object(
  {
    transactions: Type.Array(TransactionInput, {
      minItems: 1,
      description:
        'The transactions, in any order: all in the per-transaction form (the original gateway’s) or all in the lot form (with `kind` and `time`).',
    }),
    method: Type.Optional(
      Type.Union([Type.Literal('fifo'), Type.Literal('lifo'), Type.Literal('hifo')], {
        description: 'Lot form: lot matching. @default fifo',
      }),
    ),
  },
  { additionalProperties: false },
)

/** The calculate body, parsed. */
export type CalculateBody = typeof CalculateBody.static

/** Query of `GET /api/v1/tax/report`. */
export const ReportQuery = Type.Object({
  reportId: Type.Optional(
    Type.String({
      pattern: '^tax_[0-9a-f]{32}$',
      description: "Id `tax/calculate` answered; without it, the list of the payer's reports.",
    }),
  ),
})
