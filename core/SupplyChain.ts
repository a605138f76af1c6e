import { InvalidTransitionError } from './Errors.js'

/**
 * Supply-chain payments (`/api/v1/sctp/*`, the original gateway's "Supply Chain Task Protocol"): a buyer's purchase order to a supplier, the supplier's invoices against
 * it, a deterministic match of each invoice against the order, and payment of verified invoices in one batch
 * transaction that an on-chain watcher confirms.
 *
 * Invoice lifecycle:
 *
 * ```
 * submitted --checked--> verified --payment_requested--> payment_pending --paid--> paid
 *     |  \--checked--> review_required --checked--> (verified | review_required | rejected)
 *     \--checked--> rejected
 * ```
 *
 * `paid` and `rejected` are final. Only a `verified` invoice can be paid; asking again while `payment_pending`
 * builds the same payment again (nothing was seen on chain yet), keeping the block the watcher searches from.
 */

/** One line of a purchase order or an invoice. */
export type Line = {
  /** The item's stock-keeping unit, unique within the document. */
  sku: string
  /** Whole units. */
  quantity: bigint
  /** Price of one unit in the token's atomic units. */
  unitPrice: bigint
}

/** Every state of an invoice. */
export const statuses = ['submitted', 'verified', 'review_required', 'rejected', 'payment_pending', 'paid'] as const

/** A state of an invoice. */
export type Status = (typeof statuses)[number]

/** The states whose quantities count as billed against the order. */
export const billedStatuses: readonly Status[] = ['verified', 'review_required', 'payment_pending', 'paid']

/** One check of the match, as answered. */
export type Check = {
  /** Stable name, e.g. `unit_prices`. */
  name: string
  /** Whether the invoice passed it. */
  ok: boolean
  /** What a failure leads to: `rejected` or `review_required`. */
  failure: 'rejected' | 'review_required'
  /** One sentence on what was compared. */
  detail: string
}

/** The outcome of a match. */
export type Outcome = 'verified' | 'review_required' | 'rejected'

/** A payment the watcher looks for. */
export type Payment = {
  /** The buyer's wallet, the sender of the batch. */
  from: `0x${string}`
  /** The supplier's wallet. */
  to: `0x${string}`
  /** Exact amount, atomic units, decimal string. */
  amount: string
  /** The ERC-20. */
  token: `0x${string}`
  /** First block searched. */
  fromBlock: string
  /** The transfer that paid it, once seen. */
  transaction?: `0x${string}` | undefined
  /** When it was seen, ISO 8601. */
  paidAt?: string | undefined
}

/** The part of an invoice the machine reads and writes. */
export type State = {
  /** Current state. */
  status: Status
  /** The checks of the last match. */
  checks?: readonly Check[] | undefined
  /** The payment requested or made. */
  payment?: Payment | undefined
  /** Every state entered, with when, oldest first. */
  history: readonly { status: Status; at: string }[]
}

/** What can happen to an invoice. */
export type Event =
  | {
      /** The match ran. */ type: 'checked'
      /** Its outcome. */
      outcome: Outcome
      /** Its checks. */
      checks: readonly Check[]
    }
  | {
      /** The buyer asked for the payment transaction. */ type: 'payment_requested'
      /** What the watcher will look for. */
      payment: Payment
    }
  | {
      /** The exact transfer landed on chain. */ type: 'paid'
      /** Its transaction. */
      transaction: `0x${string}`
      /** Its block's time. */
      paidAt: Date
    }

/** Every event type, for exhaustive tests. */
export const eventTypes = ['checked', 'payment_requested', 'paid'] as const satisfies readonly Event['type'][]

const from: { readonly [type in Event['type']]: readonly Status[] } = {
  checked: ['submitted', 'review_required'],
  payment_requested: ['verified', 'payment_pending'],
  paid: ['payment_pending'],
}

/**
 * The next state of an invoice (`Machine.Transition`). Pure. Throws {@link InvalidTransitionError} (409) when the
 * event does not apply: paying an invoice that is not verified, verifying a paid one, a second payment.
 */
export function transition<invoice extends State>(invoice: invoice, event: Event, now: Date): invoice {
  if (!from[event.type].includes(invoice.status))
    throw new InvalidTransitionError(
      event.type === 'payment_requested'
        ? `Only a verified invoice can be paid; this one is ${invoice.status}.`
        : `An invoice that is ${invoice.status} cannot take '${event.type}'.`,
      { details: { invoiceStatus: invoice.status, event: event.type } },
    )
  const at = now.toISOString()
  const enter = (status: Status, fields: Partial<State>): invoice => ({
    ...invoice,
    ...fields,
    status,
    history: invoice.status === status ? invoice.history : [...invoice.history, { status, at }],
  })
  switch (event.type) {
    case 'checked':
      return enter(event.outcome, { checks: event.checks })
    case 'payment_requested':
      return enter('payment_pending', {
        payment:
          invoice.status === 'payment_pending' && invoice.payment !== undefined
            ? { ...event.payment, fromBlock: invoice.payment.fromBlock }
            : event.payment,
      })
    case 'paid':
      return enter('paid', {
        payment: { ...invoice.payment!, transaction: event.transaction, paidAt: event.paidAt.toISOString() },
      })
  }
}

/** What the match compares. */
export type Match = {
  /** The purchase order. */
  order: {
    /** Its supplier's id. */
    supplierId: string
    /** Token symbol. */
    currency: string
    /** Ordered lines. */
    lines: readonly Line[]
  }
  /** The invoice. */
  invoice: {
    /** Supplier that submitted it. */
    supplierId: string
    /** Token symbol. */
    currency: string
    /** The supplier's invoice number. */
    number: string
    /** Invoiced lines. */
    lines: readonly Line[]
    /** Stated total, atomic units. */
    total: bigint
  }
  /** The supplier's other invoices (any order), to find a reused number. */
  supplierInvoiceNumbers: readonly string[]
  /** Lines of the other invoices against the same order that count as billed ({@link billedStatuses}). */
  billed: readonly Line[]
  /** How far above the ordered unit price an invoiced one may be and still verify, in basis points. */
  toleranceBps: bigint
}

/** Basis points in a whole. */
const bps = 10_000n

/**
 * Matches an invoice against its order, deterministically: every check is listed, passed or not. A failed check
 * marked `rejected` rejects the invoice; otherwise a failed `review_required` check holds it for review; otherwise it
 * is verified. Unit prices may exceed the order's by `toleranceBps` (rounded down in atomic units); quantities never
 * may, and the total must be exactly the sum of the lines.
 */
export function match(input: Match): { outcome: Outcome; checks: Check[] } {
  const { order, invoice, toleranceBps } = input
  const checks: Check[] = []
  const check = (name: string, ok: boolean, failure: Check['failure'], detail: string) =>
    checks.push({ name, ok, failure, detail })

  check(
    'supplier',
    invoice.supplierId === order.supplierId,
    'rejected',
    `invoice supplier ${invoice.supplierId}, order supplier ${order.supplierId}`,
  )
  check(
    'currency',
    invoice.currency.toUpperCase() === order.currency.toUpperCase(),
    'rejected',
    `invoice in ${invoice.currency}, order in ${order.currency}`,
  )
  const number = normalizeNumber(invoice.number)
  const reused = input.supplierInvoiceNumbers.some((other) => normalizeNumber(other) === number)
  check(
    'duplicate_invoice_number',
    !reused,
    'rejected',
    reused ? `the supplier already submitted invoice number ${invoice.number}` : 'the invoice number is new',
  )

  const ordered = new Map(order.lines.map((line) => [line.sku, line]))
  const unknown = invoice.lines.filter((line) => !ordered.has(line.sku)).map((line) => line.sku)
  check(
    'lines_on_order',
    unknown.length === 0,
    'rejected',
    unknown.length === 0 ? 'every invoiced SKU is on the order' : `not on the order: ${unknown.join(', ')}`,
  )

  const sumBy = (lines: readonly Line[], sku: string) =>
    lines.filter((line) => line.sku === sku).reduce((total, line) => total + line.quantity, 0n)
  const over: string[] = []
  for (const line of invoice.lines) {
    const orderedLine = ordered.get(line.sku)
    if (orderedLine === undefined) continue
    const billed = sumBy(input.billed, line.sku) + sumBy(invoice.lines, line.sku)
    if (billed > orderedLine.quantity) over.push(`${line.sku}: ${billed} billed of ${orderedLine.quantity} ordered`)
  }
  check(
    'quantities',
    over.length === 0,
    'rejected',
    over.length === 0 ? 'no SKU is billed beyond its ordered quantity' : `over-billed ${over.join('; ')}`,
  )

  const dear: string[] = []
  for (const line of invoice.lines) {
    const orderedLine = ordered.get(line.sku)
    if (orderedLine === undefined) continue
    const ceiling = orderedLine.unitPrice + (orderedLine.unitPrice * toleranceBps) / bps
    if (line.unitPrice > ceiling) dear.push(`${line.sku}: ${line.unitPrice} over ${orderedLine.unitPrice}`)
  }
  check(
    'unit_prices',
    dear.length === 0,
    'review_required',
    dear.length === 0
      ? `every unit price is at most the order's plus ${toleranceBps} bps`
      : `above the order's price plus ${toleranceBps} bps: ${dear.join('; ')}`,
  )

  const sum = lineTotal(invoice.lines)
  check(
    'total',
    sum === invoice.total,
    'rejected',
    `stated total ${invoice.total}, sum of quantity × unit price ${sum}`,
  )
  const duplicateSkus = invoice.lines.map((line) => line.sku).filter((sku, index, all) => all.indexOf(sku) !== index)
  check(
    'distinct_lines',
    duplicateSkus.length === 0,
    'rejected',
    duplicateSkus.length === 0 ? 'each SKU appears once' : `repeated SKUs: ${duplicateSkus.join(', ')}`,
  )

  const failed = checks.filter((one) => !one.ok)
  const outcome: Outcome = failed.some((one) => one.failure === 'rejected')
    ? 'rejected'
    : failed.length > 0
      ? 'review_required'
      : 'verified'
  return { outcome, checks }
}

/** Sum of quantity × unit price over `lines`, atomic units. */
export function lineTotal(lines: readonly Line[]): bigint {
  return lines.reduce((total, line) => total + line.quantity * line.unitPrice, 0n)
}

/** An invoice number as compared for duplicates: trimmed, case and inner spacing ignored. */
export function normalizeNumber(number: string): string {
  return number.trim().toUpperCase().replace(/\s+/g, '')
}
