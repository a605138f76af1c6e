import { Value } from '@sinclair/typebox/value'
import { type Address, getAddress, type Hex, isAddressEqual, keccak256 } from 'viem'
import type { BatchChain } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { ConflictError, NotFoundError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as Events from '../../core/Events.js'
import type { Token } from '../../core/Module.js'
import { type Also, type Store, walk } from '../../core/Store.js'
import * as SupplyChain from '../../core/SupplyChain.js'
import * as TokenList from '../../core/TokenList.js'
import type { Transfers } from '../../core/Transfers.js'
import * as Units from '../../core/Units.js'
import {
  type InvoiceBody,
  InvoiceBody as InvoiceBodySchema,
  PayBody,
  type PoBody,
  PoBody as PoBodySchema,
  type SupplierBody,
  SupplierBody as SupplierBodySchema,
  type VerifyBody,
} from './schema.js'

/** Store collections. */
export const collections = { suppliers: 'sctp_suppliers', orders: 'sctp_orders', invoices: 'sctp_invoices' } as const
/** Store collection of transfers claimed by an invoice, `hash:logIndex`. */
export const claimsCollection = 'sctp_payment_claims'
/** Hash chain of every invoice a payment was requested for, which the watcher walks. */
export const queue = 'sctp:payments'

/** What the supply-chain module needs from outside. */
export type Deps = {
  /** Suppliers, orders, invoices. */
  store: Store
  /** The batch contract payments go through. */
  batch: BatchChain
  /** Finds the payments' transfers. */
  transfers: Transfers
  /** Tokens orders may be in. */
  tokens: readonly Token[]
  /** How far above the ordered unit price an invoiced one still verifies, basis points. */
  toleranceBps: number
  /** Clock. @default () => new Date() */
  now?: () => Date
  /** The events outbox: a paid invoice is `invoice.paid` and `transfer.seen` to buyer and supplier, with the write. */
  events?: Events.Events | undefined
}

/** A supplier as stored. */
export type Supplier = {
  id: string
  /** The wallet that registered it: the only one that may invoice as it. */
  owner: Address
  name: string
  wallet: Address
  currency: string
  paymentTerms: NonNullable<SupplierBody['paymentTerms']>
  contact?: string | undefined
  /** The original gateway's contact email, if given. */
  contactEmail?: string | undefined
  /** Free-form JSON, if given. */
  metadata?: Record<string, unknown> | undefined
  /** The original gateway's MCP server's payment preferences as given (token and chain are applied above). */
  paymentPrefs?: Record<string, unknown> | undefined
  createdAt: string
}

/** A line as stored: whole units and the price of one unit in ATOMIC units, as decimal strings. */
type StoredLine = { sku: string; description?: string | undefined; quantity: string; unitPrice: string }

/** A purchase order as stored; amounts as decimal strings. */
export type Order = {
  id: string
  buyer: Address
  supplierId: string
  currency: string
  lines: StoredLine[]
  total: string
  reference?: string | undefined
  /** Free-form JSON, if given. */
  metadata?: Record<string, unknown> | undefined
  /** Invoices submitted against it, in order. */
  invoiceIds: string[]
  createdAt: string
}

/** An invoice as stored. */
export type Invoice = SupplyChain.State & {
  id: string
  poId: string
  supplierId: string
  buyer: Address
  /** The supplier's wallet that submitted it. */
  submittedBy: Address
  number: string
  currency: string
  lines: StoredLine[]
  total: string
  dueDate: string
  createdAt: string
}

/** Registers the paying wallet as a supplier, paid at `wallet` in `currency`. */
export async function supplier(deps: Deps, input: SupplierBody & { caller: Address }) {
  const now = clock(deps)
  const record: Supplier = {
    id: newId('sup'),
    owner: getAddress(input.caller),
    name: input.name,
    wallet: getAddress(input.wallet),
    ...supplierFields(deps, input),
    paymentTerms: input.paymentTerms ?? 'net30',
    createdAt: now.toISOString(),
  }
  await insert(deps, collections.suppliers, record.id, [record.owner], record)
  return { ...originalSupplierOf(record), supplier: record }
}

/** Checks a supplier body before payment: one name of each pair, a chain and token this gateway pays in. */
export function preflightSupplier(deps: Deps, body: unknown): void {
  if (Value.Check(SupplierBodySchema, body)) supplierFields(deps, body)
}

/**
 * A supplier body's token and contact in our words, the original gateway's names (and its MCP server's
 * `paymentPrefs.token` and `.chain`) resolved, one name of each.
 */
function supplierFields(deps: Deps, input: SupplierBody) {
  const prefs = input.paymentPrefs
  checkChain(
    either(['chain', input.chain], ['paymentPrefs.chain', prefs?.chain]),
    prefs?.chain === undefined ? 'chain' : 'paymentPrefs.chain',
  )
  checkMetadata(input.metadata)
  checkMetadata(prefs, 'paymentPrefs')
  const tokenNames = [
    ['preferredToken', input.preferredToken],
    ['currency', input.currency],
    ['paymentPrefs.token', prefs?.token],
  ] as const
  const token = either(...tokenNames) ?? 'USDC'
  const tokenField = tokenNames.find(([, value]) => value !== undefined)?.[0] ?? 'currency'
  return {
    currency: TokenList.toToken({ tokens: deps.tokens, token, field: tokenField }).symbol,
    contact: either(['contactEmail', input.contactEmail], ['contact', input.contact]),
    contactEmail: input.contactEmail,
    metadata: input.metadata,
    paymentPrefs: prefs,
  }
}

/** A supplier as the original gateway answers it, flat. */
function originalSupplierOf(record: Supplier) {
  return {
    supplierId: record.id,
    name: record.name,
    wallet: record.wallet,
    chain: 'base',
    preferredToken: record.currency,
    contactEmail: record.contactEmail ?? null,
    metadata: record.metadata ?? {},
    paymentPrefs: record.paymentPrefs ?? {},
    createdAt: record.createdAt,
  }
}

/** A supplier's details, for any payer (buyers need them to order). */
export async function getSupplier(deps: Deps, input: { id: string }) {
  const record = (await deps.store.get<Supplier>(collections.suppliers, input.id))?.value
  if (record === undefined) throw new NotFoundError(`No supplier ${input.id}.`)
  return { ...originalSupplierOf(record), supplier: record }
}

/** A purchase order from the paying buyer to a supplier, in one of the supported tokens. */
export async function po(deps: Deps, input: PoBody & { caller: Address }) {
  const seller = (await deps.store.get<Supplier>(collections.suppliers, input.supplierId))?.value
  if (seller === undefined) throw new NotFoundError(`No supplier ${input.supplierId}.`)
  const { token, lines, total } = orderTerms(deps, input)
  const order: Order = {
    id: newId('po'),
    buyer: getAddress(input.caller),
    supplierId: seller.id,
    currency: token.symbol,
    lines,
    total: total.toString(),
    reference: input.reference,
    metadata: input.metadata,
    invoiceIds: [],
    createdAt: clock(deps).toISOString(),
  }
  await insert(deps, collections.orders, order.id, unique([order.buyer, seller.owner]), order)
  const shown = viewOrder(deps, order)
  return { ...originalOrderOf(deps, shown, seller), po: shown }
}

/** Checks a purchase order body before payment: its lines or items, token, prices and stated total. */
export function preflightPo(deps: Deps, body: unknown): void {
  renamedPrices(body)
  if (Value.Check(PoBodySchema, body)) orderTerms(deps, body)
}

/** An order body's token, lines (prices atomic) and total: the stated total, when given, must be their sum. */
function orderTerms(deps: Deps, input: PoBody) {
  checkMetadata(input.metadata)
  const token = TokenList.toToken({ tokens: deps.tokens, token: input.currency ?? 'USDC', field: 'currency' })
  const lines = documentLines(input, token.decimals)
  const total = SupplyChain.lineTotal(linesOf(lines))
  if (input.total !== undefined) {
    const stated = Units.fromDecimal({ value: input.total, decimals: token.decimals, field: 'total' })
    if (stated !== total)
      throw new ValidationError({
        field: 'total',
        message: `is ${Units.toDecimal(stated, token.decimals)} but quantity × unit price sums to ${Units.toDecimal(total, token.decimals)}`,
      })
  }
  return { token, lines, total }
}

/** Free-form JSON (`metadata`, `paymentPrefs`) is at most 16 KiB. */
function checkMetadata(metadata: Record<string, unknown> | undefined, field = 'metadata'): void {
  if (metadata !== undefined && JSON.stringify(metadata).length > 16_384)
    throw new ValidationError({ field, message: 'is larger than 16384 bytes of JSON' })
}

/**
 * A document's lines, prices in atomic units: from our `lines` (RAW `unitPriceRaw`) or the original gateway's `items`
 * (HUMAN `unitPrice` or `price` in a token of `decimals`; `quantity` 1 and the SKU its position by default), one of
 * them; each SKU once.
 */
function documentLines(
  input: { lines?: PoBody['lines'] | undefined; items?: PoBody['items'] | undefined },
  decimals: number,
): StoredLine[] {
  const given = either(['items', input.items], ['lines', input.lines])
  if (given === undefined)
    throw new ValidationError({
      field: 'lines',
      message: 'required: lines (unitPriceRaw, atomic) or the original gateway’s items (unitPrice, human)',
    })
  const field = input.items === undefined ? 'lines' : 'items'
  const lines =
    input.items === undefined
      ? input.lines!.map(({ unitPriceRaw, ...line }) => ({ ...line, unitPrice: unitPriceRaw }))
      : input.items.map((item, index) => {
          const at = `items.${index}`
          const price = either([`${at}.price`, item.price], [`${at}.unitPrice`, item.unitPrice])
          if (price === undefined)
            throw new ValidationError({
              field: `${at}.unitPrice`,
              message: 'required: the price of one unit, a HUMAN decimal of the token',
            })
          const priceField = `${at}.${item.unitPrice === undefined ? 'price' : 'unitPrice'}`
          const quantity = Units.fromDecimal({ value: item.quantity ?? 1, decimals: 0, field: `${at}.quantity` })
          if (quantity === 0n) throw new ValidationError({ field: `${at}.quantity`, message: 'must be at least 1' })
          return {
            sku: item.sku ?? String(index + 1),
            ...(item.description === undefined ? {} : { description: item.description }),
            quantity: quantity.toString(),
            unitPrice: Units.fromDecimal({ value: price, decimals, field: priceField }).toString(),
          }
        })
  const skus = lines.map((line) => line.sku)
  const repeated = skus.filter((sku, index) => skus.indexOf(sku) !== index)
  if (repeated.length > 0)
    throw new ValidationError({ field, message: `repeat SKUs ${[...new Set(repeated)].join(', ')}` })
  return lines
}

/**
 * Refuses our lines' former `unitPrice` (RAW), now `unitPriceRaw`: `unitPrice` is the original gateway's HUMAN price of
 * its items, and one name never reads two units.
 */
function renamedPrices(body: unknown): void {
  const lines = (body as { lines?: unknown } | undefined)?.lines
  if (!Array.isArray(lines)) return
  const index = lines.findIndex((line) => typeof line === 'object' && line !== null && 'unitPrice' in line)
  if (index >= 0)
    throw new ValidationError({
      field: `lines.${index}.unitPrice`,
      message:
        'is now unitPriceRaw in lines (ATOMIC units, as before); unitPrice is a HUMAN decimal, in the original gateway’s items',
    })
}

/** A purchase order, with its invoices' states, for its buyer and its supplier. */
export async function getPo(deps: Deps, input: { id: string; caller: Address }) {
  const order = await load<Order>(deps, collections.orders, input.id, input.caller, 'purchase order')
  const invoices = await Promise.all(
    order.invoiceIds.map(async (id) => (await deps.store.get<Invoice>(collections.invoices, id))?.value),
  )
  const seller = (await deps.store.get<Supplier>(collections.suppliers, order.supplierId))?.value
  const shown = viewOrder(deps, order)
  return {
    ...originalOrderOf(deps, shown, seller),
    po: shown,
    invoices: invoices
      .filter((one) => one !== undefined)
      .map((one) => {
        const { id, number, status, total, totalRaw } = viewInvoice(deps, one)
        return { id, number, status, total, totalRaw }
      }),
  }
}

/** An invoice against a purchase order, submitted by the order's supplier (the wallet that registered it). */
export async function invoice(deps: Deps, input: InvoiceBody & { caller: Address }) {
  const caller = getAddress(input.caller)
  const order = await load<Order>(deps, collections.orders, input.poId, caller, 'purchase order')
  const seller = (await deps.store.get<Supplier>(collections.suppliers, order.supplierId))!.value
  // The buyer sees the order too, but only its supplier invoices against it.
  if (!isAddressEqual(seller.owner, caller)) throw new NotFoundError(`No purchase order ${input.poId}.`)
  const now = clock(deps)
  const { lines, total } = invoiceTerms(deps, order, input)
  const id = newId('inv')
  const record: Invoice = {
    id,
    poId: order.id,
    supplierId: seller.id,
    buyer: order.buyer,
    submittedBy: caller,
    number: input.number ?? id,
    currency: input.currency ?? order.currency,
    lines,
    total: total.toString(),
    dueDate: new Date(now.getTime() + dueDays[seller.paymentTerms] * 86_400_000).toISOString(),
    status: 'submitted',
    history: [{ status: 'submitted', at: now.toISOString() }],
    createdAt: now.toISOString(),
  }
  await insert(deps, collections.invoices, record.id, unique([order.buyer, caller]), record)
  await deps.store.update<Order>(collections.orders, order.id, (current) => ({
    ...current.value,
    invoiceIds: [...current.value.invoiceIds, record.id],
  }))
  const shown = viewInvoice(deps, record)
  return { ...originalInvoiceOf(deps, shown, seller), invoice: shown }
}

/** The checks of the match that compare the invoiced lines with the order's: the original's `itemsMatch`. */
const lineChecks = ['lines_on_order', 'quantities', 'unit_prices', 'distinct_lines']

/** The original gateway's recommendation for each outcome of the match. */
const recommendations = {
  verified: 'approve_payment',
  review_required: 'review_required',
  rejected: 'reject',
} as const

/** A purchase order as the original gateway answers it, flat; its items are our lines, unit prices human. */
function originalOrderOf(deps: Deps, order: ReturnType<typeof viewOrder>, seller: Supplier | undefined) {
  return {
    poId: order.id,
    supplierId: order.supplierId,
    supplierName: seller?.name ?? null,
    items: itemsOf(order.lines, decimalsOf(deps, order.currency)),
    total: order.total,
    totalRaw: order.totalRaw,
    currency: order.currency,
    status: 'open',
    createdAt: order.createdAt,
  }
}

/** An invoice as the original gateway answers it, flat; its items are our lines, unit prices human. */
function originalInvoiceOf(deps: Deps, record: ReturnType<typeof viewInvoice>, seller: Supplier | undefined) {
  return {
    invoiceId: record.id,
    poId: record.poId,
    supplierId: record.supplierId,
    supplierName: seller?.name ?? null,
    items: itemsOf(record.lines, decimalsOf(deps, record.currency)),
    total: record.total,
    totalRaw: record.totalRaw,
    status: record.status,
    txHash: record.payment?.transaction ?? null,
    paidAt: record.payment?.paidAt ?? null,
    createdAt: record.createdAt,
  }
}

/** Checks an invoice body before payment: its supplier, lines or items and total, in its order's token. */
export async function preflightInvoice(deps: Deps, body: unknown): Promise<void> {
  renamedPrices(body)
  if (!Value.Check(InvoiceBodySchema, body)) return
  const order = (await deps.store.get<Order>(collections.orders, body.poId))?.value
  if (order !== undefined) invoiceTerms(deps, order, body)
}

/**
 * An invoice body's lines (prices atomic) and total, read in the order's token as the original gateway reads its
 * human `total` and item prices; the original's `supplierId`, when given, must be the order's supplier.
 */
function invoiceTerms(deps: Deps, order: Order, input: InvoiceBody) {
  if (input.supplierId !== undefined && input.supplierId !== order.supplierId)
    throw new ValidationError({ field: 'supplierId', message: `is not the supplier of purchase order ${order.id}` })
  const { decimals } = TokenList.toToken({ tokens: deps.tokens, token: order.currency, field: 'total' })
  return {
    lines: documentLines(input, decimals),
    total: Units.fromDecimal({ value: input.total, decimals, field: 'total' }),
  }
}

/** Decimals of a document's token; 0 for one the gateway does not pay in (its figures then stay atomic). */
function decimalsOf(deps: Deps, currency: string): number {
  return deps.tokens.find((one) => one.symbol.toLowerCase() === currency.toLowerCase())?.decimals ?? 0
}

/** Stored lines as we answer them: the atomic unit price as `unitPriceRaw`. */
function linesView(lines: readonly StoredLine[]) {
  return lines.map(({ unitPrice, ...line }) => ({ ...line, unitPriceRaw: unitPrice }))
}

/** Lines as the original gateway's items: `unitPrice` a HUMAN decimal of the token, `unitPriceRaw` beside. */
function itemsOf(lines: ReturnType<typeof linesView>, decimals: number) {
  return lines.map((line) => ({ ...line, unitPrice: Units.toDecimal(BigInt(line.unitPriceRaw), decimals) }))
}

/** An order as answered: lines with `unitPriceRaw`, its total human (as the original's `total`) and atomic (`totalRaw`). */
function viewOrder(deps: Deps, order: Order) {
  const { decimals } = TokenList.toToken({ tokens: deps.tokens, token: order.currency, field: 'currency' })
  return {
    ...order,
    lines: linesView(order.lines),
    total: Units.toDecimal(BigInt(order.total), decimals),
    totalRaw: order.total,
  }
}

/** An invoice as answered: lines with `unitPriceRaw`, its total and payment's amount human, the atomic ones beside. */
function viewInvoice(deps: Deps, record: Invoice) {
  // An invoice in a currency the gateway does not pay in is stored (and rejected by the match); its figures stay atomic.
  const decimals = decimalsOf(deps, record.currency)
  const { payment } = record
  return {
    ...record,
    lines: linesView(record.lines),
    total: Units.toDecimal(BigInt(record.total), decimals),
    totalRaw: record.total,
    ...(payment === undefined
      ? {}
      : {
          payment: {
            ...payment,
            amount: Units.toDecimal(BigInt(payment.amount), decimals),
            amountRaw: payment.amount,
          },
        }),
  }
}

/** An invoice with its match and payment, for its buyer and its supplier; a pending payment is looked for first. */
export async function getInvoice(deps: Deps, input: { id: string; caller: Address }) {
  const found = await load<Invoice>(deps, collections.invoices, input.id, input.caller, 'invoice')
  const shown = viewInvoice(deps, await watch(deps, found))
  const seller = (await deps.store.get<Supplier>(collections.suppliers, shown.supplierId))?.value
  return { ...originalInvoiceOf(deps, shown, seller), invoice: shown }
}

/**
 * Matches an invoice against its purchase order ({@link SupplyChain.match}): every check listed, the outcome recorded as
 * the invoice's state (`verified`, `review_required` or `rejected`). For the buyer or the supplier.
 */
export async function verify(deps: Deps, input: VerifyBody & { caller: Address }) {
  const record = await load<Invoice>(deps, collections.invoices, input.invoiceId, input.caller, 'invoice')
  const order = (await deps.store.get<Order>(collections.orders, record.poId))!.value
  const others = await Promise.all(
    order.invoiceIds
      .filter((id) => id !== record.id)
      .map(async (id) => (await deps.store.get<Invoice>(collections.invoices, id))?.value),
  )
  const billed = others
    .filter((one) => one !== undefined && SupplyChain.billedStatuses.includes(one.status))
    .flatMap((one) => linesOf(one!.lines))
  const earlier = (await deps.store.list<Invoice>(collections.invoices, { owner: record.submittedBy, limit: 1000 }))
    .map((one) => one.value)
    .filter((one) => one.supplierId === record.supplierId && one.id !== record.id && isEarlier(one, record))
  const { outcome, checks } = SupplyChain.match({
    order: { supplierId: order.supplierId, currency: order.currency, lines: linesOf(order.lines) },
    invoice: {
      supplierId: record.supplierId,
      currency: record.currency,
      number: record.number,
      lines: linesOf(record.lines),
      total: BigInt(record.total),
    },
    supplierInvoiceNumbers: earlier.map((one) => one.number),
    billed,
    toleranceBps: BigInt(deps.toleranceBps),
  })
  const updated = await transition(deps, record.id, { type: 'checked', outcome, checks })
  const failed = checks.filter((check) => !check.ok)
  return {
    invoiceId: updated.id,
    poId: updated.poId,
    status: updated.status,
    toleranceBps: deps.toleranceBps,
    checks,
    // The original gateway's verdict, from the same deterministic match: its words for our outcome.
    recommendation: recommendations[outcome],
    confidence: 1,
    totalMatch: checks.find((check) => check.name === 'total')?.ok ?? false,
    itemsMatch: checks.filter((check) => lineChecks.includes(check.name)).every((check) => check.ok),
    discrepancies: failed.map((check) => `${check.name}: ${check.detail}`),
    verifiedBy: 'deterministic',
  }
}

/**
 * The unsigned batch transaction paying verified invoices of the paying buyer to their suppliers' wallets (one
 * transfer each, exact amounts), with the approval it needs. Each invoice becomes `payment_pending`; the watcher
 * marks it paid when the transfer lands. An invoice that is not verified is a 409.
 */
export async function pay(deps: Deps, input: PayBody & { caller: Address }) {
  const form = payFormOf(input, getAddress(input.caller))
  if (form.form === 'original') return payOriginal(deps, input.caller, form)
  const buyer = getAddress(input.caller)
  const invoices: Invoice[] = []
  for (const id of form.invoiceIds) {
    const record = await load<Invoice>(deps, collections.invoices, id, buyer, 'invoice')
    if (!isAddressEqual(record.buyer, buyer)) throw new NotFoundError(`No invoice ${id}.`)
    // Refused before anything is built: the machine says which states can be paid.
    SupplyChain.transition(record, { type: 'payment_requested', payment: placeholder }, clock(deps))
    invoices.push(record)
  }
  const currencies = [...new Set(invoices.map((one) => one.currency.toUpperCase()))]
  if (currencies.length > 1)
    throw new ValidationError({
      field: 'invoiceIds',
      message: `mix currencies ${currencies.join(', ')}; pay each apart`,
    })
  const token = TokenList.toToken({ tokens: deps.tokens, token: invoices[0]!.currency, field: 'invoiceIds' })
  const recipients = await Promise.all(
    invoices.map(async (one) => {
      const seller = (await deps.store.get<Supplier>(collections.suppliers, one.supplierId))!.value
      return { address: seller.wallet, amount: BigInt(one.total) }
    }),
  )
  const [feeBps, head] = await Promise.all([
    fromChain(() => deps.batch.feeBps()),
    fromChain(() => deps.transfers.blockNumber()),
  ])
  const paymentToken = { symbol: token.symbol, address: token.address, decimals: token.decimals, isETH: false }
  const execution = BatchPayment.toExecution({
    chainId: deps.batch.chainId,
    contract: deps.batch.address,
    token: paymentToken,
    recipients,
    feeBps,
    gasLimit: BatchPayment.gasLimit({ recipientCount: recipients.length, isETH: false, chain: 'base' }),
  })
  const pending: Invoice[] = []
  for (const [index, one] of invoices.entries()) {
    const payment: SupplyChain.Payment = {
      from: buyer,
      to: recipients[index]!.address,
      amount: one.total,
      token: token.address,
      fromBlock: head.toString(),
    }
    pending.push(await transition(deps, one.id, { type: 'payment_requested', payment }))
    await deps.store.append<{ id: string }>(queue, (last) => ({
      value: { id: one.id },
      hash: keccak256(new TextEncoder().encode(`${last?.hash ?? ''}${one.id}`)),
      createdAt: clock(deps),
    }))
  }
  return {
    ...execution,
    invoices: pending.map(({ id, status, payment }) => ({
      id,
      status,
      to: payment!.to,
      amount: Units.toDecimal(BigInt(payment!.amount), token.decimals),
      amountRaw: payment!.amount,
    })),
  }
}

/** A pay body's form: ours (`invoiceIds`) or the original gateway's (one payment, or `payments[]`, human USDC). */
type PayForm =
  | { form: 'ours'; invoiceIds: string[] }
  | {
      form: 'original'
      /** Whether it came as `payments[]`. */
      batch: boolean
      /** The payments, amounts in atomic USDC. */
      items: { supplierId: string; invoiceId: string | undefined; amount: bigint; field: string }[]
    }

/** The form of a pay body, every amount read as the original gateway reads it; one form per body. */
function payFormOf(input: PayBody, caller?: Address): PayForm {
  const { invoiceIds, payments, supplierId, amount, invoiceId } = input
  const originalFields = {
    payments,
    supplierId,
    amount,
    invoiceId,
    token: input.token,
    chain: input.chain,
    sender: input.sender,
  }
  if (invoiceIds !== undefined) {
    const extra = Object.entries(originalFields).find(([, value]) => value !== undefined)
    if (extra)
      throw new ValidationError({
        field: extra[0],
        message: "belongs to the original gateway's form (supplierId and amount, or payments[]); not with invoiceIds",
      })
    return { form: 'ours', invoiceIds }
  }
  checkChain(input.chain ?? payments?.[0]?.chain)
  const token = input.token ?? payments?.[0]?.token ?? 'USDC'
  if (token.toUpperCase() !== 'USDC')
    throw new ValidationError({ field: 'token', message: 'USDC is the only settlement token of supply-chain payments' })
  // The payer is the buyer: a sender of the original's body that is someone else is refused once the payer is known.
  if (input.sender !== undefined && caller !== undefined && !isAddressEqual(getAddress(input.sender), caller))
    throw new ValidationError({ field: 'sender', message: 'must be you: the payer of this call is the buyer who pays' })
  const decimals = 6
  if (payments !== undefined) {
    if (supplierId !== undefined || amount !== undefined || invoiceId !== undefined)
      throw new ValidationError({
        field: 'supplierId',
        message: 'give payments[] or one supplierId and amount, not both',
      })
    return {
      form: 'original',
      batch: true,
      items: payments.map((one, index) => {
        checkChain(one.chain)
        if (one.token !== undefined && one.token.toUpperCase() !== 'USDC')
          throw new ValidationError({ field: `payments.${index}.token`, message: 'USDC is the only settlement token' })
        return {
          supplierId: one.supplierId,
          invoiceId: one.invoiceId,
          amount: positive(
            Units.fromDecimal({ value: one.amount, decimals, field: `payments.${index}.amount` }),
            `payments.${index}.amount`,
          ),
          field: `payments.${index}`,
        }
      }),
    }
  }
  if (supplierId === undefined)
    throw new ValidationError({
      field: 'supplierId',
      message: 'required: the supplier and amount (or payments[], or invoiceIds of verified invoices)',
    })
  if (amount === undefined) throw new ValidationError({ field: 'amount', message: 'required: HUMAN decimal USDC' })
  return {
    form: 'original',
    batch: false,
    items: [
      {
        supplierId,
        invoiceId,
        amount: positive(Units.fromDecimal({ value: amount, decimals, field: 'amount' }), 'amount'),
        field: 'amount',
      },
    ],
  }
}

/** Checks a pay body before payment: its form and every amount. */
export function preflightPay(body: unknown): void {
  if (Value.Check(PayBody, body)) payFormOf(body)
}

/**
 * The original gateway's payment: the unsigned approval and batch transaction paying each supplier's wallet its amount
 * (read in HUMAN decimal USDC), from the paying buyer. A payment naming an invoice must be for a verified invoice of the
 * buyer from that supplier, of exactly its total; that invoice becomes `payment_pending` and the watcher marks it paid.
 */
async function payOriginal(deps: Deps, caller: Address, form: Extract<PayForm, { form: 'original' }>) {
  const buyer = getAddress(caller)
  const token = TokenList.toToken({ tokens: deps.tokens, token: 'USDC', field: 'token' })
  const suppliers = await Promise.all(
    form.items.map(async (item) => {
      const seller = (await deps.store.get<Supplier>(collections.suppliers, item.supplierId))?.value
      if (seller === undefined) throw new NotFoundError(`No supplier ${item.supplierId} (${item.field}).`)
      if (item.invoiceId === undefined) return seller
      const record = await load<Invoice>(deps, collections.invoices, item.invoiceId, buyer, 'invoice')
      if (!isAddressEqual(record.buyer, buyer) || record.supplierId !== seller.id)
        throw new NotFoundError(`No invoice ${item.invoiceId} of yours from supplier ${seller.id}.`)
      if (BigInt(record.total) !== item.amount)
        throw new ValidationError({
          field: form.batch ? `${item.field}.amount` : 'amount',
          message: `is ${Units.toDecimal(item.amount, token.decimals)} USDC; invoice ${record.id} totals ${Units.toDecimal(BigInt(record.total), token.decimals)} USDC`,
        })
      SupplyChain.transition(record, { type: 'payment_requested', payment: placeholder }, clock(deps))
      return seller
    }),
  )
  const recipients = form.items.map((item, index) => ({ address: suppliers[index]!.wallet, amount: item.amount }))
  const [feeBps, head] = await Promise.all([
    fromChain(() => deps.batch.feeBps()),
    fromChain(() => deps.transfers.blockNumber()),
  ])
  const execution = BatchPayment.toExecution({
    chainId: deps.batch.chainId,
    contract: deps.batch.address,
    token: { symbol: token.symbol, address: token.address, decimals: token.decimals, isETH: false },
    recipients,
    feeBps,
    gasLimit: BatchPayment.gasLimit({ recipientCount: recipients.length, isETH: false, chain: 'base' }),
  })
  for (const [index, item] of form.items.entries()) {
    if (item.invoiceId === undefined) continue
    const payment: SupplyChain.Payment = {
      from: buyer,
      to: recipients[index]!.address,
      amount: item.amount.toString(),
      token: token.address,
      fromBlock: head.toString(),
    }
    await transition(deps, item.invoiceId, { type: 'payment_requested', payment })
    await deps.store.append<{ id: string }>(queue, (last) => ({
      value: { id: item.invoiceId! },
      hash: keccak256(new TextEncoder().encode(`${last?.hash ?? ''}${item.invoiceId}`)),
      createdAt: clock(deps),
    }))
  }
  const total = recipients.reduce((sum, one) => sum + one.amount, 0n)
  const withFee = BigInt(execution.approvalRequired!.amount)
  // The original's `batch` says whether payments[] was given; the batch result's totals move to batchTotals.
  const { batch: batchTotals, ...rest } = execution
  const human = (amount: bigint) => Units.toDecimal(amount, token.decimals)
  return {
    status: 'ready',
    batch: form.batch,
    count: form.items.length,
    payments: form.items.map((item, index) => ({
      invoiceId: item.invoiceId ?? null,
      supplierId: suppliers[index]!.id,
      supplierName: suppliers[index]!.name,
      supplierWallet: suppliers[index]!.wallet,
      amount: human(item.amount),
      amountRaw: item.amount.toString(),
      token: token.symbol,
      chain: 'base',
    })),
    summary: {
      token: token.symbol,
      chain: 'base',
      chainId: deps.batch.chainId,
      totalAmount: human(total),
      totalAmountRaw: total.toString(),
      protocolFee: human(withFee - total),
      protocolFeeBps: Number(feeBps),
      totalWithFee: human(withFee),
      totalWithFeeRaw: withFee.toString(),
      recipientCount: recipients.length,
    },
    transactions: {
      approval: {
        to: token.address,
        data: BatchPayment.approveCalldata({ spender: deps.batch.address, amount: withFee }),
        value: '0x0',
        chainId: deps.batch.chainId,
      },
      batchPayment: { ...execution.transaction, value: '0x0' },
    },
    balanceCheck: null,
    ...rest,
    batchTotals,
  }
}

/** An atomic amount that must be more than zero. */
function positive(amount: bigint, field: string): bigint {
  if (amount === 0n) throw new ValidationError({ field, message: 'must be more than zero' })
  return amount
}

/** Supply-chain payments settle on the chain the original gateway calls base. */
function checkChain(chain: string | undefined, field = 'chain'): void {
  if (chain !== undefined && chain.toLowerCase() !== 'base')
    throw new ValidationError({
      field,
      message: 'supply-chain payments settle on base here; give base or leave it out',
    })
}

/**
 * The value of a field with several names (the original gateway's first, then ours or its MCP server's), whichever
 * was given; two of them is a 400 naming the later.
 */
function either<value>(...names: readonly (readonly [string, value | undefined])[]): value | undefined {
  const [first, second] = names.filter(([, value]) => value !== undefined)
  if (first && second)
    throw new ValidationError({ field: second[0], message: `names the same field as ${first[0]}; give one of them` })
  return first?.[1]
}

/** The watcher's pass: every invoice whose payment is pending, looked for on chain. */
export async function scan(deps: Deps): Promise<{ checked: number; paid: number }> {
  const seen = new Set<string>()
  let checked = 0
  let paid = 0
  for await (const entry of walk<{ id: string }>(deps.store, queue)) {
    if (seen.has(entry.value.id)) continue
    seen.add(entry.value.id)
    const record = (await deps.store.get<Invoice>(collections.invoices, entry.value.id))?.value
    if (record?.status !== 'payment_pending') continue
    checked += 1
    if ((await watch(deps, record)).status === 'paid') paid += 1
  }
  return { checked, paid }
}

/**
 * Looks for the exact transfer a pending invoice waits for (its token, from the buyer to the supplier's wallet, its
 * amount, after the block the payment was requested at) and records the first one no other invoice claimed.
 */
async function watch(deps: Deps, record: Invoice): Promise<Invoice> {
  if (record.status !== 'payment_pending' || record.payment === undefined) return record
  const { payment } = record
  const found = await fromChain(() =>
    deps.transfers.find({
      token: payment.token,
      to: payment.to,
      amount: BigInt(payment.amount),
      fromBlock: BigInt(payment.fromBlock),
    }),
  )
  for (const transfer of found) {
    if (!isAddressEqual(transfer.from, payment.from)) continue
    const claim = `${transfer.hash.toLowerCase()}:${transfer.logIndex}`
    const inserted = await deps.store.insert({
      collection: claimsCollection,
      id: claim,
      owners: [record.buyer],
      value: { invoiceId: record.id },
      createdAt: clock(deps),
    })
    const mine =
      inserted.ok ||
      (await deps.store.get<{ invoiceId: string }>(claimsCollection, claim))?.value.invoiceId === record.id
    if (!mine) continue
    const updated = await deps.store.update<Invoice>(
      collections.invoices,
      record.id,
      (current) =>
        current.value.status === 'payment_pending'
          ? SupplyChain.transition(
              current.value,
              {
                type: 'paid',
                transaction: transfer.hash as Hex,
                paidAt: new Date(Number(transfer.blockTimestamp) * 1000),
              },
              clock(deps),
            )
          : { refused: true, reason: `already ${current.value.status}` },
      paidEvents(deps, record, transfer),
    )
    if (updated.ok) return updated.record.value
    return (await deps.store.get<Invoice>(collections.invoices, record.id))!.value
  }
  return record
}

/**
 * The outbox work of an invoice's payment: `invoice.paid` and the paying transfer's `transfer.seen`, to its buyer and
 * the supplier's wallet that submitted it, with ids stable per invoice and per transfer; nothing without an events port.
 */
function paidEvents(
  deps: Deps,
  record: Invoice,
  transfer: { hash: Hex; logIndex: number; from: Address; blockNumber: bigint },
): Also | undefined {
  const { events } = deps
  if (!events || record.payment === undefined) return undefined
  const { payment } = record
  const owners = [record.buyer, record.submittedBy]
  const paid = Events.forOwners(
    Events.invoicePaid({
      invoiceId: record.id,
      amount: BigInt(payment.amount),
      token: payment.token,
      transaction: transfer.hash,
      payer: transfer.from,
    }),
    owners,
  )
  const seen = Events.forOwners(
    Events.transferSeen({
      ...transfer,
      to: payment.to,
      token: payment.token,
      amount: BigInt(payment.amount),
    }),
    owners,
  )
  return { enqueue: [...paid, ...seen].map((event: Events.Emit) => events.outbox(event)) }
}

/** Applies an event to a stored invoice atomically; an event the state does not take is a 409. */
async function transition(deps: Deps, id: string, event: SupplyChain.Event): Promise<Invoice> {
  const now = clock(deps)
  const updated = await deps.store.update<Invoice>(collections.invoices, id, (current) =>
    SupplyChain.transition(current.value, event, now),
  )
  if (!updated.ok) throw new ConflictError(`Invoice ${id} could not be updated.`)
  return updated.record.value
}

const placeholder: SupplyChain.Payment = {
  from: '0x0000000000000000000000000000000000000000',
  to: '0x0000000000000000000000000000000000000000',
  amount: '0',
  token: '0x0000000000000000000000000000000000000000',
  fromBlock: '0',
}

const dueDays = { immediate: 0, net15: 15, net30: 30, net60: 60 } as const

function isEarlier(one: Invoice, other: Invoice): boolean {
  return one.createdAt < other.createdAt || (one.createdAt === other.createdAt && one.id < other.id)
}

/** A record `party` may see; otherwise a 404, exactly as if it did not exist. */
async function load<value>(deps: Deps, collection: string, id: string, party: Address, what: string): Promise<value> {
  const record = await deps.store.get<value>(collection, id)
  if (record === undefined || !record.owners.some((owner) => isAddressEqual(owner, party)))
    throw new NotFoundError(`No ${what} ${id}.`)
  return record.value
}

async function insert(deps: Deps, collection: string, id: string, owners: Address[], value: unknown) {
  const inserted = await deps.store.insert({ collection, id, owners, value, createdAt: clock(deps) })
  if (!inserted.ok) throw new Error(`Id ${id} is already taken in ${collection}.`)
}

function linesOf(lines: readonly StoredLine[]): SupplyChain.Line[] {
  return lines.map((line) => ({ sku: line.sku, quantity: BigInt(line.quantity), unitPrice: BigInt(line.unitPrice) }))
}

function unique(addresses: Address[]): Address[] {
  return addresses.filter((one, index) => addresses.findIndex((other) => isAddressEqual(one, other)) === index)
}

async function fromChain<value>(read: () => Promise<value>): Promise<value> {
  try {
    return await read()
  } catch (error) {
    throw new UpstreamUnavailableError('The settlement chain could not be read; try again shortly.', { cause: error })
  }
}

function newId(prefix: string): string {
  return `${prefix}_${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('hex')}`
}

function clock(deps: Deps): Date {
  return deps.now?.() ?? new Date()
}
