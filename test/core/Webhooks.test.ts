import { afterAll, describe, expect, test } from 'bun:test'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory } from '../../adapters/store/memory.js'
import { InvalidTransitionError } from '../../core/Errors.js'
import * as Outbound from '../../core/Outbound.js'
import type * as Queue from '../../core/Queue.js'
import * as Webhooks from '../../core/Webhooks.js'

const owner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
// Answers 500 to the first `failing` deliveries, 204 after; counts what it received.
let failing = 0
let received = 0
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  reusePort: false,
  async fetch(request) {
    await request.text()
    received++
    return new Response(null, { status: failing-- > 0 ? 500 : 204 })
  },
})
afterAll(() => receiver.stop(true))
const allowed = Outbound.parseAllowList('127.0.0.1')
if (!allowed.ok) throw new Error(allowed.message)
const guard = outbound({ allow: allowed.list, timeoutMs: 5_000 })
const policy = { timeoutMs: 5_000, maxAttempts: 1, retryBaseMs: 100, retryMaxMs: 1_000, disableAfter: 8 }

async function endpoint(store: ReturnType<typeof memory>) {
  const value: Webhooks.Registered = {
    url: `http://127.0.0.1:${receiver.port}/hook`,
    events: ['*'],
    secret: Webhooks.newSecret(),
    status: 'active',
    createdAt: new Date().toISOString(),
  }
  await store.insert({ collection: Webhooks.webhooks, id: 'wh_1', owners: [owner], value, createdAt: new Date() })
  return { collection: Webhooks.webhooks, id: 'wh_1' }
}

const claimOf = (endpoint: Webhooks.Payload['endpoint'], index: number): Queue.Claim<Webhooks.Payload> => {
  const item = Webhooks.deliveryItem({
    endpoint,
    owner,
    event: { id: `evt_${index}`, type: 'transfer.seen', timestamp: new Date().toISOString(), data: { index } },
  })
  return { ...item, dueAt: new Date(), attempts: 1, state: 'pending', token: 't' } as never
}

describe('deliver', () => {
  test('behavior: deliveries ending together each count on their endpoint', async () => {
    const store = memory()
    const hook = await endpoint(store)
    failing = 5
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        Webhooks.deliver({ store, outbound: guard, policy, item: claimOf(hook, index) }),
      ),
    )
    expect(outcomes.every((outcome) => 'failed' in outcome)).toBe(true)
    const after = await store.get<Webhooks.Registered>(hook.collection, hook.id)
    expect(after?.value).toMatchObject({ status: 'active', failures: 5, lastDelivery: { status: 'failed', code: 500 } })

    failing = 3
    await Promise.all(
      Array.from({ length: 3 }, (_, index) =>
        Webhooks.deliver({ store, outbound: guard, policy, item: claimOf(hook, 10 + index) }),
      ),
    )
    // Three more failures in a row make eight: disabled.
    expect((await store.get<Webhooks.Registered>(hook.collection, hook.id))?.value).toMatchObject({
      status: 'disabled',
      failures: 8,
    })
  })

  test('behavior: an item claimed again after its delivery ended is not sent again', async () => {
    const store = memory()
    const hook = await endpoint(store)
    failing = 0
    const item = claimOf(hook, 20)
    expect(await Webhooks.deliver({ store, outbound: guard, policy, item })).toEqual({
      done: true,
      result: { code: 204 },
    })
    const before = received
    expect(await Webhooks.deliver({ store, outbound: guard, policy, item })).toEqual({
      done: true,
      result: { code: 204 },
    })
    expect(received).toBe(before)
    expect((await store.get<Webhooks.Delivery>(Webhooks.deliveries, item.id))?.value.attempts).toHaveLength(1)
  })
})

const lastDelivery = (status: 'delivered' | 'failed', code: number): Webhooks.LastDelivery => ({
  id: 'msg_1',
  status,
  at: '2030-01-01T00:00:00.000Z',
  code,
})

describe('endpointTransition', () => {
  const active: Webhooks.Endpoint = { url: 'https://example.com/hook', secret: 'whsec_x', status: 'active' }
  const ended = (ok: boolean, code: number, gone = false) =>
    ({
      type: 'delivery_ended',
      ok,
      gone,
      disableAfter: 2,
      lastDelivery: lastDelivery(ok ? 'delivered' : 'failed', code),
    }) as const

  test('default: a delivered ending resets the failures and is the last delivery', () => {
    expect(Webhooks.endpointTransition({ ...active, failures: 1 }, ended(true, 204))).toEqual({
      ...active,
      failures: 0,
      lastDelivery: lastDelivery('delivered', 204),
    })
  })

  test('behavior: the disableAfter-th failure in a row, or a 410, disables an active endpoint', () => {
    const once = Webhooks.endpointTransition(active, ended(false, 500))
    expect(once).toMatchObject({ status: 'active', failures: 1 })
    expect(Webhooks.endpointTransition(once, ended(false, 500))).toMatchObject({ status: 'disabled', failures: 2 })
    expect(Webhooks.endpointTransition(active, ended(false, 410, true))).toMatchObject({ status: 'disabled' })
  })

  test('behavior: a test ping is the last delivery and counts no failure; an ending after a cancel keeps it cancelled', () => {
    const tested = Webhooks.endpointTransition(active, { type: 'tested', lastDelivery: lastDelivery('failed', 500) })
    expect(tested).toEqual({ ...active, lastDelivery: lastDelivery('failed', 500) })
    const cancelled = Webhooks.endpointTransition(active, { type: 'cancelled' })
    expect(cancelled.status).toBe('cancelled')
    expect(Webhooks.endpointTransition(cancelled, ended(false, 410, true)).status).toBe('cancelled')
  })

  test('error: a cancelled endpoint is not cancelled again', () => {
    const cancelled = { ...active, status: 'cancelled' } as const
    expect(() => Webhooks.endpointTransition(cancelled, { type: 'cancelled' })).toThrow(InvalidTransitionError)
  })
})

describe('deliveryTransition', () => {
  const pending: Webhooks.Delivery = {
    endpoint: { collection: Webhooks.webhooks, id: 'wh_1' },
    eventId: 'evt_1',
    type: 'transfer.seen',
    status: 'pending',
    attempts: [],
  }
  const at = '2030-01-01T00:00:00.000Z'

  test('default: a 2xx delivers it', () => {
    expect(Webhooks.deliveryTransition(pending, { type: 'attempted', attempt: { at, code: 204 }, last: true })).toEqual(
      { ...pending, status: 'delivered', attempts: [{ at, code: 204 }] },
    )
  })

  test('behavior: a failed attempt keeps it pending, the last one fails it', () => {
    const retried = Webhooks.deliveryTransition(pending, { type: 'attempted', attempt: { at, code: 500 }, last: false })
    expect(retried).toMatchObject({ status: 'pending', attempts: [{ code: 500 }] })
    const failed = Webhooks.deliveryTransition(retried, {
      type: 'attempted',
      attempt: { at, error: 'timeout' },
      last: true,
    })
    expect(failed).toMatchObject({ status: 'failed', attempts: [{ code: 500 }, { error: 'timeout' }] })
  })

  test('error: an ended delivery takes no more attempts', () => {
    const delivered = { ...pending, status: 'delivered' } as const
    expect(() =>
      Webhooks.deliveryTransition(delivered, { type: 'attempted', attempt: { at, code: 204 }, last: true }),
    ).toThrow(InvalidTransitionError)
  })
})
