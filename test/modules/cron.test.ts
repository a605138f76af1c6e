import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { postgres as postgresQueue } from '../../adapters/queue/postgres.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import { postgres as postgresStore } from '../../adapters/store/postgres.js'
import { silent } from '../../app/log.js'
import { workerRunner } from '../../app/workers.js'
import { events as eventsPort } from '../../core/Events.js'
import type * as Module from '../../core/Module.js'
import * as Webhooks from '../../core/Webhooks.js'
import { manifest as cron } from '../../modules/cron/index.js'
import * as Service from '../../modules/cron/service.js'
import { manifest as webhooks } from '../../modules/webhooks/index.js'
import { postgresFixture } from '../support/backends.js'
import { moduleGateway, stubPayment, testGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'
import { loopbackOutbound, signedReceiver } from '../support/receiver.js'

const guard = loopbackOutbound()
const env = { WEBHOOK_RETRY_BASE_MS: '2', WEBHOOK_RETRY_MAX_MS: '10' }

const target = signedReceiver()
afterAll(() => target.stop())

describe('cron on one gateway', () => {
  const queue = memoryQueue()
  const store = memoryStore({ queue })
  const ports = { store, queue, outbound: guard, events: eventsPort({ queue }) }
  const gateway = moduleGateway(cron, { ports, env })
  const hooks = moduleGateway(webhooks, { ports, env })
  const both = testGateway({ families: [cron, webhooks], payment: stubPayment({ queue }).payment, ports, env })
  let clock = new Date()
  const runner = workerRunner({ queue, workers: both.workers, logger: silent(), now: () => clock })

  test('error: a 6-field, too frequent or invalid schedule, a private callback: 400 before payment', async () => {
    const body = { action: 'webhook.trigger', payload: {}, callback_url: target.url('/x') }
    for (const schedule of ['0 0 * * * *', '*/30 * * * *', '0,30 9 * * *', 'not a cron', '61 * * * *']) {
      const problem = await refused(await gateway.post('/api/v1/cron/create', { ...body, schedule }, payers.alice), 400)
      expect(problem.detail ?? problem.title).toBeDefined()
    }
    await refused(
      await gateway.post(
        '/api/v1/cron/create',
        { ...body, schedule: '0 * * * *', callback_url: 'http://127.0.0.2/x' },
        payers.alice,
      ),
      400,
    )
    await refused(
      await gateway.post(
        '/api/v1/cron/create',
        { ...body, action: 'batch.execute', schedule: '0 * * * *' },
        payers.alice,
      ),
      400,
    )
    expect(gateway.settled).toHaveLength(0)
  })

  test('runs fire as they fall due, signed, numbered, until maxRuns; list and cancel are the owner’s', async () => {
    const created = await ok(
      await gateway.post(
        '/api/v1/cron/create',
        {
          action: 'webhook.trigger',
          schedule: '0 */2 * * *',
          payload: { hello: 1 },
          callback_url: target.url('/a'),
          maxRuns: 3,
        },
        payers.alice,
      ),
    )
    target.secrets.set('/a', created.callback.secret)
    expect(created).toMatchObject({ status: 'active', timezone: 'UTC', runCount: 0, maxRuns: 3 })
    const next = new Date(created.nextRun)
    expect(next.getUTCMinutes()).toBe(0)
    expect(next.getUTCHours() % 2).toBe(0)
    await runner.drain()
    expect(target.received.filter((delivery) => delivery.path === '/a')).toHaveLength(0)
    for (let step = 1; step <= 5; step++) {
      clock = new Date(next.getTime() + (step - 1) * 2 * 3_600_000 + 1_000)
      await runner.drain()
      await runner.drain()
    }
    const runs = target.received.filter((delivery) => delivery.path === '/a')
    expect(runs.map((delivery) => [delivery.type, delivery.data.run, delivery.data.payload])).toEqual([
      ['cron.triggered', 1, { hello: 1 }],
      ['cron.triggered', 2, { hello: 1 }],
      ['cron.triggered', 3, { hello: 1 }],
    ])
    const listed = await ok(await gateway.get('/api/v1/cron/list', payers.alice))
    expect(listed.jobs[0]).toMatchObject({ id: created.id, status: 'completed', runCount: 3, nextRun: null })
    expect(listed.jobs[0].lastResult).toMatchObject({ status: 'delivered', code: 204 })
    expect((await ok(await gateway.get('/api/v1/cron/list', payers.bob))).total).toBe(0)
    await refused(await gateway.post('/api/v1/cron/cancel', { jobId: created.id }, payers.bob), 404)
  })

  test('cancel stops further runs; cancelling again is a 409', async () => {
    const created = await ok(
      await gateway.post(
        '/api/v1/cron/create',
        { action: 'webhook.trigger', schedule: '15 * * * *', payload: {}, callback_url: target.url('/c') },
        payers.alice,
      ),
    )
    expect(created.maxRuns).toBe(100)
    expect(await ok(await gateway.post('/api/v1/cron/cancel', { jobId: created.id }, payers.alice))).toMatchObject({
      status: 'cancelled',
      runCount: 0,
    })
    await refused(await gateway.post('/api/v1/cron/cancel', { jobId: created.id }, payers.alice), 409)
    const listed = await ok(await gateway.get('/api/v1/cron/list?status=cancelled', payers.alice))
    expect(listed.jobs).toEqual([
      expect.objectContaining({
        id: created.id,
        status: 'cancelled',
        nextRun: null,
        callback: { url: target.url('/c'), status: 'cancelled' },
      }),
    ])
    clock = new Date(new Date(created.nextRun).getTime() + 10 * 3_600_000)
    await runner.drain()
    expect(target.received.filter((delivery) => delivery.path === '/c')).toHaveLength(0)
  })

  test('behavior: a job stored before its callback had a record of its own still delivers its runs there, and cancels', async () => {
    // The record as cron wrote it before callbacks had records of their own (a18a067): the job is its callback's
    // endpoint (url, secret, status, failures).
    const id = `cron_${crypto.randomUUID().replaceAll('-', '')}`
    const secret = Webhooks.newSecret()
    const due = new Date(clock.getTime() + 3_600_000)
    const legacy = {
      url: target.url('/legacy'),
      secret,
      status: 'active',
      failures: 0,
      action: 'webhook.trigger',
      schedule: '0 * * * *',
      payload: { stored: 'before' },
      maxRuns: 3,
      runs: 0,
      state: 'scheduled',
      nextRun: due.toISOString(),
      lastRunAt: null,
      createdAt: clock.toISOString(),
    }
    const run = { jobId: id, run: 1, scheduledFor: due.toISOString(), owner: payers.alice }
    await store.insert(
      { collection: Service.jobs, id, owners: [payers.alice], value: legacy, createdAt: clock },
      { enqueue: [{ queue: Service.runQueue, id: `${id}#1`, payload: run, dueAt: due }] },
    )
    target.secrets.set('/legacy', secret)
    const listed = await ok(await gateway.get('/api/v1/cron/list?status=active', payers.alice))
    expect(listed.jobs.find((job: { id: string }) => job.id === id).callback).toEqual({
      url: target.url('/legacy'),
      status: 'active',
    })
    clock = new Date(due.getTime() + 1_000)
    await runner.drain()
    await runner.drain()
    expect(target.received.filter((delivery) => delivery.path === '/legacy')).toEqual([
      expect.objectContaining({ type: 'cron.triggered', data: expect.objectContaining({ jobId: id, run: 1 }) }),
    ])
    const after = await ok(await gateway.get('/api/v1/cron/list?status=active', payers.alice))
    expect(after.jobs.find((job: { id: string }) => job.id === id)).toMatchObject({
      runCount: 1,
      lastResult: { status: 'delivered', code: 204 },
    })
    // Cancelled, its callback (the job record) is too: the next run never fires and nothing more is delivered.
    await ok(await gateway.post('/api/v1/cron/cancel', { jobId: id }, payers.alice))
    expect((await store.get<{ status: string }>(Service.jobs, id))?.value.status).toBe('cancelled')
    clock = new Date(due.getTime() + 5 * 3_600_000)
    await runner.drain()
    expect(target.received.filter((delivery) => delivery.path === '/legacy')).toHaveLength(1)
  })

  test("behavior: the original gateway's create (no callback_url) runs as the owner's cron.triggered event", async () => {
    const created = await ok(
      await gateway.post(
        '/api/v1/cron/create',
        { action: 'webhook.trigger', schedule: '30 */3 * * *', payload: { ping: 'pong' }, metadata: { team: 'ops' } },
        payers.carol,
      ),
    )
    // Read before toMatchObject, which leaves its matchers in the object it matched.
    const { id, nextRun } = created
    expect(created).toMatchObject({
      id: expect.stringMatching(/^cron_/),
      action: 'webhook.trigger',
      schedule: '30 */3 * * *',
      status: 'active',
      nextRun: expect.any(String),
      maxRuns: 100,
      callback: null,
      metadata: { team: 'ops' },
    })
    const hook = await ok(
      await hooks.post(
        '/api/v1/webhook/register',
        { url: target.url('/hook'), events: ['cron.triggered'] },
        payers.carol,
      ),
    )
    target.secrets.set('/hook', hook.secret)
    clock = new Date(new Date(nextRun).getTime() + 1_000)
    for (let round = 0; round < 50 && !target.received.some((delivery) => delivery.path === '/hook'); round++) {
      await runner.drain()
      await Bun.sleep(5)
    }
    expect(target.received.filter((delivery) => delivery.path === '/hook')).toEqual([
      expect.objectContaining({
        type: 'cron.triggered',
        data: expect.objectContaining({ jobId: id, run: 1, payload: { ping: 'pong' } }),
      }),
    ])
    const listed = await ok(await gateway.get('/api/v1/cron/list?status=active&action=webhook.trigger', payers.carol))
    expect(listed.jobs).toEqual([
      expect.objectContaining({ id, status: 'active', runCount: 1, lastRun: expect.any(String) }),
    ])
    expect(listed.jobs[0].lastOutput).toEqual({ run: 1 })
    expect((await ok(await gateway.get('/api/v1/cron/list?status=paused', payers.carol))).total).toBe(0)
    await ok(await gateway.post('/api/v1/cron/cancel', { jobId: id }, payers.carol))
  })

  test("error: the original gateway's actions this gateway does not run are a 400 listing ours, before payment", async () => {
    const before = gateway.settled.length
    for (const action of ['swap.execute', 'notify.email', 'xmtp.send']) {
      const problem = await refused(
        await gateway.post(
          '/api/v1/cron/create',
          { action, schedule: '0 * * * *', payload: { to: 'a@example.com' } },
          payers.alice,
        ),
        400,
      )
      expect(problem).toMatchObject({ code: 'validation_failed', field: 'action' })
      expect(problem.detail).toContain('batch.execute, payroll.execute, webhook.trigger')
    }
    expect(gateway.settled.length).toBe(before)
  })
})

const databaseUrl = process.env.DATABASE_URL
/** Two gateways, each with its own connection pool, store, queue and worker runner, sharing one database. */
function gatewaysOn(fixture: Awaited<ReturnType<typeof eventsFixture>>, now: () => Date) {
  return [fixture.open(), fixture.open()].map(({ store, queue }) => {
    const ports: Partial<Module.Ports> = { store, queue, outbound: guard, events: eventsPort({ queue }) }
    const crons = moduleGateway(cron, { ports, env })
    const hooks = moduleGateway(webhooks, { ports, env })
    // Due runs by the test's clock, which jumps an hour at a time; deliveries by the real one, so that a jump never
    // ends the lease of a delivery in flight (a lease that ends mid-POST is a redelivery, by design).
    const runners = [
      workerRunner({ queue, workers: crons.workers, logger: silent(), now, pollMs: 5 }),
      workerRunner({ queue, workers: hooks.workers, logger: silent(), pollMs: 5 }),
    ]
    return { crons, hooks, runners, events: ports.events! }
  })
}

/** A schema of its own on DATABASE_URL, with a PostgreSQL store and queue per `open`. */
const eventsFixture = (url: string) =>
  postgresFixture(url, 'events', (sql) => ({ sql, queue: postgresQueue({ sql }), store: postgresStore({ sql }) }))

// Bun runs the body of a skipped describe while collecting: the database is reached only in beforeAll.
describe.skipIf(!databaseUrl)('two gateways on one PostgreSQL', () => {
  let fixture: Awaited<ReturnType<typeof eventsFixture>> | undefined
  let clock: Date
  let instances: ReturnType<typeof gatewaysOn> = []
  beforeAll(async () => {
    clock = new Date()
    fixture = await eventsFixture(databaseUrl!)
    instances = gatewaysOn(fixture, () => clock)
  })
  afterAll(() => fixture?.teardown())

  test('50 due cron runs and 200 event deliveries are each performed exactly once', async () => {
    const [one, two] = instances as [(typeof instances)[0], (typeof instances)[0]]
    // 10 jobs of 5 runs, created on either gateway.
    let first = Number.POSITIVE_INFINITY
    for (let index = 0; index < 10; index++) {
      const path = `/pg-cron-${index}`
      const created = await ok(
        await (index % 2 ? one : two).crons.post(
          '/api/v1/cron/create',
          {
            action: 'webhook.trigger',
            schedule: '0 * * * *',
            payload: { index },
            callback_url: target.url(path),
            maxRuns: 5,
          },
          payers.carol,
        ),
      )
      target.secrets.set(path, created.callback.secret)
      first = Math.min(first, new Date(created.nextRun).getTime())
    }
    // 4 webhooks x 50 events = 200 deliveries.
    for (let index = 0; index < 4; index++) {
      const path = `/pg-hook-${index}`
      const hook = await ok(
        await (index % 2 ? one : two).hooks.post(
          '/api/v1/webhook/register',
          { url: target.url(path), events: ['transfer.seen'] },
          payers.carol,
        ),
      )
      target.secrets.set(path, hook.secret)
    }
    for (let index = 0; index < 50; index++)
      await (index % 2 ? one : two).events.emit({ type: 'transfer.seen', owner: payers.carol, data: { index } })
    // Both gateways work at once, the clock stepping an hour at a time.
    for (const instance of instances) for (const runner of instance.runners) runner.start()
    const counted = () => target.received.filter((delivery) => delivery.path.startsWith('/pg-'))
    for (let hour = 0; hour < 5; hour++) {
      clock = new Date(first + hour * 3_600_000 + 1_000)
      for (
        let round = 0;
        round < 400 && counted().filter((d) => d.path.startsWith('/pg-cron')).length < 10 * (hour + 1);
        round++
      )
        await Bun.sleep(10)
    }
    for (let round = 0; round < 400 && counted().length < 250; round++) await Bun.sleep(10)
    await Bun.sleep(100)
    await Promise.all(instances.flatMap((instance) => instance.runners.map((runner) => runner.stop())))
    const cronRuns = counted().filter((delivery) => delivery.path.startsWith('/pg-cron'))
    const deliveries = counted().filter((delivery) => delivery.path.startsWith('/pg-hook'))
    expect(cronRuns).toHaveLength(50)
    expect(new Set(cronRuns.map((delivery) => `${delivery.path}#${delivery.data.run}`)).size).toBe(50)
    expect(deliveries).toHaveLength(200)
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(200)
    expect(target.unverified()).toBe(0)
    process.stdout.write(
      `exactly once across two gateways: ${cronRuns.length} cron runs, ${deliveries.length} deliveries\n`,
    )
  }, 30_000)
})
