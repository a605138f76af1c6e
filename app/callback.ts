import type { TSchema } from '@sinclair/typebox'
import type { Address } from 'viem'
import * as Catalog from '../core/Catalog.js'
import { ValidationError } from '../core/Errors.js'
import type * as Events from '../core/Events.js'
import { isEvmPayer } from '../core/Ledger.js'
import type { Holding, Outcome, Paid, PaymentOutcome } from '../core/Module.js'
import * as Outbound from '../core/Outbound.js'
import * as Queue from '../core/Queue.js'
import type { Store } from '../core/Store.js'
import * as Webhooks from '../core/Webhooks.js'
import type { createGateway } from './gateway.js'
import * as RequestId from './request-id.js'

// The original gateway's "loop-native webhooks": any paid call may name a `callback_url`, and once the call has
// succeeded and its payment is final, its answer is POSTed there, signed per Standard Webhooks with a secret of that
// call's own. The gateway takes the field out of the body before the route's schema sees it, checks it before the 402,
// and after the handler writes the callback's endpoint record, with an item of the callback queue, inside the paid
// call: the write goes through the call's journal (`paid.journal`), so a call that is never paid has it taken back. The queue's worker
// waits for the payment's outcome, then hands the delivery to the webhooks family's delivery queue (the same signing,
// outbound guard and retries as every webhook). Written before the settlement, the callback survives a crash between
// the settlement's confirmation and anything after it.

/** The body member a paid call names its callback with, as the original gateway's clients send it. */
export const field = 'callback_url'

/** The store collection of callbacks: the endpoint record (`url`, `secret`, `status`) with the call and its payment. */
export const collection = 'call_callbacks'

/** The queue whose items wait for a call's payment, then hand its callback to the delivery queue. */
export const queueName = 'callback'

/** The event a callback is. */
export const eventType: Events.Type = 'call.completed'

/** What a callback delivers, and how, in one sentence: discovery says it once. */
export const description =
  'Every paid POST call takes an optional `callback_url` (http or https): once the call has succeeded and its payment is ' +
  'settled, its answer is POSTed there as a `call.completed` event `{ requestId, route, status, answer, payment }`, ' +
  'signed per Standard Webhooks with the `webhook.webhook_secret` the answer carries (shown once) and retried with ' +
  'backoff; a call that fails or is never paid sends nothing. A URL the outbound guard refuses is a 400 before payment.'

/** Why no call takes a callback here. */
export const unserved =
  'This gateway delivers no callbacks: `callback_url` needs the webhooks family (a store, a queue and the outbound ' +
  'guard) and payment settlement. Nothing is charged.'

/** The JSON Schema of `callback_url` in a paid call's body, for discovery. */
export const property = {
  type: 'string',
  format: 'uri',
  description:
    'Where the answer is POSTed once this call has succeeded and its payment is settled: a `call.completed` event ' +
    'signed per Standard Webhooks with the `webhook.webhook_secret` of the answer. http or https; refused (400, ' +
    'before payment) when the outbound guard refuses it.',
} as const

/** A callback as stored: its endpoint, the call it reports and the payment that decides whether it goes. */
export type Callback = Webhooks.Endpoint & {
  /** The call as answered. */
  call: {
    /** The request's id (`X-Request-Id`). */
    requestId: string | null
    /** `"METHOD path"` of the catalog entry called. */
    route: string
    /** HTTP status of the answer. */
    status: number
    /** The JSON body the handler answered (without the `webhook` member the gateway adds). */
    answer: Record<string, unknown>
  }
  /** The call's payment. */
  payment: Holding
}

/**
 * Takes `callback_url` out of a paid POST call's JSON body, in place, so that the route's schema never sees it: its
 * value, or `undefined` when the body has none, the call is free or not a POST, or the route's own schema reads
 * `callback_url` with a meaning of its own (a cron job's runs, a robot task's updates).
 */
export function take(parameters: take.Parameters): { url: unknown } | undefined {
  const { entry, schema, body } = parameters
  if (entry.method !== 'POST' || Catalog.isFree(entry)) return undefined
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, field)) return undefined
  if (declares(schema)) return undefined
  const record = body as Record<string, unknown>
  const url = record[field]
  delete record[field]
  return { url }
}

export declare namespace take {
  type Parameters = {
    /** The entry called. */
    entry: Catalog.Entry
    /** The route's body schema. */
    schema: TSchema | undefined
    /** The parsed body, before validation. */
    body: unknown
  }
}

/** Whether a body schema (or any of its alternatives) names `callback_url`. */
function declares(schema: TSchema | undefined): boolean {
  if (schema === undefined) return false
  if (Object.hasOwn((schema.properties as object | undefined) ?? {}, field)) return true
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].some(declares)
}

/** Callbacks of paid calls on the gateway's store, queue, outbound guard and payment ledger. */
export function callbacks(parameters: callbacks.Parameters): callbacks.ReturnType {
  const { store, queue, outbound, outcome: outcomeOf } = parameters

  /**
   * Worker of the callback queue: once the call's payment is settled, enqueues the signed delivery of its answer (its
   * id stable, so a worker that dies after enqueueing enqueues it once); a call never paid has its callback removed;
   * an undecided one is looked at again with backoff (a job's payment waits for the job).
   */
  async function forward(item: Queue.Claim): Promise<Outcome> {
    const { id } = item.payload as { id: string }
    const record = await store.get<Callback>(collection, id)
    if (!record) return { done: true, result: { delivered: false, reason: 'the call was not paid' } }
    const outcome = await outcomeOf(record.value.payment)
    if (outcome.state === 'undecided') {
      const delay = Queue.backoff(item.attempts, { baseMs: 1_000, maxMs: 60_000 })
      return { retryAt: new Date(Date.now() + delay), error: 'payment_undecided' }
    }
    if (outcome.state === 'unpaid') {
      await store.remove(collection, id)
      return { done: true, result: { delivered: false, reason: outcome.reason } }
    }
    const endpoint = { collection, id }
    const event = {
      id: `${eventType}:${id}`,
      type: eventType,
      timestamp: record.createdAt.toISOString(),
      data: { ...record.value.call, payment: outcome.payment },
    }
    await queue.enqueue([Webhooks.deliveryItem({ endpoint, owner: record.owners[0], event })])
    return { done: true, result: { delivered: true, messageId: Webhooks.messageId(event.id, endpoint) } }
  }

  return {
    async check(url) {
      if (typeof url !== 'string')
        throw new ValidationError({
          field,
          message: 'must be a string: the http or https URL that receives the answer once the call is paid',
        })
      const allowed = await outbound.check(url)
      if (!allowed.ok) throw Outbound.toError(allowed, { field })
    },

    async attach({ request, url, route, status, response, paid }) {
      const holding = paid?.held
      if (!paid || !holding) return response
      const read = await answerOf(response)
      if (!read.answer) return read.response
      const { answer } = read
      const id = `cb_${crypto.randomUUID().replaceAll('-', '')}`
      const secret = Webhooks.newSecret()
      const owner: Address | undefined =
        holding.type === 'channel' ? holding.payer : isEvmPayer(holding.payer) ? holding.payer : undefined
      const value: Callback = {
        url,
        secret,
        status: 'active',
        failures: 0,
        call: { requestId: RequestId.of(request) ?? null, route, status, answer },
        payment: holding,
      }
      await paid.journal.insert(
        { collection, id, owners: owner ? [owner] : [], value, createdAt: new Date() },
        { enqueue: [{ queue: queueName, id, payload: { id } }] },
      )
      // A job's own `webhook` (a GPU run's) stays in the answer beside this one's members.
      const own = answer.webhook
      const webhook = {
        ...(typeof own === 'object' && own !== null && !Array.isArray(own) ? own : {}),
        webhook_id: id,
        webhook_secret: secret,
        subscribed_events: [eventType],
      }
      const answered = { ...answer, webhook }
      if (!(response instanceof Response)) return answered
      const headers = new Headers(response.headers)
      headers.delete('content-length')
      return new Response(JSON.stringify(answered), { status: response.status, headers })
    },

    worker: { queue: queueName, concurrency: 10, leaseMs: Queue.defaultLeaseMs, run: forward },
  }
}

/**
 * The JSON object a handler answered, and the answer to hand on (a `Response` read here is rebuilt from its text).
 * None for a stream, a body that is not JSON or not an object: such an answer has no callback.
 */
async function answerOf(response: unknown): Promise<{ answer?: Record<string, unknown>; response: unknown }> {
  if (!(response instanceof Response)) return { answer: isObject(response) ? response : undefined, response }
  const type = response.headers.get('content-type') ?? ''
  if (!/\bjson\b/.test(type) || type.includes('text/event-stream')) return { response }
  const text = await response.text()
  const rebuilt = new Response(text, { status: response.status, headers: response.headers })
  try {
    const parsed: unknown = JSON.parse(text)
    return { answer: isObject(parsed) ? parsed : undefined, response: rebuilt }
  } catch {
    return { response: rebuilt }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export declare namespace callbacks {
  type Parameters = {
    /** The gateway's store, where the worker reads callbacks and marks them delivered. */
    store: Store
    /** The durable queue. */
    queue: Queue.Queue
    /** The guard every callback URL passes, before the 402 and at each delivery. */
    outbound: Outbound.Guard
    /** What became of a call's payment. */
    outcome: (held: Holding) => Promise<PaymentOutcome>
  }
  type ReturnType = {
    /** Refuses, before the 402, a `callback_url` that is not a string or that the outbound guard refuses (400). */
    check: (url: unknown) => Promise<void>
    /**
     * After a paid call's handler succeeded, before its payment is settled: writes its callback (journaled with the
     * payment) and answers the answer with its `webhook` member; the answer as it was when it is not a JSON object or
     * nothing pays for the call (a re-read by signing in).
     */
    attach: (parameters: {
      /** The request. */
      request: Request
      /** The checked `callback_url`. */
      url: string
      /** `"METHOD path"` of the entry called. */
      route: string
      /** HTTP status of the answer. */
      status: number
      /** What the handler returned. */
      response: unknown
      /** The paid call: its payment, and the journal the callback is written through. */
      paid: Paid | undefined
    }) => Promise<unknown>
    /** The callback queue's worker. */
    worker: createGateway.Worker
  }
}
