import { Webhook } from 'standardwebhooks'
import { type Address, getAddress, keccak256, toHex } from 'viem'
import { InvalidTransitionError } from './Errors.js'
import { type Event, type Type, toType } from './Events.js'
import { nextTurn } from './internal/nextTurn.js'
import * as Machine from './Machine.js'
import type { Outcome } from './Module.js'
import type { Guard } from './Outbound.js'
import * as Queue from './Queue.js'
import type { Store } from './Store.js'

/**
 * Signed deliveries of events, by the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256>`), signed with the `standardwebhooks` package so that any receiver
 * verifies them with its own library. A delivery goes to an endpoint record of the store (a registered webhook, a
 * cron job's callback): its URL, its secret and its state are read at each attempt, so a deleted or disabled endpoint
 * receives nothing more. An endpoint and a delivery each have one state machine ({@link endpointTransition},
 * {@link deliveryTransition}).
 */

/** The store collection of registered webhooks. */
export const webhooks = 'webhooks'

/** The store collection of delivery records (attempts, visible to the owner). */
export const deliveries = 'webhook_deliveries'

/** The queue of deliveries. */
export const deliveryQueue = 'webhook'

/** Whether deliveries go to an endpoint: `active`; `disabled` after repeated failures or a 410; `cancelled` by its owner. */
export type Status = 'active' | 'disabled' | 'cancelled'

/** The outcome of an endpoint's last delivery. */
export type LastDelivery = { id: string; status: 'delivered' | 'failed'; at: string; code?: number | undefined }

/** What every endpoint record holds, whatever else its collection keeps. */
export type Endpoint = {
  /** Where deliveries go (checked by the outbound guard at registration and at every attempt). */
  url: string
  /** The signing secret, `whsec_` and base64 of 32 random bytes. */
  secret: string
  /** Whether deliveries go. */
  status: Status
  /** Deliveries that failed in a row (reset by a success). */
  failures?: number | undefined
  /** The outcome of the last delivery. */
  lastDelivery?: LastDelivery | undefined
}

/** What happens to an endpoint. */
export type EndpointEvent =
  | {
      /** A delivery to it ended: delivered, failed for good, or answered 410. */
      type: 'delivery_ended'
      /** Delivered (a 2xx). */
      ok: boolean
      /** The receiver answered 410: the endpoint is disabled. */
      gone: boolean
      /** Failed deliveries in a row that disable it. */
      disableAfter: number
      /** What the delivery came to. */
      lastDelivery: LastDelivery
    }
  | {
      /** A test ping went to it: its outcome is the last delivery, and it counts no failure. */
      type: 'tested'
      /** What the ping came to. */
      lastDelivery: LastDelivery
    }
  | { /** Its owner ended it (a cancelled cron job's callback): nothing more is delivered to it. */ type: 'cancelled' }

/**
 * The next state of an endpoint (`Machine.Transition`). Pure. An ending is recorded whatever the status (a delivery in
 * flight may end after the endpoint was disabled); an active endpoint is disabled by a 410, or by its `disableAfter`th
 * failure in a row. Cancelling a cancelled endpoint throws {@link InvalidTransitionError}.
 */
export function endpointTransition<endpoint extends Endpoint>(endpoint: endpoint, event: EndpointEvent): endpoint {
  switch (event.type) {
    case 'delivery_ended': {
      const failures = event.ok ? 0 : (endpoint.failures ?? 0) + 1
      const disabled = endpoint.status === 'active' && (event.gone || failures >= event.disableAfter)
      return {
        ...endpoint,
        failures,
        status: disabled ? 'disabled' : endpoint.status,
        lastDelivery: event.lastDelivery,
      }
    }
    case 'tested':
      return { ...endpoint, lastDelivery: event.lastDelivery }
    case 'cancelled':
      if (endpoint.status === 'cancelled') throw new InvalidTransitionError('The endpoint is already cancelled.')
      return { ...endpoint, status: 'cancelled' }
  }
}

/** A registered webhook as stored. */
export type Registered = Endpoint & {
  /** Subscribed event names as the subscriber gave them (ours, the original gateway's, or `*`). */
  events: readonly string[]
  /** When it was registered. */
  createdAt: string
  /** The subscriber's own JSON, kept and shown back, never sent. @default {} */
  metadata?: Record<string, unknown> | undefined
}

/** One delivery attempt. */
export type Attempt = {
  /** When it was sent. */
  at: string
  /** The receiver's HTTP status, when it answered. */
  code?: number | undefined
  /** Why it did not count as delivered. */
  error?: string | undefined
}

/** A delivery record. */
export type Delivery = {
  /** The endpoint it goes to. */
  endpoint: { collection: string; id: string }
  /** The event id and type. */
  eventId: string
  type: Type
  /** `pending`, `delivered` or `failed`. */
  status: 'pending' | 'delivered' | 'failed'
  /** Every attempt, oldest first. */
  attempts: Attempt[]
}

/** What happens to a delivery: one attempt, `last` when none follows it whatever it came to. */
export type DeliveryEvent = { type: 'attempted'; attempt: Attempt; last: boolean }

/**
 * The next state of a delivery (`Machine.Transition`): a 2xx delivers it, a failed last attempt fails it, another
 * keeps it pending. Pure. A delivered or failed delivery takes no attempt: {@link InvalidTransitionError}.
 */
export function deliveryTransition(delivery: Delivery, event: DeliveryEvent): Delivery {
  if (delivery.status !== 'pending')
    throw new InvalidTransitionError(`A ${delivery.status} delivery takes no more attempts.`)
  const status = delivered(event.attempt) ? 'delivered' : event.last ? 'failed' : 'pending'
  return { ...delivery, status, attempts: [...delivery.attempts, event.attempt] }
}

/** The payload of a queued delivery. */
export type Payload = {
  /** The endpoint record. */
  endpoint: { collection: string; id: string }
  /** The owner of the endpoint and event; absent for a call paid from Solana, which has no EVM owner. */
  owner?: Address | undefined
  /** The event. */
  event: Pick<Event, 'id' | 'type' | 'timestamp' | 'data'>
}

/** Delivery policy. */
export type Policy = {
  /** Time limit of one POST, in ms. */
  timeoutMs: number
  /** Attempts before a delivery is failed. */
  maxAttempts: number
  /** First retry delay (ms), doubled per attempt, with full jitter. */
  retryBaseMs: number
  /** Longest retry delay (ms). */
  retryMaxMs: number
  /** Failed deliveries in a row after which the endpoint is disabled. */
  disableAfter: number
}

/** A new signing secret: `whsec_` and base64 of 32 bytes from the CSPRNG. */
export function newSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`
}

/** The stable `webhook-id` of `event` delivered to `endpoint`: the same on every retry and after a crash. */
export function messageId(eventId: string, endpoint: { collection: string; id: string }): string {
  return `msg_${keccak256(toHex(`${eventId}\u0000${endpoint.collection}\u0000${endpoint.id}`)).slice(2, 34)}`
}

/** The queue item delivering `event` to `endpoint`. */
export function deliveryItem(payload: Payload): Queue.Enqueue<Payload> {
  return { queue: deliveryQueue, id: messageId(payload.event.id, payload.endpoint), payload }
}

/** The body and Standard Webhooks headers of one delivery, signed now. */
export function sign(parameters: { secret: string; id: string; event: Payload['event']; now?: Date }) {
  const { secret, id, event, now = new Date() } = parameters
  const body = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data })
  const signature = new Webhook(secret).sign(id, now, body)
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'gateway-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    },
  }
}

/** POSTs one signed delivery through the outbound guard: the receiver's status, or why there was none. */
export async function post(
  outbound: Guard,
  parameters: { url: string; secret: string; id: string; event: Payload['event']; timeoutMs: number },
): Promise<Attempt> {
  const { body, headers } = sign(parameters)
  const at = new Date().toISOString()
  // The port's request, which checks the URL and every redirect against the allow-list.
  const { fetch: request } = outbound
  const answer = await request(parameters.url, {
    method: 'POST',
    headers,
    body,
    timeoutMs: parameters.timeoutMs,
    maxBytes: 65_536,
  })
  if (!answer.ok) return { at, error: answer.reason }
  return { at, code: answer.status }
}

/** Whether an attempt was delivered (the receiver answered 2xx). */
export function delivered(attempt: Attempt): boolean {
  return attempt.code !== undefined && attempt.code >= 200 && attempt.code < 300
}

/**
 * Asks whether one of an owner's active webhooks listens for events of a type now. The questions asked in one turn of
 * the event loop (the payers of a settlement batch) are answered by one read of the store.
 */
export function subscriptions(store: Store): (owner: Address, type: Type) => Promise<boolean> {
  type Asked = { owner: Address; type: Type; resolve: (wanted: boolean) => void; reject: (error: unknown) => void }
  let asked: Asked[] = []
  async function answer() {
    const group = asked
    asked = []
    try {
      const owners = [...new Set(group.map(({ owner }) => owner))]
      const registered = await store.listOwned<Registered>(webhooks, { owners, limit: 100 })
      for (const { owner, type, resolve } of group)
        resolve(registered.some(({ owners, value }) => owners.includes(owner) && listens(value, type)))
    } catch (error) {
      for (const { reject } of group) reject(error)
    }
  }
  return (owner, type) =>
    new Promise((resolve, reject) => {
      if (asked.length === 0) nextTurn(answer)
      asked.push({ owner: getAddress(owner), type, resolve, reject })
    })
}

/** How a delivery ended, as its endpoint records it. */
type Ending = Extract<EndpointEvent, { type: 'delivery_ended' }>

const endings = new WeakMap<Store, (endpoint: Payload['endpoint'], ending: Ending) => Promise<void>>()

/**
 * Records deliveries' endings on their endpoints, in the order they ended. Every delivery to an endpoint writes the
 * same record, so the endings of one turn of the event loop, and those that end while an endpoint's write is in
 * flight, go in one update of it: concurrent deliveries to one receiver would otherwise queue on its row lock, one
 * transaction each.
 */
function endingsOf(store: Store): (endpoint: Payload['endpoint'], ending: Ending) => Promise<void> {
  const known = endings.get(store)
  if (known) return known
  type Waiting = { ending: Ending; resolve: () => void; reject: (error: unknown) => void }
  const queued = new Map<string, { endpoint: Payload['endpoint']; waiting: Waiting[] }>()
  async function write(key: string) {
    const slot = queued.get(key)!
    const group = slot.waiting
    slot.waiting = []
    try {
      await store.update<Endpoint>(slot.endpoint.collection, slot.endpoint.id, (current) =>
        group.reduce((endpoint, { ending }) => endpointTransition(endpoint, ending), current.value),
      )
      for (const { resolve } of group) resolve()
    } catch (error) {
      for (const { reject } of group) reject(error)
    }
    if (slot.waiting.length > 0) nextTurn(() => write(key))
    else queued.delete(key)
  }
  const record = (endpoint: Payload['endpoint'], ending: Ending) =>
    new Promise<void>((resolve, reject) => {
      const key = `${endpoint.collection} ${endpoint.id}`
      const slot = queued.get(key)
      if (slot) slot.waiting.push({ ending, resolve, reject })
      else {
        queued.set(key, { endpoint, waiting: [{ ending, resolve, reject }] })
        nextTurn(() => write(key))
      }
    })
  endings.set(store, record)
  return record
}

/** Whether a webhook is active and subscribed to `type` (or to every event), under our name or the original's. */
function listens(webhook: Registered, type: Type): boolean {
  return webhook.status === 'active' && webhook.events.some((name) => name === '*' || toType(name) === type)
}

/** Fans an event from the outbox out to its owner's active webhooks subscribed to it. */
export async function fanOut(parameters: { store: Store; queue: Queue.Queue; event: Event }): Promise<number> {
  const { store, queue, event } = parameters
  const registered = await store.list<Registered>(webhooks, { owner: event.owner, limit: 100 })
  const items = registered
    .filter(({ value }) => listens(value, event.type))
    .map((record) =>
      deliveryItem({
        endpoint: { collection: webhooks, id: record.id },
        owner: event.owner,
        event: { id: event.id, type: event.type, timestamp: event.timestamp, data: event.data },
      }),
    )
  await queue.enqueue(items)
  return items.length
}

/**
 * One attempt of a queued delivery: reads the endpoint, POSTs, records the attempt, and says what the queue should
 * do: done on a 2xx; failed at once on a 410 (the endpoint is disabled) or a missing or inactive endpoint; otherwise a
 * retry with backoff until `maxAttempts`, then failed (and the endpoint disabled after `disableAfter` such in a row).
 */
export async function deliver(parameters: {
  store: Store
  outbound: Guard
  policy: Policy
  item: Queue.Claim<Payload>
}): Promise<Outcome> {
  const { store, outbound, policy, item } = parameters
  const { endpoint, owner, event } = item.payload
  const record = await store.get<Endpoint>(endpoint.collection, endpoint.id)
  if (record?.value.status !== 'active') return { failed: 'endpoint_inactive' }
  const inserted = await store.insert<Delivery>({
    collection: deliveries,
    id: item.id,
    owners: owner === undefined ? [] : [owner],
    value: { endpoint, eventId: event.id, type: event.type, status: 'pending', attempts: [] },
    createdAt: new Date(),
  })
  // An item claimed again after its delivery ended (its worker stopped before the queue heard) is not sent again.
  const known = inserted.ok ? undefined : (await store.get<Delivery>(deliveries, item.id))?.value
  const ended = known?.status === 'pending' ? undefined : known?.attempts.at(-1)
  if (ended) return delivered(ended) ? { done: true, result: { code: ended.code } } : { failed: errorOf(ended) }
  const attempt = await post(outbound, {
    url: record.value.url,
    secret: record.value.secret,
    id: item.id,
    event,
    timeoutMs: policy.timeoutMs,
  })
  const ok = delivered(attempt)
  const gone = attempt.code === 410
  const last = ok || gone || item.attempts >= policy.maxAttempts
  await store.update<Delivery>(deliveries, item.id, (current) =>
    Machine.refusing(() => deliveryTransition(current.value, { type: 'attempted', attempt, last })),
  )
  if (last)
    await endingsOf(store)(endpoint, {
      type: 'delivery_ended',
      ok,
      gone,
      disableAfter: policy.disableAfter,
      lastDelivery: { id: item.id, status: ok ? 'delivered' : 'failed', at: attempt.at, code: attempt.code },
    })
  if (ok) return { done: true, result: { code: attempt.code } }
  const error = errorOf(attempt)
  if (last) return { failed: error }
  const delay = Queue.backoff(item.attempts, { baseMs: policy.retryBaseMs, maxMs: policy.retryMaxMs })
  return { retryAt: new Date(Date.now() + delay), error }
}

/** Why an attempt did not count as delivered: the guard's or network's reason, or the receiver's status. */
function errorOf(attempt: Attempt): string {
  return attempt.error ?? `status_${attempt.code}`
}
