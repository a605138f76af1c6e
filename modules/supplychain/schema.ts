import { type Static, Type } from '@sinclair/typebox'
import * as Units from '../../core/Units.js'

const id = (prefix: string, what: string) =>
  Type.String({ pattern: `^${prefix}_[0-9a-f]{24}$`, description: `${what} id.` })
const supplierId = id('sup', 'Supplier')
const poId = id('po', 'Purchase order')
const invoiceId = id('inv', 'Invoice')
const sku = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$', description: 'Stock-keeping unit.' })
const quantity = Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'Whole units, as a decimal string.' })
const atomic = (description: string) =>
  Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$', ...Units.amountOptions({ unit: 'raw', description }) })
const currency = Type.String({ minLength: 1, maxLength: 16, description: 'Token symbol, e.g. USDC.' })

const metadata = Type.Optional(
  Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { description: 'Free-form JSON, at most 16 KiB.' }),
)

/** Body of `POST /api/v1/sctp/supplier`. */
export const SupplierBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    wallet: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'Where invoices are paid.' }),
    currency: Type.Optional({
      ...currency,
      description: 'Token the supplier is paid in. Not with preferredToken. @default USDC',
    }),
    preferredToken: Type.Optional({
      ...currency,
      description: "The original gateway's name of currency: the token the supplier is paid in. Not with currency.",
    }),
    chain: Type.Optional(
      Type.String({
        maxLength: 32,
        description: 'Chain the supplier is paid on: base (the settlement chain). @default base',
      }),
    ),
    paymentTerms: Type.Optional(
      Type.Union([Type.Literal('immediate'), Type.Literal('net15'), Type.Literal('net30'), Type.Literal('net60')], {
        description: 'When invoices fall due after submission. @default net30',
      }),
    ),
    contact: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Who to ask, for people. Not with contactEmail.' }),
    ),
    contactEmail: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 200,
        description: "The original gateway's contact: an email address. Not with contact.",
      }),
    ),
    metadata,
    paymentPrefs: Type.Optional(
      Type.Object(
        {
          token: Type.Optional({
            ...currency,
            description: 'The token the supplier is paid in, as preferredToken. Not with preferredToken or currency.',
          }),
          chain: Type.Optional(
            Type.String({
              maxLength: 32,
              description: 'Chain the supplier is paid on, as chain: base. Not with chain.',
            }),
          ),
        },
        {
          additionalProperties: true,
          description:
            "The payment preferences of the original gateway's MCP server (its spraay_sctp_supplier tool; the original gateway itself ignores them): token and chain are honoured as preferredToken and chain; any other key is kept with the supplier as given and answered back, never acted on. At most 16 KiB of JSON.",
        },
      ),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/sctp/supplier`. */
export type SupplierBody = Static<typeof SupplierBody>

const description = Type.String({ minLength: 1, maxLength: 200, description: 'What the item is, for people.' })

/** One of our lines: a SKU, whole units and the RAW price of one unit. */
const line = (what: string) =>
  Type.Object(
    {
      sku,
      description: Type.Optional(description),
      quantity,
      unitPriceRaw: atomic(`${what}, RAW: atomic units of the token ("1500000" is 1.5 USDC).`),
    },
    { additionalProperties: false },
  )

/**
 * One of the original gateway's free-form items, as its verification reads them: `description`, `quantity` and a
 * HUMAN `unitPrice` (or `price`). Items without `sku` are matched by position: the n-th item is SKU "n".
 */
const item = Type.Object(
  {
    sku: Type.Optional({ ...sku, description: 'Stock-keeping unit. @default the item\'s position, from "1"' }),
    description: Type.Optional(description),
    quantity: Type.Optional(
      Type.Union([Type.String({ maxLength: 18 }), Type.Integer({ minimum: 1 })], {
        description: 'Whole units, a string or a JSON number. @default 1',
      }),
    ),
    unitPrice: Type.Optional(
      Units.decimalSchema({
        description:
          'Price of one unit, a HUMAN decimal of the token as the original gateway reads it ("1.5" is 1.5 USDC); at most the token\'s decimals. Not with price.',
      }),
    ),
    price: Type.Optional(
      Units.decimalSchema({
        description: "The original gateway's other name of unitPrice (HUMAN). Not with unitPrice.",
      }),
    ),
  },
  { additionalProperties: false },
)

const lines = (what: string) =>
  Type.Optional(
    Type.Array(line(what), {
      minItems: 1,
      maxItems: 100,
      description: 'Our lines, prices RAW in unitPriceRaw. Not with items.',
    }),
  )
const items = Type.Optional(
  Type.Array(item, {
    minItems: 1,
    maxItems: 100,
    description: "The original gateway's items, prices HUMAN in unitPrice (or price). Not with lines.",
  }),
)

/** An order's or invoice's items as the original gateway's clients send them: 100 × 0.25 USDC, 25 USDC in all. */
const exampleItems = { items: [{ description: 'Steel bolts M8', quantity: 100, unitPrice: '0.25' }], total: '25' }

/** Body of `POST /api/v1/sctp/po`: our `lines` (RAW prices) or the original gateway's `items` (HUMAN), one of them. */
export const PoBody = Type.Object(
  {
    supplierId,
    currency: Type.Optional({ ...currency, description: 'Token the order is paid in. @default USDC' }),
    lines: lines('Price of one unit'),
    items,
    total: Type.Optional(
      Units.decimalSchema({
        description:
          'The order\'s total, a HUMAN decimal of its token as the original gateway takes it ("55" is 55 USDC); when given it must be the sum of quantity × unit price. Answers give total (human) and totalRaw.',
      }),
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The buyer's own reference." })),
    metadata,
  },
  // Neither form is required by the schema (one of them is, by the service): the example shows one.
  { additionalProperties: false, examples: [{ supplierId: `sup_${'0'.repeat(24)}`, ...exampleItems }] },
)
/** Body of `POST /api/v1/sctp/po`. */
export type PoBody = Static<typeof PoBody>

/**
 * Body of `POST /api/v1/sctp/invoice`: our `lines` (RAW prices) or the original gateway's `items` (HUMAN), one of
 * them, against a purchase order.
 */
export const InvoiceBody = Type.Object(
  {
    poId,
    supplierId: Type.Optional({
      ...supplierId,
      description: "The original gateway's supplier of the invoice: must be the order's.",
    }),
    number: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "The supplier's invoice number. @default the invoice id",
      }),
    ),
    currency: Type.Optional({ ...currency, description: "Token invoiced in. @default the order's" }),
    lines: lines('Invoiced price of one unit'),
    items,
    total: Units.decimalSchema({
      description:
        'Invoiced total, a HUMAN decimal of the order\'s token as the original gateway reads `total` ("55" is 55 USDC, 55000000 atomic units); the match checks it is the sum of quantity × unit price. Answers give total (human) and totalRaw.',
    }),
  },
  { additionalProperties: false, examples: [{ poId: `po_${'0'.repeat(24)}`, ...exampleItems }] },
)
/** Body of `POST /api/v1/sctp/invoice`. */
export type InvoiceBody = Static<typeof InvoiceBody>

/** Body of `POST /api/v1/sctp/invoice/verify`. */
export const VerifyBody = Type.Object({ invoiceId }, { additionalProperties: false })
/** Body of `POST /api/v1/sctp/invoice/verify`. */
export type VerifyBody = Static<typeof VerifyBody>

/** An amount of USDC as the original gateway reads it: a decimal string or a JSON number, in USDC (not atomic units). */
const humanUsdc = Units.decimalSchema({
  description: 'HUMAN decimal USDC, e.g. "2500" is 2,500 USDC (2,500,000,000 atomic units); at most 6 decimals.',
})

/** One payment of the original gateway's `payments[]`. */
const payment = Type.Object(
  {
    supplierId,
    amount: humanUsdc,
    invoiceId: Type.Optional({
      ...invoiceId,
      description:
        'A verified invoice of yours this pays; its total must equal amount, and it becomes payment_pending.',
    }),
    chain: Type.Optional(Type.String({ maxLength: 32, description: 'base (the settlement chain). @default base' })),
    token: Type.Optional(Type.String({ maxLength: 16, description: 'USDC, the only settlement token. @default USDC' })),
  },
  { additionalProperties: false },
)

/**
 * Body of `POST /api/v1/sctp/pay`: ours (`invoiceIds`, verified invoices of the payer) or the original gateway's (one
 * `supplierId` with `amount`, or `payments[]`, amounts in HUMAN decimal USDC), one form per body.
 */
export const PayBody = Type.Object(
  {
    invoiceIds: Type.Optional(
      Type.Array(invoiceId, {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        description: 'Verified invoices to pay in one batch transaction.',
      }),
    ),
    payments: Type.Optional(
      Type.Array(payment, {
        minItems: 1,
        maxItems: 200,
        description: "The original gateway's batch: { supplierId, amount (HUMAN decimal USDC), invoiceId? } each.",
      }),
    ),
    supplierId: Type.Optional({
      ...supplierId,
      description: "The original gateway's single payment: the supplier paid.",
    }),
    amount: Type.Optional(humanUsdc),
    invoiceId: Type.Optional({
      ...invoiceId,
      description: "The original gateway's single payment: the invoice it pays.",
    }),
    token: Type.Optional(Type.String({ maxLength: 16, description: 'USDC, the only settlement token. @default USDC' })),
    chain: Type.Optional(Type.String({ maxLength: 32, description: 'base (the settlement chain). @default base' })),
    sender: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{40}$',
        description: 'The payer, as the original gateway takes it: must be you.',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/sctp/pay`. */
export type PayBody = Static<typeof PayBody>

/** Query of `GET /api/v1/sctp/supplier?id=`. */
export const SupplierQuery = Type.Object({ id: supplierId })
/** Query of `GET /api/v1/sctp/po?id=`. */
export const PoQuery = Type.Object({ id: poId })
/** Query of `GET /api/v1/sctp/invoice?id=`. */
export const InvoiceQuery = Type.Object({ id: invoiceId })
/** Path of `GET /api/v1/sctp/supplier/:id`. */
export const SupplierParams = Type.Object({ id: supplierId })
/** Path of `GET /api/v1/sctp/po/:id`. */
export const PoParams = Type.Object({ id: poId })
/** Path of `GET /api/v1/sctp/invoice/:id`. */
export const InvoiceParams = Type.Object({ id: invoiceId })
