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
    currency: Type.Optional({ ...currency, description: 'Token the supplier is paid in. @default USDC' }),
    paymentTerms: Type.Optional(
      Type.Union([Type.Literal('immediate'), Type.Literal('net15'), Type.Literal('net30'), Type.Literal('net60')], {
        description: 'When invoices fall due after submission. @default net30',
      }),
    ),
    contact: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Who to ask, for people.' })),
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
    unitPrice: atomic('Price of one unit, atomic units of the currency.'),
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
        { sku, quantity, unitPrice: atomic('Invoiced price of one unit, atomic units.') },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    total: atomic('Invoiced total, atomic units; must be the sum of quantity × unit price.'),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/sctp/invoice`. */
export type InvoiceBody = Static<typeof InvoiceBody>

/** Body of `POST /api/v1/sctp/invoice/verify`. */
export const VerifyBody = Type.Object({ invoiceId }, { additionalProperties: false })
/** Body of `POST /api/v1/sctp/invoice/verify`. */
export type VerifyBody = Static<typeof VerifyBody>

/** Body of `POST /api/v1/sctp/pay`. */
export const PayBody = Type.Object(
  {
    invoiceIds: Type.Array(invoiceId, {
      minItems: 1,
      maxItems: 50,
      uniqueItems: true,
      description: 'Verified invoices to pay in one batch transaction.',
    }),
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
