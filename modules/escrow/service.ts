import { Value } from '@sinclair/typebox/value'
import { type Address, getAddress, type Hex, isAddress, isAddressEqual, toHex } from 'viem'
import * as Balances from '../../core/Balances.js'
import type { BatchChain } from '../../core/BatchChain.js'
import { ForbiddenError, NotFoundError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as Escrow from '../../core/Escrow.js'
import type { EscrowChain } from '../../core/EscrowChain.js'
import * as Events from '../../core/Events.js'
import { oneOf } from '../../core/internal/oneOf.js'
import type { Store } from '../../core/Store.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'
import {
  CreateBody,
  defaultExpiresInHours,
  type FundBody,
  type ListQuery,
  listStatuses,
  type SettleBody,
} from './schema.js'

/** What the escrow module needs from outside. */
export type Deps = {
  /** Where escrow records live (collection {@link collection}), visible to their parties only. */
  store: Store
  /** The escrow contract the gateway builds transactions for and reads deposits from. */
  chain: EscrowChain
  /** Tokens an escrow may hold, found by symbol (any case) or address. */
  tokens: readonly Escrow.Token[]
  /** Clock. @default () => new Date() */
  now?: () => Date
  /** The events outbox: each move observed on chain is `escrow.*` to the escrow's parties, with the record's update. */
  events?: Events.Events | undefined
  /** Reads token balances on the escrow's chain, for the original gateway's `balanceCheck`; none: it is `null`. */
  balances?: BatchChain['balances'] | undefined
}

/** Store collection of escrow records; values are {@link Escrow.Serialized}. */
export const collection = 'escrows'

/** The verified payer of the call, which every operation acts for. */
export type Payer = {
  /** Checksummed address of the wallet that paid for the call. */
  payer: Address
}

/**
 * Records a new escrow from the paying wallet and returns it with the two transactions that fund it (approve, then
 * deposit). Nothing is on chain until the depositor sends them; `fund` then verifies the deposit.
 */
export async function create(deps: Deps, input: CreateBody & Payer) {
  const now = clock(deps)
  const escrow = draft(deps, input, toHex(crypto.getRandomValues(new Uint8Array(32))), now)
  const { depositor, beneficiary, arbiter } = escrow
  if (!isAddressEqual(depositor, input.payer))
    throw new ForbiddenError(
      `depositor ${depositor} is not the wallet that paid for this call; an escrow is created by its depositor.`,
      {
        details: { field: 'depositor' },
      },
    )

  const owners = [depositor, beneficiary, ...(arbiter === undefined ? [] : [arbiter])].filter(
    (owner, index, all) => all.findIndex((other) => isAddressEqual(other, owner)) === index,
  )
  const inserted = await deps.store.insert({
    collection,
    id: escrow.id,
    owners,
    value: Escrow.serialize(escrow),
    createdAt: now,
  })
  // 32 random bytes never collide in practice; a collision is a fault, not a case to handle.
  if (!inserted.ok) throw new Error(`Escrow id ${escrow.id} is already taken.`)
  const escrowId = escrow.id
  return {
    status: escrow.status,
    escrow: view(escrow),
    // The original gateway's next calls, with the bodies they take.
    actions: {
      fund: {
        endpoint: 'POST /api/v1/escrow/fund',
        body: { escrowId },
        note: `After the depositor sends escrow.transactions.approve, then escrow.transactions.deposit.`,
      },
      release: { endpoint: 'POST /api/v1/escrow/release', body: { escrowId, caller: depositor } },
      cancel: { endpoint: 'POST /api/v1/escrow/cancel', body: { escrowId, caller: depositor } },
      status: { endpoint: `GET /api/v1/escrow/${escrowId}` },
    },
  }
}

/**
 * Verifies the deposit on chain, never trusting the request: the escrow turns `active` when the contract holds a
 * deposit under its id with exactly its terms (and on to `released` or `cancelled` if the contract already settled
 * it). Before anything is deposited it answers `awaiting_deposit` with the transactions the depositor signs (a
 * success, charged: the answer is what to do next); other terms under the id are a 409. Any party may ask; it is
 * idempotent.
 */
export async function fund(deps: Deps, input: FundBody & Payer) {
  const escrow = await load(deps, input.escrowId, 'escrowId', input.payer)
  if (escrow.status === 'released' || escrow.status === 'cancelled')
    return { status: escrow.status, escrow: view(escrow) }
  const deposit = await read(deps, escrow)
  if (escrow.status === 'created' && deposit === undefined) {
    const amount = `${Units.toDecimal(escrow.amount, escrow.token.decimals)} ${escrow.token.symbol}`
    return {
      status: 'awaiting_deposit',
      escrow: view(escrow),
      transactions: Escrow.toFundingTransactions(escrow),
      charged: true,
      note: `Nothing is deposited under escrow ${escrow.id} yet, so it is not funded. This call is charged: its answer is the two transactions to sign.`,
      nextSteps: [
        `From the depositor ${escrow.depositor}, send transactions.approve (lets the escrow contract take ${amount}), then transactions.deposit.`,
        `POST /api/v1/escrow/fund with { escrowId: "${escrow.id}" } once the deposit is mined: the escrow turns active.`,
      ],
    }
  }
  const funded = await save(deps, escrow, Escrow.reconcile(escrow, deposit, clock(deps)))
  return {
    status: funded.status,
    escrow: view(funded),
    nextSteps: [
      'POST /api/v1/escrow/release with { escrowId, caller }',
      'POST /api/v1/escrow/cancel with { escrowId, caller }',
    ],
  }
}

/** The unsigned `release` transaction for an active escrow; `caller` must be the paying wallet and the depositor or arbiter. */
export function release(deps: Deps, input: SettleBody & Payer) {
  return settle(deps, 'release', input)
}

/**
 * The unsigned `cancel` transaction for an active escrow, which refunds the depositor; `caller` must be the paying
 * wallet and the depositor or arbiter, or, once the expiry is reached, any party.
 */
export function cancel(deps: Deps, input: SettleBody & Payer) {
  return settle(deps, 'cancel', input)
}

/** The escrows the paying wallet is a party of, newest first, brought in line with the chain. */
export async function list(deps: Deps, input: ListQuery & Payer) {
  const address = toAddress(input.address, 'address')
  if (!isAddressEqual(address, input.payer))
    throw new ForbiddenError(
      `address ${address} is not the wallet that paid for this call; only your own escrows are listed.`,
      {
        details: { field: 'address' },
      },
    )
  const status = oneOf(input.status, listStatuses, 'status')
  const records = await deps.store.list<Escrow.Serialized>(collection, { owner: getAddress(input.payer) })
  const now = clock(deps)
  const escrows = (await Promise.all(records.map((record) => refresh(deps, Escrow.deserialize(record.value))))).filter(
    (escrow) => status === undefined || isInStatus(escrow, status, now),
  )
  return {
    address,
    escrows: escrows.map((escrow) => ({ ...view(escrow), role: roleOf(escrow, address) })),
    count: escrows.length,
    filters: { status: status ?? 'all' },
  }
}

/** One escrow of the paying wallet, brought in line with the chain. The id comes from the path or the query. */
export async function get(deps: Deps, input: get.Input) {
  const { pathId, queryId } = input
  preflightGet({ pathId, queryId })
  const id = (pathId ?? queryId)!
  const escrow = await refresh(deps, await load(deps, id, 'id', input.payer))
  return { escrow: view(escrow), balanceCheck: await balanceCheck(deps, escrow) }
}

/**
 * The original gateway's `balanceCheck` of a funded escrow: its depositor's balance of the escrow's token now (what
 * the depositor holds beside the escrow); `null` for an escrow not active, or when the chain does not answer.
 */
async function balanceCheck(deps: Deps, escrow: Escrow.Escrow) {
  if (escrow.status !== 'active') return null
  const read = await Balances.check({ read: deps.balances, token: escrow.token, account: escrow.depositor })
  return read && { depositorBalance: read.balance, depositorBalanceRaw: read.balanceRaw, token: read.token }
}

export declare namespace get {
  type Input = Payer & {
    /** Id from the path (`/api/v1/escrow/:id`). */
    pathId?: string | undefined
    /** Id from the query (`?id=`). */
    queryId?: string | undefined
  }
}

/** Refuses, before payment, no id at all or a path and a query that name different escrows; the schema checks each id's format. */
export function preflightGet(input: { pathId?: unknown; queryId?: unknown }): void {
  const { pathId, queryId } = input
  refuseOriginalId(pathId, 'id')
  refuseOriginalId(queryId, 'id')
  if (typeof pathId === 'string' && typeof queryId === 'string' && pathId.toLowerCase() !== queryId.toLowerCase())
    throw new ValidationError({ field: 'id', message: 'the path and the query name different escrows; give one' })
  if (pathId === undefined && queryId === undefined)
    throw new ValidationError({ field: 'id', message: 'is required, in the path or as ?id=' })
}

/** Refuses, before payment, an `address` to list for that is not an EVM address, or a `status` no escrow has. */
export function preflightList(query: { address?: unknown; status?: unknown }): void {
  if (typeof query.address === 'string') toAddress(query.address, 'address')
  if (typeof query.status === 'string') oneOf(query.status, listStatuses, 'status')
}

/** Refuses, before payment, an `escrowId` in the original gateway's format, saying which one this gateway uses. */
export function preflightFund(body: unknown): void {
  refuseOriginalId((body as { escrowId?: unknown } | null | undefined)?.escrowId, 'escrowId')
}

/**
 * Refuses, before payment, an escrow that `create` would refuse whoever pays: a malformed address, token, amount or
 * expiry, a zero address, an expiry in the past. A body of the wrong shape is left to the schema, which names the field.
 */
export function preflightCreate(deps: Deps, body: unknown): void {
  if (Value.Check(CreateBody, body)) draft(deps, body, preflightId, clock(deps))
}

/** Refuses, before payment, an `escrowId` in the original gateway's format or a `caller` that is not an EVM address. */
export function preflightSettle(body: unknown): void {
  preflightFund(body)
  const caller = (body as { caller?: unknown } | null | undefined)?.caller
  if (typeof caller === 'string') toAddress(caller, 'caller')
}

/** The id a preflight's draft carries: the checks never read it. */
const preflightId: Hex = `0x${'0'.repeat(64)}`

/** The escrow `input` asks for, every field checked; pure, so that it runs before payment as well as in `create`. */
function draft(deps: Deps, input: CreateBody, id: Hex, now: Date): Escrow.Escrow {
  const token = TokenList.toToken({ tokens: deps.tokens, token: input.token })
  return Escrow.from({
    id,
    chainId: deps.chain.chainId,
    contract: deps.chain.address,
    depositor: toAddress(input.depositor, 'depositor'),
    beneficiary: toAddress(input.beneficiary, 'beneficiary'),
    arbiter: input.arbiter === undefined ? undefined : toAddress(input.arbiter, 'arbiter'),
    token,
    amount: Units.fromDecimal({ value: input.amount, decimals: token.decimals, field: 'amount' }),
    expiry: toExpiry(input, now),
    description: input.description,
    conditions: input.conditions,
    createdAt: now,
  })
}

/** Release or cancel: who may, in which order, and the transaction that does it. */
async function settle(deps: Deps, action: Escrow.Action, input: SettleBody & Payer) {
  const caller = toAddress(input.caller, 'caller')
  if (!isAddressEqual(caller, input.payer))
    throw new ForbiddenError(`caller ${caller} is not the wallet that paid for this call.`, {
      details: { field: 'caller' },
    })
  let escrow = await load(deps, input.escrowId, 'escrowId', input.payer)
  const now = clock(deps)
  if (!Escrow.isAllowed({ escrow, action, caller, now }))
    throw new ForbiddenError(
      action === 'release'
        ? `Only the depositor or the arbiter can release escrow ${escrow.id}.`
        : `Only the depositor or the arbiter can cancel escrow ${escrow.id}${escrow.expiry === undefined ? '' : ` before its expiry (${escrow.expiry.toISOString()})`}.`,
      { details: { escrowId: escrow.id, action } },
    )
  // The chain may have settled it since the last read; a transaction that would revert is not handed out.
  if (escrow.status === 'active') escrow = await refresh(deps, escrow)
  // The state machine decides the order (funded first, settled once); the record itself changes when the chain does.
  Escrow.transition(escrow, { type: action === 'release' ? 'released' : 'cancelled' }, now)
  return {
    status: escrow.status,
    escrowId: escrow.id,
    escrow: { ...view(escrow), [action === 'release' ? 'releasedBy' : 'cancelledBy']: roleOf(escrow, caller) },
    // `signer`, as the original gateway names it: the address that must send the transaction.
    transaction: { ...Escrow.toSettlementTransaction(escrow, action), signer: caller },
  }
}

/** The escrow if the payer is one of its parties; otherwise 404, exactly as if it did not exist. */
async function load(deps: Deps, id: string, field: string, payer: Address): Promise<Escrow.Escrow> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(id))
    throw new ValidationError({ field, message: 'must be 32 bytes as 0x-prefixed hex' })
  const key = id.toLowerCase() as Hex
  const record = await deps.store.get<Escrow.Serialized>(collection, key)
  if (record === undefined || !record.owners.some((owner) => isAddressEqual(owner, payer)))
    throw new NotFoundError(`No escrow ${key}.`)
  return Escrow.deserialize(record.value)
}

/** An active escrow moved on to `released` or `cancelled` when the contract says so; anything else as stored. */
async function refresh(deps: Deps, escrow: Escrow.Escrow): Promise<Escrow.Escrow> {
  if (escrow.status !== 'active') return escrow
  const deposit = await read(deps, escrow)
  // A deposit that no longer matches (a devnet restarted under a durable store) leaves the record as it was.
  if (!Escrow.verify(escrow, deposit).ok) return escrow
  return save(deps, escrow, Escrow.reconcile(escrow, deposit, clock(deps)))
}

/**
 * Stores `next` if it moved on from `escrow`, with the move's events to the escrow's parties; another request may have
 * stored the same move first (and recorded its events: their ids are the escrow's).
 */
async function save(deps: Deps, escrow: Escrow.Escrow, next: Escrow.Escrow): Promise<Escrow.Escrow> {
  if (next.status === escrow.status) return escrow
  const { events } = deps
  const moved = Events.escrowMoved({
    escrowId: escrow.id,
    amount: escrow.amount,
    token: escrow.token.address,
    from: escrow.status,
    to: next.status,
  })
  const parties = [escrow.depositor, escrow.beneficiary, ...(escrow.arbiter === undefined ? [] : [escrow.arbiter])]
  const also = events && {
    enqueue: moved.flatMap((event) => Events.forOwners(event, parties).map((owned) => events.outbox(owned))),
  }
  const updated = await deps.store.update<Escrow.Serialized>(
    collection,
    escrow.id,
    (current) => {
      const stored = Escrow.deserialize(current.value)
      // Only moves forward from what is stored now, so a concurrent request's move is never undone.
      if (stored.status !== escrow.status) return { refused: true, reason: `already ${stored.status}` }
      return Escrow.serialize(next)
    },
    also,
  )
  if (updated.ok) return Escrow.deserialize(updated.record.value)
  const current = await deps.store.get<Escrow.Serialized>(collection, escrow.id)
  return current === undefined ? next : Escrow.deserialize(current.value)
}

/** The deposit under the escrow's id, from the contract the escrow was created on. */
async function read(deps: Deps, escrow: Escrow.Escrow) {
  const { chain } = deps
  if (escrow.chainId !== chain.chainId || !isAddressEqual(escrow.contract, chain.address))
    throw new UpstreamUnavailableError(
      `Escrow ${escrow.id} lives on contract ${escrow.contract} of chain ${escrow.chainId}, which this gateway does not read.`,
    )
  try {
    return await chain.read(escrow.id)
  } catch (error) {
    // The fault's own message names the node's URL (which may carry a key) and the request; it stays in `cause`.
    throw new UpstreamUnavailableError('The escrow contract could not be read; try again shortly.', { cause: error })
  }
}

/**
 * An escrow as answered: its JSON with the amount as the original gateway gives it (`amount` human, `amountRaw`
 * atomic), its expiry also as `expiresAt` and in hours from creation, and while `created` the transactions that fund it.
 */
function view(escrow: Escrow.Escrow) {
  const { amount, ...serialized } = Escrow.serialize(escrow)
  const human = Units.toDecimal(escrow.amount, escrow.token.decimals)
  return {
    ...serialized,
    amount: human,
    amountRaw: amount,
    amountFormatted: human,
    expiresAt: serialized.expiry,
    // Two decimals: the expiry is cut to whole seconds, so 168 hours asked may be 167.9999 hours stored.
    expiresInHours:
      escrow.expiry === undefined
        ? null
        : Math.round((escrow.expiry.getTime() - escrow.createdAt.getTime()) / 36_000) / 100,
    ...(escrow.status === 'created' ? { transactions: Escrow.toFundingTransactions(escrow) } : {}),
  }
}

/** What `address` is to the escrow, as the original gateway names it: depositor first, then beneficiary, then arbiter. */
function roleOf(escrow: Escrow.Fields, address: Address): 'depositor' | 'beneficiary' | 'arbiter' | 'other' {
  if (isAddressEqual(address, escrow.depositor)) return 'depositor'
  if (isAddressEqual(address, escrow.beneficiary)) return 'beneficiary'
  if (escrow.arbiter !== undefined && isAddressEqual(address, escrow.arbiter)) return 'arbiter'
  return 'other'
}

/** Whether an escrow matches a list's `status`: `funded` is `active`; `expired` is unsettled with the expiry reached. */
function isInStatus(escrow: Escrow.Escrow, status: (typeof listStatuses)[number], now: Date): boolean {
  if (status === 'expired')
    return (escrow.status === 'created' || escrow.status === 'active') && Escrow.isExpired(escrow, now)
  return escrow.status === (status === 'funded' ? 'active' : status)
}

/** Refuses an id in the original gateway's `ESC-` format with a 400 that names the format used here. */
function refuseOriginalId(value: unknown, field: string): void {
  if (typeof value === 'string' && /^ESC-/i.test(value))
    throw new ValidationError({
      field,
      message: `"${value.slice(0, 40)}" is an id of the original gateway's format (ESC-...); escrow ids here are 0x and 64 hex digits, as escrow/create answers them`,
    })
}

/** The current time from `deps.now`, or the wall clock. */
function clock(deps: Deps): Date {
  return deps.now?.() ?? new Date()
}

/** A checksummed EVM address; mixed case must carry a valid EIP-55 checksum. */
function toAddress(value: string, field: string): Address {
  if (!isAddress(value, { strict: true }))
    throw new ValidationError({ field, message: 'must be an EVM address (0x and 40 hex digits, valid checksum)' })
  return getAddress(value)
}

/**
 * The expiry a request asks for: `expiresIn` hours from `now` (the original gateway's field), or `expiry` as a time,
 * never both; with neither, {@link defaultExpiresInHours} hours from `now`, as the original gateway applies it.
 */
function toExpiry(input: Pick<CreateBody, 'expiresIn' | 'expiry'>, now: Date): Date {
  const { expiresIn, expiry } = input
  if (expiresIn !== undefined && expiry !== undefined)
    throw new ValidationError({
      field: 'expiresIn',
      message: 'give expiresIn (hours from now) or expiry (a time), not both',
    })
  if (expiry !== undefined) return toExpiryTime(expiry)
  return new Date(now.getTime() + (expiresIn ?? defaultExpiresInHours) * 3_600_000)
}

/** ISO 8601 with a time zone, or Unix seconds (number or digits), to a date. */
function toExpiryTime(value: string | number): Date {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/
  const seconds = typeof value === 'number' ? value : /^\d{1,16}$/.test(value) ? Number(value) : undefined
  const date =
    seconds !== undefined ? new Date(seconds * 1000) : iso.test(value as string) ? new Date(value) : undefined
  if (date === undefined || Number.isNaN(date.getTime()))
    throw new ValidationError({
      field: 'expiry',
      message: 'must be ISO 8601 with a time zone (2030-01-01T00:00:00Z) or Unix time in seconds',
    })
  return date
}
