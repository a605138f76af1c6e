import { type Address, getAddress } from 'viem'
import { NotFoundError } from '../../core/Errors.js'
import * as Events from '../../core/Events.js'
import type * as Module from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import * as Queue from '../../core/Queue.js'
import type { Store } from '../../core/Store.js'
import * as Webhooks from '../../core/Webhooks.js'
import type { ListQuery, RegisterBody, WebhookBody } from './schema.js'

/** What the webhooks service needs. */
export type Deps = {
  /** Webhook and delivery records. */
  store: Store
  /** The delivery queue. */
  queue: Queue.Queue
  /** The guard in front of every receiver URL. */
  outbound: Outbound.Guard
  /** Delivery policy. */
  policy: Webhooks.Policy
  /** What became of a paid call's payment: an event a paid call emitted waits for it. Absent where nothing is paid. */
  paymentOutcome?: Module.Ports['paymentOutcome'] | undefined
}

/** Refuses a URL the outbound guard refuses: a 400 naming `url`, before payment. */
export async function preflight(deps: Pick<Deps, 'outbound'>, body: { url?: unknown }) {
  if (typeof body?.url !== 'string') return
  const allowed = await deps.outbound.check(body.url)
  if (!allowed.ok) throw Outbound.toError(allowed, { field: 'url' })
}

/**
 * Registers a webhook of the payer; the secret is in this answer only. The original gateway's event names are kept as
 * given; the answer says which of ours each stands for and which are never emitted here, and why.
 */
export async function register(deps: Deps, input: RegisterBody & { caller: Address }) {
  await preflight(deps, input)
  const id = `wh_${crypto.randomUUID().replaceAll('-', '')}`
  const secret = Webhooks.newSecret()
  const value: Webhooks.Registered = {
    url: input.url,
    events: input.events,
    secret,
    status: 'active',
    failures: 0,
    createdAt: new Date().toISOString(),
    metadata: input.metadata ?? {},
  }
  await deps.store.insert({ collection: Webhooks.webhooks, id, owners: [input.caller], value, createdAt: new Date() })
  const original = input.events.filter((name) => Object.hasOwn(Events.originalTypes, name)) as Events.OriginalType[]
  return {
    id,
    secret,
    status: value.status,
    url: value.url,
    events: value.events,
    metadata: value.metadata,
    createdAt: value.createdAt,
    eventMap: Object.fromEntries(original.map((name) => [name, Events.originalTypes[name].type])),
    neverEmitted: Object.fromEntries(
      original.filter((name) => Events.toType(name) === null).map((name) => [name, Events.originalTypes[name].why]),
    ),
  }
}

/** The payer's webhook, or a 404 (someone else's is a 404 too). */
async function owned(deps: Deps, id: string, caller: Address) {
  const record = await deps.store.get<Webhooks.Registered>(Webhooks.webhooks, id)
  if (!record?.owners.includes(getAddress(caller))) throw new NotFoundError(`No webhook ${id}.`)
  return record
}

/** Sends a signed `test.ping` now and answers whether the receiver answered 2xx. */
export async function test(deps: Deps, input: WebhookBody & { caller: Address }) {
  const record = await owned(deps, input.webhookId, input.caller)
  const event = {
    id: `evt_${crypto.randomUUID().replaceAll('-', '')}`,
    type: 'test.ping' as const,
    timestamp: new Date().toISOString(),
    data: { webhookId: record.id },
  }
  const endpoint = { collection: Webhooks.webhooks, id: record.id }
  const id = Webhooks.messageId(event.id, endpoint)
  const attempt = await Webhooks.post(deps.outbound, {
    url: record.value.url,
    secret: record.value.secret,
    id,
    event,
    timeoutMs: deps.policy.timeoutMs,
  })
  const delivered = Webhooks.delivered(attempt)
  // The original gateway's `lastTriggered` counts a test; its failure count does not, nor does ours.
  const lastDelivery = { id, status: delivered ? 'delivered' : 'failed', at: attempt.at, code: attempt.code } as const
  await deps.store.update<Webhooks.Registered>(Webhooks.webhooks, record.id, (current) =>
    Webhooks.endpointTransition(current.value, { type: 'tested', lastDelivery }),
  )
  const pending: Webhooks.Delivery = { endpoint, eventId: event.id, type: event.type, status: 'pending', attempts: [] }
  await deps.store.insert<Webhooks.Delivery>({
    collection: Webhooks.deliveries,
    id,
    owners: [input.caller],
    value: Webhooks.deliveryTransition(pending, { type: 'attempted', attempt, last: true }),
    createdAt: new Date(),
  })
  return {
    delivered,
    webhookId: record.id,
    url: record.value.url,
    testPayload: { event: event.type, webhookId: record.id, data: event.data, timestamp: event.timestamp },
    messageId: id,
    status: attempt.code ?? null,
    error: attempt.error ?? null,
  }
}

/**
 * The payer's webhooks (no secrets), each with its recent deliveries and their attempts, only those in `status` when
 * given; `lastTriggered` and `failCount` are the original gateway's names of `lastDelivery.at` and `failures`.
 */
export async function list(deps: Deps, input: ListQuery & { caller: Address }) {
  const [registered, recent] = await Promise.all([
    deps.store.list<Webhooks.Registered>(Webhooks.webhooks, { owner: input.caller, limit: 100 }),
    deps.store.list<Webhooks.Delivery>(Webhooks.deliveries, { owner: input.caller, limit: 100 }),
  ])
  const chosen =
    input.status === undefined ? registered : registered.filter(({ value }) => value.status === input.status)
  const webhooks = chosen.map(({ id, value }) => ({
    id,
    url: value.url,
    events: value.events,
    status: value.status,
    failures: value.failures ?? 0,
    failCount: value.failures ?? 0,
    createdAt: value.createdAt,
    metadata: value.metadata ?? {},
    lastDelivery: value.lastDelivery ?? null,
    lastTriggered: value.lastDelivery?.at ?? null,
    deliveries: recent
      .filter(
        (delivery) => delivery.value.endpoint.collection === Webhooks.webhooks && delivery.value.endpoint.id === id,
      )
      .slice(0, 10)
      .map((delivery) => ({ id: delivery.id, ...delivery.value, endpoint: undefined })),
  }))
  return { webhooks, total: webhooks.length }
}

/** Deletes the payer's webhook: nothing more is delivered to it. */
export async function remove(deps: Deps, input: WebhookBody & { caller: Address }) {
  await owned(deps, input.webhookId, input.caller)
  return { deleted: await deps.store.remove(Webhooks.webhooks, input.webhookId), webhookId: input.webhookId }
}

/**
 * Worker of the outbox: fans each event out to the owner's subscribed webhooks; an event a paid call emitted once that
 * call's payment is paid (looked at again with backoff while undecided), and never when it was not.
 */
export async function fanOut(deps: Deps, item: Pick<Queue.Claim, 'payload' | 'attempts'>): Promise<Module.Outcome> {
  const event = item.payload as Events.Event
  if (event.payment && deps.paymentOutcome) {
    const outcome = await deps.paymentOutcome(event.payment)
    if (outcome.state === 'undecided') {
      const delay = Queue.backoff(item.attempts, { baseMs: 1_000, maxMs: 60_000 })
      return { retryAt: new Date(Date.now() + delay), error: 'payment_undecided' }
    }
    // The call was never paid: its writes were taken back, and what it emitted is not told to anyone.
    if (outcome.state === 'unpaid') return { done: true, result: { deliveries: 0, dropped: outcome.reason } }
  }
  const queued = await Webhooks.fanOut({ store: deps.store, queue: deps.queue, event })
  return { done: true, result: { deliveries: queued } }
}
