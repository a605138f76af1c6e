import { type Static, Type } from '@sinclair/typebox'

const id = (prefix: string, what: string) =>
  Type.String({ pattern: `^${prefix}_[0-9a-f]{24}$`, description: `${what} id.` })
const supplierId = id('sup', 'Supplier')
const poId = id('po', 'Purchase order')
const invoiceId = id('inv', 'Invoice')
const sku = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$', description: 'Stock-keeping unit.' })
const quantity = Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'Whole units, as a decimal string.' })
const atomic = (description: string) => Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$', description })
const currency = Type.String({ minLength: 1, maxLength: 16, description: 'Token symbol, e.g. USDC.' })

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
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { description: 'Free-form JSON, at most 16 KiB.' }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/sctp/supplier`. */
export type SupplierBody = Static<typeof SupplierBody>

const orderLine = Type.Object(
  {
    sku,
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    quantity,
    unitPrice: atomic('Price of one unit, ATOMIC units of the currency ("1500000" is 1.5 USDC).'),
  },
  { additionalProperties: false },
)

/** Body of `POST /api/v1/sctp/po`. */
export const PoBody = Type.Object(
  {
    supplierId,
    currency,
    lines: Type.Array(orderLine, { minItems: 1, maxItems: 100 }),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The buyer's own reference." })),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/sctp/po`. */
export type PoBody = Static<typeof PoBody>

/** Body of `POST /api/v1/sctp/invoice`. */
export const InvoiceBody = Type.Object(
  {
    poId,
    number: Type.String({ minLength: 1, maxLength: 64, description: "The supplier's invoice number." }),
    currency,
    lines: Type.Array(
      Type.Object(
        {
          sku,
          quantity,
          unitPrice: atomic('Invoiced price of one unit, ATOMIC units of the token ("1500000" is 1.5 USDC).'),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    total: Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
      description:
        'Invoiced total, a HUMAN decimal of the order\'s token as the original gateway reads `total` ("55" is 55 USDC, 55000000 atomic units); must be the sum of quantity × unitPrice (atomic). Answers give total (human) and totalRaw.',
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/sctp/invoice`. */
export type InvoiceBody = Static<typeof InvoiceBody>

/** Body of `POST /api/v1/sctp/invoice/verify`. */
export const VerifyBody = Type.Object({ invoiceId }, { additionalProperties: false })
/** Body of `POST /api/v1/sctp/invoice/verify`. */
export type VerifyBody = Static<typeof VerifyBody>

/** An amount of USDC as the original gateway reads it: a decimal string or a JSON number, in USDC (not atomic units). */
const humanUsdc = Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
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
