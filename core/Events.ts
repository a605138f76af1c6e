import { type Address, getAddress } from 'viem'
import type { Enqueue, Queue } from './Queue.js'

/**
 * Events of the gateway, recorded in a transactional outbox and fanned out to the owner's subscribed webhooks. An
 * event is written with the store change that caused it (`store.insert(record, { enqueue: [events.outbox(event)] })`)
 * or on its own (`events.emit(event)`); a worker later claims it from the outbox queue and enqueues one signed
 * delivery per subscribed webhook, each with a stable id, so the same event reaches a receiver with the same
 * `webhook-id` however often it is retried or redelivered after a crash.
 */

/** Every event name, with what its `data` carries. A webhook subscribes to some of them, or to `*`. */
export const types = {
  'test.ping': 'Sent by `/api/v1/webhook/test`: `{ webhookId }`.',
  'payment.settled':
    'A payment to this gateway settled: `{ payer, amount, asset, network, transaction, resource }` (amount in atomic units).',
  'batch.built': 'A batch payment transaction was built: `{ chain, token, recipients, total, transaction }`.',
  'payroll.built': 'A payroll run transaction was built: `{ chain, token, recipients, total, transaction }`.',
  'invoice.paid': 'An invoice was paid: `{ invoiceId, amount, token, transaction, payer }`.',
  'escrow.funded': 'An escrow was funded: `{ escrowId, amount, token, transaction }`.',
  'escrow.released': 'An escrow was released to its payee: `{ escrowId, amount, token, transaction }`.',
  'escrow.cancelled': 'An escrow was cancelled and refunded: `{ escrowId, amount, token, transaction }`.',
  'transfer.seen': 'A watched transfer was seen on chain: `{ from, to, token, amount, transaction, blockNumber }`.',
  'cron.triggered':
    'A cron job ran (sent to its `callback_url`): `{ jobId, action, run, maxRuns, scheduledFor, transaction? }`.',
  'compute.completed':
    'A compute job ended and its payment was settled or released: `{ jobId, status, result?, payment: { state, transaction } }`.',
  'gpu.completed':
    'A GPU run ended and its payment was settled or released: `{ jobId, status, result?, payment: { state, transaction } }`.',
  'robot.task.updated': 'A robot task changed state: `{ taskId, status }`.',
} as const

/** An event name. */
export type Type = keyof typeof types

/** Whether `name` is an event name. */
export function isType(name: string): name is Type {
  return Object.hasOwn(types, name)
}

/** An event as it is recorded and delivered (the webhook body is `{ type, timestamp, data }`). */
export type Event<data = unknown> = {
  /** Stable id: the same id is one event, however often it is emitted. */
  id: string
  /** Its name. */
  type: Type
  /** The payer whose webhooks receive it. */
  owner: Address
  /** What happened (JSON; amounts as decimal strings). */
  data: data
  /** When it happened, ISO 8601. */
  timestamp: string
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
}

/** The events port on a queue. */
export function events(parameters: { queue: Queue }): Events {
  const { queue } = parameters
  const outbox = <data>(event: Emit<data>): Enqueue<Event<data>> => {
    const recorded: Event<data> = {
      id: event.id ?? `evt_${crypto.randomUUID().replaceAll('-', '')}`,
      type: event.type,
      owner: getAddress(event.owner),
      data: event.data,
      timestamp: (event.timestamp ?? new Date()).toISOString(),
    }
    return { queue: outboxQueue, id: recorded.id, payload: recorded }
  }
  return {
    outbox,
    async emit(event) {
      const item = outbox(event)
      await queue.enqueue([item])
      return item.payload
    },
  }
}
