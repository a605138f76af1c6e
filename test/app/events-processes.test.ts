import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgresJs from 'postgres'
import { Webhook } from 'standardwebhooks'
import { type Address, getAddress } from 'viem'
import { postgres as postgresQueue } from '../../adapters/queue/postgres.js'
import { sqlite as sqliteQueue } from '../../adapters/queue/sqlite.js'
import { postgres as postgresStore } from '../../adapters/store/postgres.js'
import { sqlite as sqliteStore } from '../../adapters/store/sqlite.js'
import { freePort, type Server, start } from '../../bench/processes.js'
import * as Events from '../../core/Events.js'
import type { Queue } from '../../core/Queue.js'
import type { Store } from '../../core/Store.js'
import * as Webhooks from '../../core/Webhooks.js'
import * as Cron from '../../modules/cron/service.js'
import { gatewayDatabases } from '../support/backends.js'
import { relayerMnemonic, servedDevnet } from '../support/chain.js'

// HEAVY: real gateway processes (app/main.ts) on one database and one chain. Webhook deliveries and cron runs are
// queue items that every process polls; each must reach the receiver once, whichever process claims it, and a
// process killed with SIGKILL mid-delivery must leave its delivery to the next one, with the same webhook-id.

const owner: Address = getAddress('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
const secret = Webhooks.newSecret()
const webhookId = 'wh_processes'

let chain: Awaited<ReturnType<typeof servedDevnet>>
let mnemonic: string
beforeAll(async () => {
  chain = await servedDevnet()
  mnemonic = await relayerMnemonic(chain.url)
})
afterAll(async () => {
  await chain.close()
})

/**
 * A local receiver that verifies every delivery with the standardwebhooks package and counts each `webhook-id`;
 * `hang` says which requests it never answers (the connection stays open until the sender dies).
 */
function receiver(hang: (id: string, seen: number) => boolean = () => false) {
  const seen = new Map<string, number>()
  const answered = new Map<string, number>()
  let unverified = 0
  const verifier = new Webhook(secret)
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const body = await request.text()
      const headers = Object.fromEntries(request.headers)
      try {
        verifier.verify(body, headers)
      } catch {
        unverified++
        return new Response('bad signature', { status: 400 })
      }
      const id = headers['webhook-id']!
      const count = (seen.get(id) ?? 0) + 1
      seen.set(id, count)
      if (hang(id, count)) await new Promise(() => {})
      answered.set(id, (answered.get(id) ?? 0) + 1)
      return new Response(null, { status: 204 })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    answered,
    unverified: () => unverified,
    stop: () => server.stop(true),
  }
}

/** The store and queue of the gateways' database, opened from this process. */
function storage(env: Record<string, string>): { store: Store; queue: Queue; close: () => Promise<void> } {
  if (env.DATABASE_URL) {
    const sql = postgresJs(env.DATABASE_URL, { max: 4, onnotice: () => {} })
    const store = postgresStore({ sql })
    const queue = postgresQueue({ sql })
    return { store, queue, close: () => sql.end() }
  }
  const path = join(env.DATA_DIR!, 'store.sqlite')
  const store = sqliteStore({ path })
  const queue = sqliteQueue({ path })
  return {
    store,
    queue,
    close: async () => {
      await queue.close()
      await store.close()
    },
  }
}

/** Registers the owner's webhook to `url`, subscribed to every event. */
async function register(store: Store, url: string) {
  const value: Webhooks.Registered = {
    url,
    events: ['*'],
    secret,
    status: 'active',
    failures: 0,
    createdAt: new Date().toISOString(),
  }
  await store.insert({ collection: Webhooks.webhooks, id: webhookId, owners: [owner], value, createdAt: new Date() })
}

/** Records `count` events in the outbox; the `webhook-id` each one's delivery carries. */
async function emit(queue: Queue, count: number, prefix: string): Promise<string[]> {
  const events = Events.events({ queue })
  const items = Array.from({ length: count }, (_, index) =>
    events.outbox({ id: `${prefix}_${index}`, type: 'transfer.seen', owner, data: { index } }),
  )
  await queue.enqueue(items)
  return items.map((item) => Webhooks.messageId(item.id, { collection: Webhooks.webhooks, id: webhookId }))
}

/** Creates `count` one-run cron jobs whose run is due now; the `webhook-id` each run's delivery carries. */
async function dueJobs(store: Store, count: number, url: string): Promise<string[]> {
  const now = new Date()
  const ids: string[] = []
  for (let index = 0; index < count; index++) {
    const id = `cron_processes_${index}`
    const job: Cron.Job = {
      action: 'webhook.trigger',
      schedule: '0 0 1 1 *',
      payload: { index },
      callback: true,
      maxRuns: 1,
      runs: 0,
      state: 'scheduled',
      nextRun: now.toISOString(),
      lastRunAt: null,
      createdAt: now.toISOString(),
    }
    const run = { jobId: id, run: 1, scheduledFor: now.toISOString(), owner }
    const callback: Webhooks.Endpoint = { url, secret, status: 'active', failures: 0 }
    await store.insert({ collection: Cron.callbacks, id, owners: [owner], value: callback, createdAt: now })
    await store.insert(
      { collection: Cron.jobs, id, owners: [owner], value: job, createdAt: now },
      { enqueue: [{ queue: Cron.runQueue, id: `${id}#1`, payload: run, dueAt: now }] },
    )
    ids.push(Webhooks.messageId(`${id}#1`, { collection: Cron.callbacks, id }))
  }
  return ids
}

/** Waits until `done` holds, polling. */
async function until(done: () => boolean | Promise<boolean>, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('Timed out waiting.')
    await Bun.sleep(50)
  }
}

/**
 * The environment of gateway processes sharing one database (`more` names it) and the served devnet, each signing
 * with its own relayer key, delivering to receivers on 127.0.0.1.
 */
function environment(more: Record<string, string>): Record<string, string> {
  return {
    RPC_URL: chain.url,
    NETWORK: 'eip155:84532',
    RELAYER_MNEMONIC: mnemonic,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'events-processes-')),
    OUTBOUND_ALLOW: '127.0.0.1',
    ...more,
  }
}

/** Starts a gateway process on the shared database. */
function gateway(name: string, env: Record<string, string>) {
  return start({ name, script: 'app/main.ts', port: freePort(), env, inherit: false, readyPath: '/' })
}

describe.each(gatewayDatabases('events'))('heavy: gateway processes on $name', ({ open }) => {
  test('behavior: two processes perform 50 due cron runs and 200 webhook deliveries, each exactly once', async () => {
    const { env: databaseEnv, teardown } = await open()
    const target = receiver()
    const env = environment(databaseEnv)
    const gateways: Server[] = []
    const shared = storage(env)
    try {
      gateways.push(await gateway('first', env), await gateway('second', env))
      // Both processes poll already: the work appears while they race for it.
      await register(shared.store, `${target.url}/hook`)
      const expected = [
        ...(await dueJobs(shared.store, 50, `${target.url}/cron`)),
        ...(await emit(shared.queue, 200, 'evt_processes')),
      ]
      await until(() => expected.every((id) => target.answered.has(id)))
      // A process completes its item after the receiver answered: wait for the queues to empty.
      await until(async () => Object.keys(await shared.queue.pending()).length === 0)
      // Every item is done after a single claim: nothing is left that could reach the receiver again.
      for (const id of expected)
        expect(await shared.queue.get(Webhooks.deliveryQueue, id)).toMatchObject({ state: 'done', attempts: 1 })
      for (let index = 0; index < 50; index++)
        expect(await shared.queue.get(Cron.runQueue, `cron_processes_${index}#1`)).toMatchObject({
          state: 'done',
          attempts: 1,
        })
      expect(target.unverified()).toBe(0)
      expect(target.seen.size).toBe(250)
      expect([...target.seen.values()].every((count) => count === 1)).toBe(true)
      const job = await shared.store.get<Cron.Job>(Cron.jobs, 'cron_processes_0')
      expect(job?.value).toMatchObject({ runs: 1, state: 'completed' })
    } finally {
      for (const server of gateways) await server.stop()
      await shared.close()
      target.stop()
      await teardown()
    }
  }, 60_000)

  test('behavior: a process killed with SIGKILL mid-delivery leaves it to a restarted one, with the same webhook-id', async () => {
    const { env: databaseEnv, teardown } = await open()
    // Every first attempt hangs: the first process is killed while its POSTs are in flight.
    const target = receiver((_id, seen) => seen === 1)
    const env = environment({ WEBHOOK_LEASE_MS: '2000', ...databaseEnv })
    const shared = storage(env)
    let second: Server | undefined
    try {
      const first = await gateway('first', env)
      await register(shared.store, `${target.url}/hook`)
      const expected = await emit(shared.queue, 5, 'evt_killed')
      await until(() => expected.every((id) => target.seen.has(id)))
      first.process.kill('SIGKILL')
      await first.process.exited
      expect(target.answered.size).toBe(0)

      second = await gateway('second', env)
      await until(() => expected.every((id) => target.answered.has(id)))
      await until(async () => Object.keys(await shared.queue.pending()).length === 0)
      // Sent twice (the killed attempt, then the lease's end), answered once: a receiver that de-duplicates on the
      // webhook-id sees each event once.
      for (const id of expected) {
        expect(target.seen.get(id)).toBe(2)
        expect(target.answered.get(id)).toBe(1)
        expect(await shared.queue.get(Webhooks.deliveryQueue, id)).toMatchObject({ state: 'done', attempts: 2 })
      }
      expect(target.seen.size).toBe(5)
      expect(target.unverified()).toBe(0)
    } finally {
      await second?.stop()
      await shared.close()
      target.stop()
      await teardown()
    }
  }, 60_000)
})
