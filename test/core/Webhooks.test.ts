import { afterAll, describe, expect, test } from 'bun:test'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory } from '../../adapters/store/memory.js'
import * as Outbound from '../../core/Outbound.js'
import type * as Queue from '../../core/Queue.js'
import * as Webhooks from '../../core/Webhooks.js'

const owner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
// Answers 500 to the first `failing` deliveries, 204 after.
let failing = 0
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  reusePort: false,
  async fetch(request) {
    await request.text()
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
})
