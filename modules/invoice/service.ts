import { Value } from '@sinclair/typebox/value'
import { type Address, checksumAddress, zeroAddress } from 'viem'
import * as AddressRules from '../../core/Address.js'
import * as AuditChain from '../../core/AuditChain.js'
import * as Balances from '../../core/Balances.js'
import type { BatchChain } from '../../core/BatchChain.js'
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  UpstreamUnavailableError,
  ValidationError,
} from '../../core/Errors.js'
import * as Events from '../../core/Events.js'
import * as Invoice from '../../core/Invoice.js'
import { oneOf } from '../../core/internal/oneOf.js'
import { type Also, genesisHash, type Store } from '../../core/Store.js'
import * as TokenList from '../../core/TokenList.js'
import type { Transfers } from '../../core/Transfers.js'
import * as Units from '../../core/Units.js'
import { CreateBody, listStatuses } from './schema.js'

/** What the invoice module needs from outside. */
export type Deps = {
  /** Where invoices and payment claims are kept. */
  store: Store
  /** Reads ERC-20 transfers on the chain invoices are paid on. */
  transfers: Transfers
  /** Chain invoices are paid on. */
  chainId: number
  /** The only tokens invoices may be paid in, e.g. the configured USDC. */
  tokens: readonly Invoice.Token[]
  /** Current time. @default () => new Date() */
  now?: (() => Date) | undefined
  /** The events outbox: a paid invoice is `invoice.paid` and `transfer.seen` to its parties, with the write. */
  events?: Events.Events | undefined
  /** Reads token balances on that chain, for the original gateway's `onChainCheck`; none: the check is `null`. */
  balances?: BatchChain['balances'] | undefined
}

/** Store collection of invoices, serialized with {@link Invoice.serialize}, owned by creator and recipient. */
export const collection = 'invoices'

/** Store collection of claimed transfers, keyed `txHash:logIndex`: a transfer pays at most one invoice. */
export const paymentsCollection = 'invoice_payments'

/** Store log of every invoice id in creation order; {@link scan} walks it. */
export const queue = 'invoices'

/** Most invoices one list answers, newest first. */
export const maxListed = 100

/** Most open invoices one list refreshes from the chain; the rest are refreshed when read or scanned. */
export const maxRefreshedPerList = 20

/** Most blocks one refresh of one invoice searches; a long-unread invoice catches up over several refreshes. */
export const maxBlocksPerRefresh = 100_000n

/** A claim of one transfer by one invoice. */
type Claim = { invoiceId: string }

/** An entry of {@link queue}. */
type Queued = { invoiceId: string }

/** Where {@link scan} resumes in {@link queue}. */
type Cursor = { next: number }

/** Creates an open invoice for the caller, with the unsigned transaction that pays it. */
export async function create(deps: Deps, input: create.Input) {
  const caller = checksumAddress(input.caller)
  const createdBy = toAddress(input.creator, 'creator')
  if (createdBy !== caller)
    throw new ForbiddenError(`creator must be the paying address ${caller}: invoices are created by their own creator.`)
  const now = nowOf(deps)
  const invoice = draft(deps, input, {
    id: `inv_${randomHex(16)}`,
    now,
    createdAtBlock: await fromChain(() => deps.transfers.blockNumber()),
  })
  // Queued first: a crash between the two writes leaves a queue entry without an invoice, never the reverse.
  await deps.store.append<Queued>(queue, (last) => {
    const entry = {
      previousHash: last?.hash ?? genesisHash,
      sequence: (last?.sequence ?? 0) + 1,
      value: { invoiceId: invoice.id },
      createdAt: now,
    }
    return { value: entry.value, hash: AuditChain.hash(entry), createdAt: now }
  })
  const inserted = await deps.store.insert({
    collection,
    id: invoice.id,
    owners: ownersOf(invoice),
    value: Invoice.serialize(invoice),
    createdAt: now,
  })
  if (!inserted.ok) throw new Error(`Invoice id ${invoice.id} is taken; 128 random bits should never collide.`)
  const amount = `${Units.toDecimal(invoice.amount, invoice.token.decimals)} ${invoice.token.symbol}`
  const lookup = `GET /api/v1/invoice/${invoice.id}`
  return {
    status: 'created',
    invoice: present(invoice),
    // How to pay and where to look, as the original gateway answers them.
    payment: {
      transaction: { ...invoice.transaction, note: `Pay ${amount} to ${invoice.recipient}` },
      instructions: [
        `1. Send ${amount} to ${invoice.recipient} on chain ${invoice.chainId} (${invoice.token.address})`,
        '2. Use the pre-encoded transaction above, or send the exact amount directly from any wallet',
        `3. Check payment status: ${lookup}`,
      ],
    },
    lookup: { endpoint: lookup, note: 'Use this endpoint to check payment status' },
  }
}

export declare namespace create {
  type Input = CreateBody & {
    /** The verified payer. */
    caller: Address
  }
}

/** The invoices where `address` (the caller) is creator or recipient, newest first, open ones refreshed. */
export async function list(deps: Deps, input: list.Input) {
  const caller = checksumAddress(input.caller)
  const address = toAddress(input.address, 'address')
  if (address !== caller)
    throw new ForbiddenError(`address must be the paying address ${caller}: only your own invoices can be listed.`)
  const status = oneOf(input.status, listStatuses, 'status')
  const records = await deps.store.list<Invoice.Serialized>(collection, { owner: address, limit: maxListed })
  const invoices = records.map((record) => Invoice.deserialize(record.value))
  const open = invoices.filter((invoice) => invoice.status === 'open').slice(0, maxRefreshedPerList)
  const head = open.length > 0 ? await fromChain(() => deps.transfers.blockNumber()) : undefined
  const refreshed = new Map(
    (await Promise.all(open.map((invoice) => refresh(deps, invoice, head)))).map(
      (invoice) => [invoice.id, invoice] as const,
    ),
  )
  const listed = invoices
    .map((invoice) => refreshed.get(invoice.id) ?? invoice)
    .filter((invoice) => status === undefined || invoice.status === (status === 'pending' ? 'open' : status))
  return {
    address,
    invoices: listed.map((invoice) => ({ ...present(invoice), role: roleOf(invoice, address) })),
    count: listed.length,
    filters: { status: status ?? 'all' },
  }
}

export declare namespace list {
  type Input = {
    /** The verified payer. */
    caller: Address
    /** Creator, payee or payer to list for; must be the caller. */
    address: string
    /** Only invoices in this status, one of {@link listStatuses} in any case. @default all */
    status?: string | undefined
  }
}

/**
 * One invoice, refreshed from the chain when open. The id comes from the path or from `?id=`; both given and
 * different is a bad request. Someone else's invoice and a missing one are the same 404.
 */
export async function get(deps: Deps, input: get.Input) {
  const { pathId, queryId } = input
  preflightGet({ pathId, queryId })
  const id = (pathId ?? queryId)!
  const record = await deps.store.get<Invoice.Serialized>(collection, id)
  if (!record?.owners.includes(checksumAddress(input.caller))) throw new NotFoundError(`No invoice ${id}.`)
  const invoice = await refresh(deps, Invoice.deserialize(record.value))
  return { invoice: present(invoice), onChainCheck: await onChainCheck(deps, invoice) }
}

/**
 * The original gateway's `onChainCheck` of an open invoice: its creator's balance of the invoice's token, read now;
 * `null` for a paid or expired invoice, or when the chain does not answer. Payment itself is detected from transfers.
 */
async function onChainCheck(deps: Deps, invoice: Invoice.Invoice) {
  if (invoice.status !== 'open') return null
  const read = await Balances.check({ read: deps.balances, token: invoice.token, account: invoice.creator })
  return (
    read && {
      creatorBalance: read.balance,
      creatorBalanceRaw: read.balanceRaw,
      token: read.token,
      note: 'Balance check only: the payment itself is detected from the token transfers to the payee.',
    }
  )
}

/** Refuses, before payment, no id at all or a path and a query that name different invoices; the schema checks each id's format. */
export function preflightGet(input: { pathId?: unknown; queryId?: unknown }): void {
  const { pathId, queryId } = input
  refuseOriginalId(pathId)
  refuseOriginalId(queryId)
  if (typeof pathId === 'string' && typeof queryId === 'string' && pathId !== queryId)
    throw new BadRequestError('The path and the query name different invoices; give one id.', {
      details: { field: 'id' },
    })
  if (pathId === undefined && queryId === undefined)
    throw new ValidationError({ field: 'id', message: 'required: the invoice id, in the path or as ?id=' })
}

/** Refuses, before payment, an `address` to list for that is not an EVM address, or a `status` no invoice has. */
export function preflightList(query: { address?: unknown; status?: unknown }): void {
  if (typeof query.address === 'string') toAddress(query.address, 'address')
  if (typeof query.status === 'string') oneOf(query.status, listStatuses, 'status')
}

/**
 * Refuses, before payment, an invoice that `create` would refuse whoever pays: a malformed address, token, amount or
 * due date, a zero recipient, a due date in the past, a memo or reference out of bounds. A body of the wrong shape is
 * left to the schema, which names the field.
 */
export function preflightCreate(deps: Deps, body: unknown): void {
  if (Value.Check(CreateBody, body)) draft(deps, body, { id: 'inv_preflight', now: nowOf(deps), createdAtBlock: 0n })
}

/** The invoice `input` asks for, every field checked; pure, so that it runs before payment as well as in `create`. */
function draft(deps: Deps, input: CreateBody, at: { id: string; now: Date; createdAtBlock: bigint }): Invoice.Open {
  const { amount, recipient, payTo, memo, dueDate, reference } = input
  const token = TokenList.toToken({ tokens: deps.tokens, token: input.token })
  const receiver = payTo === undefined ? undefined : toAddress(payTo, 'payTo')
  // Refused here so that the refusal names the request's field: the core names its own, `recipient`.
  if (receiver === zeroAddress) throw new ValidationError({ field: 'payTo', message: 'is the zero address' })
  // The original gateway's `recipient` is who pays; the core's `recipient` is who receives, our `payTo`.
  return Invoice.from({
    id: at.id,
    creator: toAddress(input.creator, 'creator'),
    recipient: receiver,
    payer: recipient === undefined ? undefined : toAddress(recipient, 'recipient'),
    token,
    amount: Units.fromDecimal({ value: amount, decimals: token.decimals, field: 'amount' }),
    memo,
    reference,
    dueDate: dueDate === undefined ? undefined : toDueDate(dueDate),
    chainId: deps.chainId,
    createdAt: at.now,
    createdAtBlock: at.createdAtBlock,
  })
}

export declare namespace get {
  type Input = {
    /** The verified payer. */
    caller: Address
    /** Id from the path, when the path has one. */
    pathId?: string | undefined
    /** Id from `?id=`. */
    queryId?: string | undefined
  }
}

/**
 * Refreshes a window of open invoices from the chain, for a scheduled job. Walks the creation log from where the
 * last run stopped and starts over at its end. The window is claimed in the store first, so processes sharing the
 * store scan different windows and never the same one twice at once.
 */
export async function scan(deps: Deps, parameters: scan.Parameters = {}): Promise<scan.ReturnType> {
  const { limit = 100 } = parameters
  const { store } = deps
  const cursorCollection = 'invoice_scan'
  const cursorId = 'cursor'
  await store.insert<Cursor>({
    collection: cursorCollection,
    id: cursorId,
    owners: [],
    value: { next: 1 },
    createdAt: nowOf(deps),
  })
  const cursor = (await store.get<Cursor>(cursorCollection, cursorId))!
  let fromSequence = cursor.value.next
  let entries = await store.entries<Queued>(queue, { fromSequence, limit })
  if (entries.length === 0 && fromSequence > 1) {
    fromSequence = 1
    entries = await store.entries<Queued>(queue, { fromSequence, limit })
  }
  const next = entries.length < limit ? 1 : fromSequence + entries.length
  const claimed = await store.update<Cursor>(cursorCollection, cursorId, (current) =>
    current.version === cursor.version ? { next } : { refused: true, reason: 'another process took this window' },
  )
  const result: scan.ReturnType = { checked: 0, paid: 0, expired: 0 }
  if (!claimed.ok || entries.length === 0) return result

  const head = await deps.transfers.blockNumber()
  for (const entry of entries) {
    const record = await store.get<Invoice.Serialized>(collection, entry.value.invoiceId)
    if (record?.value.status !== 'open') continue
    const invoice = await refresh(deps, Invoice.deserialize(record.value), head)
    result.checked += 1
    if (invoice.status === 'paid') result.paid += 1
    if (invoice.status === 'expired') result.expired += 1
  }
  return result
}

export declare namespace scan {
  type Parameters = {
    /** Most invoices looked at in one run. @default 100 */
    limit?: number
  }
  type ReturnType = {
    /** Open invoices refreshed. */
    checked: number
    /** Of those, how many turned paid. */
    paid: number
    /** Of those, how many turned expired. */
    expired: number
  }
}

/**
 * Searches the blocks after the invoice's cursor (at most {@link maxBlocksPerRefresh}) for a transfer that pays it,
 * claims the first one no other invoice has, and records the outcome: paid, the cursor moved on, or expired once
 * the whole chain up to `head` is searched and the due date has passed.
 */
async function refresh(deps: Deps, invoice: Invoice.Invoice, knownHead?: bigint): Promise<Invoice.Invoice> {
  if (invoice.status !== 'open') return invoice
  const now = nowOf(deps)
  const head = knownHead ?? (await fromChain(() => deps.transfers.blockNumber()))
  let current: Invoice.Invoice = invoice
  const fromBlock = invoice.scannedThroughBlock + 1n
  const toBlock =
    head < invoice.scannedThroughBlock + maxBlocksPerRefresh ? head : invoice.scannedThroughBlock + maxBlocksPerRefresh
  if (fromBlock <= toBlock) {
    const transfers = await fromChain(() =>
      deps.transfers.find({
        token: invoice.token.address,
        to: invoice.recipient,
        amount: invoice.amount,
        fromBlock,
        toBlock,
      }),
    )
    for (const transfer of transfers) {
      const payment: Invoice.Payment = {
        txHash: transfer.hash,
        from: transfer.from,
        blockNumber: transfer.blockNumber,
        logIndex: transfer.logIndex,
        paidAt: new Date(Number(transfer.blockTimestamp) * 1000),
      }
      if (!Invoice.canPay(invoice, payment) || !(await claim(deps.store, invoice, payment, now))) continue
      return apply(deps.store, invoice, { type: 'payment_observed', payment }, now, paidEvents(deps, invoice, payment))
    }
    current = await apply(deps.store, invoice, { type: 'scanned', throughBlock: toBlock }, now)
  }
  if (current.status === 'open' && current.scannedThroughBlock >= head && Invoice.isPastDue(current, now))
    return apply(deps.store, current, { type: 'expire' }, now)
  return current
}

/**
 * Claims a transfer for an invoice. True when it is this invoice's: newly claimed, or claimed by it before (a
 * process that stopped between claiming and recording the payment).
 */
async function claim(store: Store, invoice: Invoice.Invoice, payment: Invoice.Payment, now: Date): Promise<boolean> {
  const id = `${payment.txHash.toLowerCase()}:${payment.logIndex}`
  const owners = ownersOf(invoice)
  const inserted = await store.insert<Claim>({
    collection: paymentsCollection,
    id,
    owners,
    value: { invoiceId: invoice.id },
    createdAt: now,
  })
  if (inserted.ok) return true
  return (await store.get<Claim>(paymentsCollection, id))?.value.invoiceId === invoice.id
}

/** Applies an event to an open invoice in the store; when another process closed it first, answers what it stored. */
async function apply(
  store: Store,
  invoice: Invoice.Invoice,
  event: Invoice.Event,
  now: Date,
  also?: Also,
): Promise<Invoice.Invoice> {
  const updated = await store.update<Invoice.Serialized>(
    collection,
    invoice.id,
    (record) => {
      const current = Invoice.deserialize(record.value)
      if (current.status !== 'open') return { refused: true, reason: `already ${current.status}` }
      return Invoice.serialize(Invoice.transition(current, event, now))
    },
    also,
  )
  if (updated.ok) return Invoice.deserialize(updated.record.value)
  if (updated.reason === 'not_found') throw new Error(`Invoice ${invoice.id} vanished from the store.`)
  return Invoice.deserialize((await store.get<Invoice.Serialized>(collection, invoice.id))!.value)
}

/**
 * The outbox work of an invoice's payment: `invoice.paid` and the paying transfer's `transfer.seen`, to each party
 * (creator and recipient), with ids stable per invoice and per transfer; nothing without an events port.
 */
function paidEvents(deps: Deps, invoice: Invoice.Invoice, payment: Invoice.Payment): Also | undefined {
  const { events } = deps
  if (!events) return undefined
  const owners = ownersOf(invoice)
  const paid = Events.forOwners(
    Events.invoicePaid({
      invoiceId: invoice.id,
      amount: invoice.amount,
      token: invoice.token.address,
      transaction: payment.txHash,
      payer: payment.from,
    }),
    owners,
  )
  const seen = Events.forOwners(
    Events.transferSeen({
      hash: payment.txHash,
      logIndex: payment.logIndex,
      from: payment.from,
      to: invoice.recipient,
      token: invoice.token.address,
      amount: invoice.amount,
      blockNumber: payment.blockNumber,
    }),
    owners,
  )
  return { enqueue: [...paid, ...seen].map((event: Events.Emit) => events.outbox(event)) }
}

/**
 * The response form of an invoice, in the original gateway's words: `recipient` is who is expected to pay (`open`
 * when anyone), `payTo` who receives, `amount` human and `amountRaw` atomic, `paymentTx` the paying transaction;
 * with the CAIP-2 network.
 */
function present(invoice: Invoice.Invoice) {
  const { recipient, payer, amount, ...serialized } = Invoice.serialize(invoice)
  const human = Units.toDecimal(invoice.amount, invoice.token.decimals)
  return {
    ...serialized,
    recipient: payer ?? 'open',
    payTo: recipient,
    amount: human,
    amountRaw: amount,
    amountFormatted: human,
    network: `eip155:${invoice.chainId}`,
    paymentTx: invoice.status === 'paid' ? invoice.payment.txHash : null,
    updatedAt: (invoice.status === 'paid'
      ? invoice.observedAt
      : invoice.status === 'expired'
        ? invoice.expiredAt
        : invoice.createdAt
    ).toISOString(),
  }
}

/** What `address` is to the invoice, as the original gateway names it (`creator`, `payer`), or `payee` for `payTo`. */
function roleOf(invoice: Invoice.Invoice, address: Address): 'creator' | 'payer' | 'payee' {
  if (address === invoice.creator) return 'creator'
  return address === invoice.payer ? 'payer' : 'payee'
}

/** Refuses an id in the original gateway's `INV-` format with a 400 that names the format used here. */
function refuseOriginalId(value: unknown): void {
  if (typeof value === 'string' && /^INV-/i.test(value))
    throw new ValidationError({
      field: 'id',
      message: `"${value.slice(0, 40)}" is an id of the original gateway's format (INV-...); invoice ids here are inv_ and 32 hex digits, as invoice/create answers them`,
    })
}

/** Runs a chain read; a node that fails becomes a 503, so the call is not charged for an answer it could not check. */
async function fromChain<value>(read: () => Promise<value>): Promise<value> {
  try {
    return await read()
  } catch (error) {
    throw new UpstreamUnavailableError(
      'The chain invoices are paid on could not be read to check for payments; try again shortly.',
      {
        cause: error,
      },
    )
  }
}

/** Who may read an invoice: its creator, who receives the payment, and who is expected to pay it. */
function ownersOf(invoice: Invoice.Invoice): Address[] {
  return [...new Set([invoice.creator, invoice.recipient, ...(invoice.payer === undefined ? [] : [invoice.payer])])]
}

function nowOf(deps: Deps): Date {
  return deps.now?.() ?? new Date()
}

function toAddress(value: string, field: string): Address {
  const result = AddressRules.validateEvm(value)
  if (!result.valid) throw new ValidationError({ field, message: result.message })
  // validateEvm answers only the EVM formats, which carry the checksummed form.
  return checksumAddress(value as Address)
}

/**
 * A date (`2030-01-31`, its start in UTC, as the original gateway's `new Date()` reads it) or an ISO 8601 date-time
 * with seconds optional and an explicit offset (`Z` or `±hh:mm`); local times are ambiguous, so they are refused.
 */
function toDueDate(value: string): Date {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/.exec(value)
  const date = new Date(value)
  if (match && !Number.isNaN(date.getTime())) {
    const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = match
      .slice(1)
      .map((part) => (part === undefined ? undefined : Number(part)))
    // Engines roll 2030-02-30 over to March 2 instead of refusing it.
    const calendarDay = new Date(Date.UTC(year!, month! - 1, 1))
    calendarDay.setUTCDate(day!)
    const real = month! >= 1 && month! <= 12 && calendarDay.getUTCMonth() === month! - 1
    if (real && hour! < 24 && minute! < 60 && second < 60 && offsetHours < 24 && offsetMinutes < 60) return date
  }
  throw new ValidationError({
    field: 'dueDate',
    message: 'must be a date (2030-01-31) or an ISO 8601 date-time with an offset (2030-01-31T17:00:00Z)',
  })
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join(
    '',
  )
}
