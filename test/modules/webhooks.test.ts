import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { sqlite as sqliteQueue } from '../../adapters/queue/sqlite.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import { sqlite as sqliteStore } from '../../adapters/store/sqlite.js'
import { silent } from '../../app/log.js'
import { workerRunner } from '../../app/workers.js'
import * as Events from '../../core/Events.js'
import { events as eventsPort } from '../../core/Events.js'
import type { Holding, PaymentOutcome } from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import * as Webhooks from '../../core/Webhooks.js'
import { manifest } from '../../modules/webhooks/index.js'
import * as Service from '../../modules/webhooks/service.js'
import { sqliteFixture } from '../support/backends.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'

// Receivers listen on 127.0.0.1, which the allow-list lets through as the stand-in of a public address; 127.0.0.2,
// not on it, stands in for a private one.
const allowed = Outbound.parseAllowList('127.0.0.1')
if (!allowed.ok) throw new Error(allowed.message)
const guard = outbound({ allow: allowed.list, timeoutMs: 5_000 })
const queue = memoryQueue()
const store = memoryStore({ queue })
const events = eventsPort({ queue })
const gateway = moduleGateway(manifest, {
  ports: { store, queue, outbound: guard, events },
  env: {
    WEBHOOK_RETRY_BASE_MS: '2',
    WEBHOOK_RETRY_MAX_MS: '10',
    WEBHOOK_MAX_ATTEMPTS: '4',
    WEBHOOK_DISABLE_AFTER: '2',
    WEBHOOK_TIMEOUT_MS: '300',
  },
})
const runner = workerRunner({ queue, workers: gateway.workers, logger: silent() })

/** A receiver that verifies each delivery with the standardwebhooks package and answers what `answer` says. */
function receiver(answer: (count: number) => number | 'hang') {
  const received: { id: string; type: string; data: unknown; verified: boolean }[] = []
  let secret = ''
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = await request.text()
      const headers = Object.fromEntries(request.headers)
      let verified = false
      let payload: { type: string; data: unknown } = { type: '', data: null }
      try {
        payload = new Webhook(secret).verify(body, headers) as typeof payload
        verified = true
      } catch {}
      received.push({ id: headers['webhook-id']!, type: payload.type, data: payload.data, verified })
      const status = answer(received.length)
      if (status === 'hang') await Bun.sleep(2_000)
      return new Response('ok', { status: status === 'hang' ? 200 : status })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    setSecret: (value: string) => {
      secret = value
    },
    stop: () => server.stop(true),
  }
}

const servers: { stop: () => unknown }[] = []
afterAll(() => {
  for (const server of servers) server.stop()
})

async function registered(answer: (count: number) => number | 'hang', events: string[] = ['*']) {
  const target = receiver(answer)
  servers.push(target)
  const body = await ok(await gateway.post('/api/v1/webhook/register', { url: target.url, events }, payers.alice))
  target.setSecret(body.secret)
  return { ...target, id: body.id as string, secret: body.secret as string }
}

/** Runs the workers until `done` holds (retries are due a few ms later). */
async function until(done: () => boolean | Promise<boolean>) {
  for (let round = 0; round < 500 && !(await done()); round++) {
    await runner.drain()
    await Bun.sleep(5)
  }
}

describe('webhook/register, list, delete', () => {
  test('registers with a fresh whsec_ secret shown once; list shows no secret', async () => {
    const hook = await registered(() => 200, ['invoice.paid'])
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const listed = await ok(await gateway.get('/api/v1/webhook/list', payers.alice))
    const mine = listed.webhooks.find((webhook: { id: string }) => webhook.id === hook.id)
    expect(mine).toMatchObject({ url: hook.url, events: ['invoice.paid'], status: 'active' })
    expect(JSON.stringify(listed)).not.toContain(hook.secret)
    expect((await ok(await gateway.get('/api/v1/webhook/list', payers.bob))).total).toBe(0)
  })

  test('error: a private URL, an unknown event or no events: 400 before payment', async () => {
    const before = gateway.settled.length
    const priv = await refused(
      await gateway.post('/api/v1/webhook/register', { url: 'http://127.0.0.2:8080/x', events: ['*'] }, payers.alice),
      400,
    )
    expect(priv.code).toBe('bad_request')
    await refused(
      await gateway.post('/api/v1/webhook/register', { url: 'https://example.com', events: ['nope'] }, payers.alice),
      400,
    )
    await refused(
      await gateway.post('/api/v1/webhook/register', { url: 'https://example.com', events: [] }, payers.alice),
      400,
    )
    expect(gateway.settled.length).toBe(before)
  })

  test("someone else's webhook is a 404 to test and delete; the owner deletes it", async () => {
    const hook = await registered(() => 200)
    await refused(await gateway.post('/api/v1/webhook/test', { webhookId: hook.id }, payers.bob), 404)
    await refused(await gateway.post('/api/v1/webhook/delete', { webhookId: hook.id }, payers.bob), 404)
    expect(await ok(await gateway.post('/api/v1/webhook/delete', { webhookId: hook.id }, payers.alice))).toMatchObject({
      deleted: true,
    })
    await events.emit({ type: 'invoice.paid', owner: payers.alice, data: {} })
    await runner.drain()
    expect(hook.received).toHaveLength(0)
  })
})

describe('from the original gateway (issue 34)', () => {
  test('behavior: its event names and metadata register; an alias receives our event, the rest are said never emitted', async () => {
    const target = receiver(() => 200)
    servers.push(target)
    const body = await ok(
      await gateway.post(
        '/api/v1/webhook/register',
        { url: target.url, events: ['payment.sent', 'escrow.funded', 'swap.completed'], metadata: { team: 'ops' } },
        payers.carol,
      ),
    )
    target.setSecret(body.secret)
    expect(body).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      secret: expect.stringMatching(/^whsec_/),
      status: 'active',
      url: target.url,
      events: ['payment.sent', 'escrow.funded', 'swap.completed'],
      metadata: { team: 'ops' },
      eventMap: { 'payment.sent': 'payment.settled', 'swap.completed': null },
      neverEmitted: { 'swap.completed': expect.stringContaining('caller') },
    })
    await events.emit({ type: 'escrow.funded', owner: payers.carol, data: { escrowId: 'e1' } })
    await until(() => target.received.some((delivery) => delivery.type === 'escrow.funded'))
    await until(() => target.received.some((delivery) => delivery.type === 'payment.settled'))
    expect(target.received.every((delivery) => delivery.verified)).toBe(true)
    expect(target.received.map((delivery) => delivery.type)).toContain('payment.settled')
    expect(target.received.map((delivery) => delivery.type)).not.toContain('invoice.paid')
  })

  test('behavior: all 19 of its event names are accepted', async () => {
    const original = [
      'payment.sent',
      'payment.received',
      'payment.failed',
      'batch.completed',
      'batch.failed',
      'escrow.created',
      'escrow.funded',
      'escrow.released',
      'escrow.cancelled',
      'escrow.expired',
      'invoice.created',
      'invoice.paid',
      'invoice.overdue',
      'swap.completed',
      'swap.failed',
      'bridge.completed',
      'bridge.failed',
      'payroll.completed',
      'payroll.failed',
    ]
    const target = receiver(() => 200)
    servers.push(target)
    const body = await ok(
      await gateway.post('/api/v1/webhook/register', { url: target.url, events: original }, payers.bob),
    )
    expect(body.events).toEqual(original)
    expect(Object.keys(body.neverEmitted).length + Object.values(body.eventMap).filter(Boolean).length).toBe(15)
    await ok(await gateway.post('/api/v1/webhook/delete', { webhookId: body.id }, payers.bob))
  })

  test('behavior: test answers url and testPayload; list filters by status and carries lastTriggered, failCount', async () => {
    const hook = await registered(() => 200, ['invoice.paid'])
    const before = (await ok(await gateway.get('/api/v1/webhook/list?status=active', payers.alice))).webhooks.find(
      (webhook: { id: string }) => webhook.id === hook.id,
    )
    expect(before).toMatchObject({ lastTriggered: null, failCount: 0, metadata: {} })
    const tested = await ok(await gateway.post('/api/v1/webhook/test', { webhookId: hook.id }, payers.alice))
    expect(tested).toMatchObject({
      delivered: true,
      webhookId: hook.id,
      url: hook.url,
      testPayload: { event: 'test.ping', webhookId: hook.id, data: { webhookId: hook.id } },
    })
    const after = (await ok(await gateway.get('/api/v1/webhook/list?status=active', payers.alice))).webhooks.find(
      (webhook: { id: string }) => webhook.id === hook.id,
    )
    // When the test was sent to the receiver: after the event was made, and before the list was read.
    const triggered = Date.parse(after.lastTriggered)
    expect(triggered).toBeGreaterThanOrEqual(Date.parse(tested.testPayload.timestamp))
    expect(triggered).toBeLessThanOrEqual(Date.now())
    const paused = await ok(await gateway.get('/api/v1/webhook/list?status=paused', payers.alice))
    expect(paused).toMatchObject({ webhooks: [], total: 0 })
  })

  test('error: a name neither gateway knows is still a 400', async () => {
    await refused(
      await gateway.post(
        '/api/v1/webhook/register',
        { url: 'https://example.com', events: ['swap.started'] },
        payers.alice,
      ),
      400,
    )
  })
})

describe('webhook/test', () => {
  test('sends a signed test.ping; delivered follows the receiver', async () => {
    const hook = await registered((count) => (count === 1 ? 204 : 500))
    const first = await ok(await gateway.post('/api/v1/webhook/test', { webhookId: hook.id }, payers.alice))
    expect(first.delivered).toBe(true)
    expect(hook.received[0]).toMatchObject({ type: 'test.ping', verified: true, data: { webhookId: hook.id } })
    const second = await ok(await gateway.post('/api/v1/webhook/test', { webhookId: hook.id }, payers.alice))
    expect(second).toMatchObject({ delivered: false, status: 500 })
  })
})

describe('deliveries', () => {
  test('an event reaches each subscribed webhook once, verified; others not', async () => {
    const paid = await registered(() => 200, ['invoice.paid'])
    const escrow = await registered(() => 200, ['escrow.funded'])
    await events.emit({ type: 'invoice.paid', owner: payers.alice, data: { invoiceId: 'inv_1', amount: '5' } })
    await until(() => paid.received.length > 0)
    await runner.drain()
    expect(paid.received).toEqual([
      expect.objectContaining({ type: 'invoice.paid', verified: true, data: { invoiceId: 'inv_1', amount: '5' } }),
    ])
    expect(escrow.received).toHaveLength(0)
  })

  test('a receiver failing twice gets the same webhook-id until it answers 2xx; attempts are visible', async () => {
    const hook = await registered((count) => (count <= 2 ? 503 : 200), ['transfer.seen'])
    await events.emit({ type: 'transfer.seen', owner: payers.alice, data: { amount: '1' } })
    await until(() => hook.received.length >= 3)
    await runner.drain()
    expect(hook.received).toHaveLength(3)
    expect(new Set(hook.received.map((delivery) => delivery.id)).size).toBe(1)
    expect(hook.received.every((delivery) => delivery.verified)).toBe(true)
    const listed = await ok(await gateway.get('/api/v1/webhook/list', payers.alice))
    const mine = listed.webhooks.find((webhook: { id: string }) => webhook.id === hook.id)
    expect(mine.deliveries[0]).toMatchObject({ status: 'delivered', id: hook.received[0]!.id })
    expect(mine.deliveries[0].attempts.map((attempt: { code: number }) => attempt.code)).toEqual([503, 503, 200])
    expect(mine.lastDelivery).toMatchObject({ status: 'delivered', code: 200 })
  })

  test('a 410 disables the webhook at once', async () => {
    const hook = await registered(() => 410, ['escrow.released'])
    await events.emit({ type: 'escrow.released', owner: payers.alice, data: {} })
    await until(() => hook.received.length >= 1)
    await runner.drain()
    await events.emit({ type: 'escrow.released', owner: payers.alice, data: {} })
    await runner.drain()
    expect(hook.received).toHaveLength(1)
    const listed = await ok(await gateway.get('/api/v1/webhook/list', payers.alice))
    expect(listed.webhooks.find((webhook: { id: string }) => webhook.id === hook.id).status).toBe('disabled')
  })

  test('a hanging receiver times out, is retried up to the maximum, and after two failed deliveries is disabled', async () => {
    const hook = await registered(() => 'hang', ['escrow.cancelled'])
    await events.emit({ type: 'escrow.cancelled', owner: payers.alice, data: { n: 1 } })
    await events.emit({ type: 'escrow.cancelled', owner: payers.alice, data: { n: 2 } })
    const status = async () =>
      (await ok(await gateway.get('/api/v1/webhook/list', payers.alice))).webhooks.find(
        (webhook: { id: string }) => webhook.id === hook.id,
      )
    await until(async () => (await status()).status === 'disabled')
    const final = await status()
    expect(final.status).toBe('disabled')
    expect(final.failures).toBe(2)
    expect(final.deliveries.every((delivery: { status: string }) => delivery.status === 'failed')).toBe(true)
    expect(final.deliveries[0].attempts).toHaveLength(4)
    expect(final.deliveries[0].attempts[0].error).toBe('timeout')
  }, 20_000)
})

describe('payment.settled', () => {
  test("a settled payment is the payer's payment.settled event, delivered to their webhook", async () => {
    const hook = await registered(() => 200, ['payment.settled'])
    // The register call above was itself paid: its settlement is the first payment.settled this webhook can see.
    await ok(await gateway.post('/api/v1/webhook/test', { webhookId: hook.id }, payers.alice))
    await until(() => hook.received.some((delivery) => delivery.type === 'payment.settled'))
    const settled = hook.received.filter((delivery) => delivery.type === 'payment.settled')
    expect(settled.length).toBeGreaterThanOrEqual(1)
    expect(settled[0]).toMatchObject({
      verified: true,
      data: {
        payer: payers.alice,
        resource: expect.stringContaining('/api/v1/webhook/'),
        amountRaw: expect.any(String),
      },
    })
  })
})

describe('subscriptions', () => {
  test('behavior: an event is wanted only by an owner with an active webhook listening for it', async () => {
    const own = memoryStore()
    const add = (id: string, owner: `0x${string}`, status: Webhooks.Status, events: Webhooks.Registered['events']) =>
      own.insert<Webhooks.Registered>({
        collection: 'webhooks',
        id,
        owners: [owner],
        value: {
          url: 'https://example.com/hook',
          secret: 'whsec_x',
          status,
          events,
          createdAt: '2026-01-01T00:00:00Z',
        },
        createdAt: new Date(),
      })
    const wanted = Webhooks.subscriptions(own)
    expect(await wanted(payers.alice, 'invoice.paid')).toBe(false)
    await add('a', payers.alice, 'active', ['invoice.paid'])
    await add('b', payers.bob, 'disabled', ['*'])
    expect(await wanted(payers.alice, 'invoice.paid')).toBe(true)
    expect(await wanted(payers.alice, 'payment.settled')).toBe(false)
    expect(await wanted(payers.bob, 'invoice.paid')).toBe(false)
    await add('c', payers.bob, 'active', ['*'])
    expect(await wanted(payers.bob, 'payment.settled')).toBe(true)
    // An owner's address in any case is the same owner.
    expect(await wanted(payers.bob.toLowerCase() as `0x${string}`, 'payment.settled')).toBe(true)
  })

  test('behavior: the questions of one turn are answered by one read of the store, each for its own owner', async () => {
    const own = memoryStore()
    let reads = 0
    const counted = {
      ...own,
      listOwned: ((collection, parameters) => {
        reads++
        return own.listOwned(collection, parameters)
      }) as typeof own.listOwned,
    }
    await own.insert<Webhooks.Registered>({
      collection: 'webhooks',
      id: 'a',
      owners: [payers.alice],
      value: {
        url: 'https://example.com/hook',
        secret: 'whsec_x',
        status: 'active',
        events: ['payment.settled'],
        createdAt: '2026-01-01T00:00:00Z',
      },
      createdAt: new Date(),
    })
    const wanted = Webhooks.subscriptions(counted)
    const answers = await Promise.all([
      wanted(payers.alice, 'payment.settled'),
      wanted(payers.bob, 'payment.settled'),
      wanted(payers.alice, 'invoice.paid'),
    ])
    expect(answers).toEqual([true, false, false])
    expect(reads).toBe(1)
    expect(await wanted(payers.bob, 'payment.settled')).toBe(false)
    expect(reads).toBe(2)
  })

  test('failure: a store that cannot be read fails every question of its turn', async () => {
    const own = memoryStore()
    const wanted = Webhooks.subscriptions({
      ...own,
      listOwned: async () => {
        throw new Error('the database is gone')
      },
    })
    const answers = await Promise.allSettled([
      wanted(payers.alice, 'payment.settled'),
      wanted(payers.bob, 'payment.settled'),
    ])
    expect(answers.map(({ status }) => status)).toEqual(['rejected', 'rejected'])
  })
})

describe('a crash mid-delivery', () => {
  test('the delivery is made again once its lease ends, by another instance, with the same webhook-id', async () => {
    const file = sqliteFixture('webhooks-crash', (path) => ({
      store: sqliteStore({ path }),
      queue: sqliteQueue({ path }),
    }))
    const first = file.open()
    const crashed = moduleGateway(manifest, {
      ports: { ...first, outbound: guard, events: eventsPort({ queue: first.queue }) },
      env: { WEBHOOK_RETRY_BASE_MS: '2' },
    })
    const target = receiver(() => 200)
    servers.push(target)
    const hook = await ok(
      await crashed.post('/api/v1/webhook/register', { url: target.url, events: ['invoice.paid'] }, payers.carol),
    )
    target.setSecret(hook.secret)
    await eventsPort({ queue: first.queue }).emit({ type: 'invoice.paid', owner: payers.carol, data: { n: 1 } })
    // The outbox worker fans out; then the first instance claims the delivery, POSTs it, and dies before completing.
    const fanOut = crashed.workers.find((worker) => worker.queue === 'events')!
    await workerRunner({ queue: first.queue, workers: [fanOut], logger: silent() }).drain()
    const [claimed] = await first.queue.claim<Webhooks.Payload>('webhook', { leaseMs: 90_000 })
    await Webhooks.post(guard, {
      url: target.url,
      secret: hook.secret,
      id: claimed!.id,
      event: claimed!.payload.event,
      timeoutMs: 5_000,
    })
    await first.queue.close()
    await first.store.close()
    // A restarted instance on the same file: nothing is due while the lease runs, the delivery once it ended.
    const second = file.open()
    const restarted = moduleGateway(manifest, {
      ports: { ...second, outbound: guard, events: eventsPort({ queue: second.queue }) },
    })
    let clock = new Date()
    const runner = workerRunner({ queue: second.queue, workers: restarted.workers, logger: silent(), now: () => clock })
    await runner.drain()
    expect(target.received).toHaveLength(1)
    clock = new Date(Date.now() + 91_000)
    await runner.drain()
    expect(target.received).toHaveLength(2)
    expect(target.received.every((delivery) => delivery.verified)).toBe(true)
    expect(new Set(target.received.map((delivery) => delivery.id)).size).toBe(1)
    expect((await second.queue.get('webhook', claimed!.id))?.state).toBe('done')
    await second.queue.close()
    await second.store.close()
    await file.teardown()
  })
})

describe('events of a paid call', () => {
  test('security: fanned out once its payment is paid, looked at again while undecided, dropped when never paid', async () => {
    const queue = memoryQueue()
    const store = memoryStore({ queue })
    const owner = payers.alice
    const policy = { timeoutMs: 300, maxAttempts: 1, retryBaseMs: 2, retryMaxMs: 10, disableAfter: 2 }
    await Service.register(
      { store, queue, outbound: guard, policy },
      { url: 'http://127.0.0.1:8080/hook', events: ['batch.built'], caller: owner },
    )
    const held: Holding = { type: 'ledger', payer: owner, nonce: `0x${'11'.repeat(32)}` }
    const outcomes: Record<string, PaymentOutcome> = {
      paid: { state: 'paid', payment: { payer: owner, amountRaw: '20000', transaction: `0x${'22'.repeat(32)}` } },
      undecided: { state: 'undecided' },
      unpaid: { state: 'unpaid', reason: 'the payment was failed' },
    }
    const fan = async (state: string) => {
      const deps = {
        store,
        queue,
        outbound: guard,
        policy,
        paymentOutcome: async () => outcomes[state]!,
      }
      const event = Events.under(eventsPort({ queue }), held).outbox({ type: 'batch.built', owner, data: { state } })
      expect(event.payload.payment).toEqual(held)
      const before = (await queue.pending())[Webhooks.deliveryQueue] ?? 0
      const outcome = await Service.fanOut(deps, { payload: event.payload, attempts: 0 })
      return { outcome, delivered: ((await queue.pending())[Webhooks.deliveryQueue] ?? 0) - before }
    }
    expect(await fan('paid')).toEqual({ outcome: { done: true, result: { deliveries: 1 } }, delivered: 1 })
    const undecided = await fan('undecided')
    expect(undecided.outcome).toMatchObject({ retryAt: expect.any(Date), error: 'payment_undecided' })
    expect(undecided.delivered).toBe(0)
    expect(await fan('unpaid')).toEqual({
      outcome: { done: true, result: { deliveries: 0, dropped: 'the payment was failed' } },
      delivered: 0,
    })
  })
})
