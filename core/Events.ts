import { type Address, getAddress, type Hex } from 'viem'
import type { Holding } from './Module.js'
import type { Enqueue, Queue } from './Queue.js'

/**
 * Events of the gateway, recorded in a transactional outbox and fanned out to the owner's subscribed webhooks. An
 * event is written with the store change that caused it (`store.insert(record, { enqueue: [events.outbox(event)] })`)
 * or on its own (`events.emit(event)`); a worker later claims it from the outbox queue and enqueues one signed
 * delivery per subscribed webhook, each with a stable id, so the same event reaches a receiver with the same
 * `webhook-id` however often it is retried or redelivered after a crash.
 */

/**
 * Every event name, with what its `data` carries. A webhook subscribes to some of them, or to `*`. An amount in an
 * event is RAW, in the token's atomic units, and its name says so (`amountRaw`, `totalRaw`): answers give `amount` as
 * a human decimal, so no name means two units.
 */
export const types = {
  'test.ping': 'Sent by `/api/v1/webhook/test`: `{ webhookId }`.',
  'payment.settled':
    'A payment to this gateway settled: `{ payer, amountRaw, asset, network, transaction, resource }`.',
  'batch.built':
    'A batch payment transaction was built: `{ chain, token, recipients, totalRaw, transaction }` (`totalRaw` with the fee).',
  'payroll.built':
    'A payroll run transaction was built: `{ chain, token, recipients, totalRaw, transaction }` (`totalRaw` with the fee).',
  'invoice.paid': 'An invoice was paid: `{ invoiceId, amountRaw, token, transaction, payer }`.',
  'escrow.funded':
    'An escrow was funded: `{ escrowId, amountRaw, token, transaction }` (`transaction` null: the deposit is read off the contract).',
  'escrow.released':
    'An escrow was released to its payee: `{ escrowId, amountRaw, token, transaction }` (`transaction` null when read off the contract).',
  'escrow.cancelled':
    'An escrow was cancelled and refunded: `{ escrowId, amountRaw, token, transaction }` (`transaction` null when read off the contract).',
  'transfer.seen':
    'A watched transfer (one that pays an invoice) was seen on chain: `{ from, to, token, amountRaw, transaction, logIndex, blockNumber }`.',
  'cron.triggered':
    "A cron job ran (sent to its `callback_url`): `{ jobId, action, run, maxRuns, scheduledFor, payload, transaction?, error? }` (a batch or payroll run's `transaction` is `{ chainId, to, data, value, token, totalRaw }`, its `payload` as stored: `recipients` with RAW `amounts`).",
  'job.completed':
    'An asynchronous job (a compute job, a GPU run or an image generation) succeeded and its payment was settled, or could not be: `{ jobId, kind, status, result?, payment: { state, transaction } }` (`kind` `compute`, `gpu` or `image`; `result` only when settled).',
  'job.failed':
    'An asynchronous job failed, was canceled or passed its deadline, and its payment was released: `{ jobId, kind, status, error, payment: { state, transaction } }`.',
  'robot.task.updated': 'A robot task changed state: `{ taskId, status }`.',
  'call.completed':
    "A paid call succeeded and its payment settled (sent to the call's own `callback_url` only): `{ requestId, route, status, answer, payment: { payer, amountRaw, transaction, channelId? } }` (`answer` the JSON body the call answered; `transaction` null for a channel voucher, claimed later in a batch).",
  'robot.task.completed':
    "A robot task came to rest, its escrow settled (or canceled without a deposit), sent to its `callback_url` or, without one, to the requester: `{ event: 'task.completed', task_id, robot_id, status, result, escrow, settlement, timestamp }` (the original gateway's callback fields: `status` COMPLETED, FAILED, TIMEOUT or CANCELLED; `escrow` released, refunded or null; `settlement` `{ action, transaction, at }` or null).",
} as const

/** An event name. */
export type Type = keyof typeof types

/** Whether `name` is an event name. */
export function isType(name: string): name is Type {
  return Object.hasOwn(types, name)
}

/**
 * The original gateway's webhook event names that are not ours, each with the event of this gateway it stands for, or
 * `null` with why this gateway never emits it. A webhook may subscribe to them as its clients do.
 */
export const originalTypes = {
  'payment.sent': { type: 'payment.settled', why: "the subscriber's own payment to this gateway settled" },
  'payment.received': {
    type: 'transfer.seen',
    why: 'a watched transfer that pays an invoice of the subscriber (its creator or its recipient) was seen on chain',
  },
  'payment.failed': { type: null, why: 'a payment that fails is refused in its own call (402); nothing settles' },
  'batch.completed': {
    type: null,
    why: 'batches are built here (`batch.built`) and sent by the caller; this gateway does not watch them mined',
  },
  'batch.failed': { type: null, why: 'the caller sends the built batch; this gateway never sees it fail' },
  'escrow.created': { type: null, why: "escrow/create's own answer is the creation; events start at `escrow.funded`" },
  'escrow.expired': { type: null, why: 'no event marks an escrow passing its expiry; a refund is `escrow.cancelled`' },
  'invoice.created': { type: null, why: "invoice/create's own answer is the creation; events start at `invoice.paid`" },
  'invoice.overdue': { type: null, why: 'no event marks an invoice passing its due date' },
  'swap.completed': { type: null, why: 'swaps are built here and sent by the caller; this gateway never sees them' },
  'swap.failed': { type: null, why: 'swaps are built here and sent by the caller; this gateway never sees them' },
  'bridge.completed': {
    type: null,
    why: 'bridges are quoted here and sent by the caller; this gateway never sees them',
  },
  'bridge.failed': { type: null, why: 'bridges are quoted here and sent by the caller; this gateway never sees them' },
  'payroll.completed': {
    type: null,
    why: 'payroll runs are built here (`payroll.built`) and sent by the caller; this gateway does not watch them mined',
  },
  'payroll.failed': { type: null, why: 'the caller sends the built payroll run; this gateway never sees it fail' },
} as const satisfies Record<string, { type: Type | null; why: string }>

/** An original event name that is not ours. */
export type OriginalType = keyof typeof originalTypes

/** The event of this gateway a subscribed name stands for: itself, its equivalent, or `null` when never emitted. */
export function toType(name: string): Type | null {
  if (isType(name)) return name
  return Object.hasOwn(originalTypes, name) ? originalTypes[name as OriginalType].type : null
}

/** An event as it is recorded and delivered (the webhook body is `{ type, timestamp, data }`). */
export type Event<data = unknown> = {
  /** Stable id: the same id is one event, however often it is emitted. */
  id: string
  /** Its name. */
  type: Type
  /** The payer whose webhooks receive it. */
  owner: Address
  /** What happened (JSON; amounts RAW as decimal strings, named `…Raw`). */
  data: data
  /** When it happened, ISO 8601. */
  timestamp: string
  /**
   * The payment of the paid call that emitted it, when one did: the event is delivered once that payment is paid, and
   * never when it is not (the call's writes were taken back). Not part of the webhook body.
   */
  payment?: Holding | undefined
}

/** What an emitter gives: the event without what the port fills in. */
export type Emit<data = unknown> = Omit<Event<data>, 'id' | 'timestamp'> & {
  /** A stable id, e.g. `invoice.paid:<invoiceId>`, so that emitting twice records it once. @default a random id */
  id?: string | undefined
  /** When it happened. @default now */
  timestamp?: Date | undefined
}

/** The queue of the outbox. */
export const outboxQueue = 'events'

/** The port: records events in the outbox. */
export type Events = {
  /** Records the event in the outbox on its own; resolves once it is durable. */
  emit: <data>(event: Emit<data>) => Promise<Event<data>>
  /** The outbox item of an event, to pass as a store write's `also.enqueue`, so that it commits with the change. */
  outbox: <data>(event: Emit<data>) => Enqueue<Event<data>>
  /**
   * Whether an event of `type` for `owner` would reach anyone now (one of the owner's active webhooks listens for it),
   * for emitters on a hot path that record an event nobody listens for not at all.
   */
  wanted: (owner: Address, type: Type) => Promise<boolean>
}

/**
 * The events port on a queue. `wanted` answers whether an owner listens for a type (the webhooks' store); without it,
 * every event is wanted.
 */
export function events(parameters: {
  queue: Queue
  wanted?: ((owner: Address, type: Type) => Promise<boolean>) | undefined
}): Events {
  const { queue, wanted = async () => true } = parameters
  const outbox = <data>(event: Emit<data>): Enqueue<Event<data>> => {
    const recorded: Event<data> = {
      id: event.id ?? `evt_${crypto.randomUUID().replaceAll('-', '')}`,
      type: event.type,
      owner: getAddress(event.owner),
      data: event.data,
      timestamp: (event.timestamp ?? new Date()).toISOString(),
      ...(event.payment ? { payment: event.payment } : {}),
    }
    return { queue: outboxQueue, id: recorded.id, payload: recorded }
  }
  return {
    outbox,
    wanted,
    async emit(event) {
      const item = outbox(event)
      await queue.enqueue([item])
      return item.payload
    },
  }
}

/**
 * The events port of one paid call: every event it records carries the call's payment, so that the outbox delivers it
 * only once that payment is paid.
 */
export function under(events: Events, payment: Holding): Events {
  return {
    ...events,
    outbox: (event) => events.outbox({ ...event, payment }),
    emit: (event) => events.emit({ ...event, payment }),
  }
}

/**
 * One event for each party: the same event for every owner (each once, whatever its letter case), its id suffixed
 * with the owner's checksummed address so that each party's copy is recorded once however often it is emitted.
 */
export function forOwners<data>(
  event: Omit<Emit<data>, 'owner' | 'id'> & { id: string },
  owners: readonly Address[],
): Emit<data>[] {
  const unique = [...new Set(owners.map((owner) => getAddress(owner)))]
  return unique.map((owner) => ({ ...event, id: `${event.id}:${owner}`, owner }))
}

/** The `transfer.seen` event of an ERC-20 transfer, without its owner; its id is the transfer's (hash and log index). */
export function transferSeen(transfer: transferSeen.Transfer): Omit<Emit<transferSeen.Data>, 'owner'> & { id: string } {
  return {
    id: `transfer.seen:${transfer.hash.toLowerCase()}:${transfer.logIndex}`,
    type: 'transfer.seen',
    data: {
      from: getAddress(transfer.from),
      to: getAddress(transfer.to),
      token: getAddress(transfer.token),
      amountRaw: transfer.amount.toString(),
      transaction: transfer.hash,
      logIndex: transfer.logIndex,
      blockNumber: transfer.blockNumber.toString(),
    },
  }
}

export declare namespace transferSeen {
  type Transfer = {
    /** Hash of the transaction that carried it. */
    hash: Hex
    /** Position of its Transfer log in the block. */
    logIndex: number
    /** Sender. */
    from: Address
    /** Receiver. */
    to: Address
    /** The token contract. */
    token: Address
    /** Amount in the token's atomic units. */
    amount: bigint
    /** Block it was mined in. */
    blockNumber: bigint
  }
  type Data = {
    from: Address
    to: Address
    token: Address
    /** RAW: atomic units, decimal. */
    amountRaw: string
    transaction: Hex
    logIndex: number
    /** Decimal. */
    blockNumber: string
  }
}

/**
 * The `invoice.paid` event of an invoice, without its owner; its id is the invoice's, so a payment found twice, or by
 * two processes, is one event.
 */
export function invoicePaid(paid: invoicePaid.Paid): Omit<Emit<invoicePaid.Data>, 'owner'> & { id: string } {
  return {
    id: `invoice.paid:${paid.invoiceId}`,
    type: 'invoice.paid',
    data: {
      invoiceId: paid.invoiceId,
      amountRaw: paid.amount.toString(),
      token: getAddress(paid.token),
      transaction: paid.transaction,
      payer: getAddress(paid.payer),
    },
  }
}

export declare namespace invoicePaid {
  type Paid = {
    /** The invoice's id. */
    invoiceId: string
    /** Amount paid, in the token's atomic units. */
    amount: bigint
    /** The token contract. */
    token: Address
    /** The paying transaction. */
    transaction: Hex
    /** Who paid. */
    payer: Address
  }
  type Data = {
    invoiceId: string
    /** RAW: atomic units, decimal. */
    amountRaw: string
    token: Address
    transaction: Hex
    payer: Address
  }
}

/**
 * The events of an escrow moving from status `from` to `to`, without their owner: `escrow.funded` when it left
 * `created`, then `escrow.released` or `escrow.cancelled` when it reached one. Ids are stable per escrow
 * (`escrow.released:<escrowId>`), so a move observed twice, or by two processes, is one event.
 */
export function escrowMoved(
  parameters: escrowMoved.Parameters,
): (Omit<Emit<escrowMoved.Data>, 'owner'> & { id: string })[] {
  const { escrowId, amount, token, from, to, transaction } = parameters
  const event = (type: 'escrow.funded' | 'escrow.released' | 'escrow.cancelled', hash: Hex | null) => ({
    id: `${type}:${escrowId.toLowerCase()}`,
    type,
    data: { escrowId, amountRaw: amount.toString(), token: getAddress(token), transaction: hash },
  })
  const moved: ReturnType<typeof escrowMoved> = []
  if (from === 'created' && to !== 'created') moved.push(event('escrow.funded', null))
  if (to !== from && to === 'released') moved.push(event('escrow.released', transaction ?? null))
  if (to !== from && to === 'cancelled') moved.push(event('escrow.cancelled', transaction ?? null))
  return moved
}

export declare namespace escrowMoved {
  type Parameters = {
    /** The escrow's bytes32 id. */
    escrowId: Hex
    /** Amount held, in the token's atomic units. */
    amount: bigint
    /** The token contract. */
    token: Address
    /** Status before (`created`, `active`, `released` or `cancelled`). */
    from: string
    /** Status after. */
    to: string
    /** The release or cancel transaction, when the gateway sent it; otherwise the move was read off the contract. */
    transaction?: Hex | undefined
  }
  type Data = {
    escrowId: Hex
    /** RAW: atomic units, decimal. */
    amountRaw: string
    token: Address
    /** The transaction, when the gateway sent it; `null` when the move was read off the contract's state. */
    transaction: Hex | null
  }
}
