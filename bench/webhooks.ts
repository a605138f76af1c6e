import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgresJs from 'postgres'
import { outbound } from '../adapters/outbound/fetch.js'
import { postgres as postgresQueue } from '../adapters/queue/postgres.js'
import { sqlite as sqliteQueue } from '../adapters/queue/sqlite.js'
import { postgres as postgresStore } from '../adapters/store/postgres.js'
import { sqlite as sqliteStore } from '../adapters/store/sqlite.js'
import { silent } from '../app/log.js'
import { workerRunner } from '../app/workers.js'
import * as Events from '../core/Events.js'
import * as Outbound from '../core/Outbound.js'
import type { Queue } from '../core/Queue.js'
import type { Store } from '../core/Store.js'
import * as Webhooks from '../core/Webhooks.js'

/** The owner of the benchmark's webhook and events. */
const owner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/** Deliveries in flight per process, as the webhooks module runs them. */
const concurrency = 32

/** A store and its queue on one database, opened for a round and removed after it. */
type Database = { store: Store; queue: Queue; remove: () => Promise<void> }

/** A new embedded (SQLite) database in a temporary folder. */
function embedded(): Database {
  const folder = mkdtempSync(join(tmpdir(), 'bench-webhooks-'))
  const path = join(folder, 'store.sqlite')
  const store = sqliteStore({ path })
  const queue = sqliteQueue({ path })
  return {
    store,
    queue,
    async remove() {
      await queue.close()
      await store.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/** A new schema of the PostgreSQL database at `url`, dropped after the round. */
async function postgresSchema(url: string): Promise<Database> {
  const schema = `bench_webhooks_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgresJs(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE SCHEMA ${schema}`)
  const sql = postgresJs(url, { max: 10, onnotice: () => {}, connection: { search_path: schema } })
  const store = postgresStore({ sql })
  const queue = postgresQueue({ sql })
  return {
    store,
    queue,
    async remove() {
      await queue.close()
      await store.close()
      await sql.end()
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
    },
  }
}

/**
 * One round: `count` events emitted into the outbox of an embedded (SQLite) store, or of PostgreSQL at `databaseUrl`,
 * fanned out and delivered signed to a local receiver by the webhooks workers, against the same number of plain
 * unsigned POSTs to that receiver at the same concurrency. Rates per second of wall time.
 */
export async function round(count: number, databaseUrl?: string): Promise<{ deliveries: number; posts: number }> {
  let received = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      await request.text()
      received++
      return new Response(null, { status: 204 })
    },
  })
  const url = `http://127.0.0.1:${server.port}/hook`
  const database = databaseUrl ? await postgresSchema(databaseUrl) : embedded()
  const { store, queue } = database
  try {
    const allowed = Outbound.parseAllowList('127.0.0.1')
    if (!allowed.ok) throw new Error(allowed.message)
    const guard = outbound({ allow: allowed.list, timeoutMs: 5_000 })
    const policy = { timeoutMs: 5_000, maxAttempts: 3, retryBaseMs: 100, retryMaxMs: 1_000, disableAfter: 100 }
    const value: Webhooks.Registered = {
      url,
      events: ['*'],
      secret: Webhooks.newSecret(),
      status: 'active',
      createdAt: new Date().toISOString(),
    }
    await store.insert({ collection: Webhooks.webhooks, id: 'wh_bench', owners: [owner], value, createdAt: new Date() })
    const events = Events.events({ queue })
    for (let index = 0; index < count; index++) await events.emit({ type: 'transfer.seen', owner, data: { index } })

    const runner = workerRunner({
      queue,
      logger: silent(),
      workers: [
        {
          queue: Events.outboxQueue,
          concurrency,
          leaseMs: 30_000,
          run: async (item) => {
            await Webhooks.fanOut({ store, queue, event: item.payload as Events.Event })
            return { done: true }
          },
        },
        {
          queue: Webhooks.deliveryQueue,
          concurrency,
          leaseMs: 30_000,
          run: (item) => Webhooks.deliver({ store, outbound: guard, policy, item: item as never }),
        },
      ],
    })
    const started = performance.now()
    await runner.drain()
    const deliveries = count / ((performance.now() - started) / 1000)
    if (received !== count) throw new Error(`The receiver got ${received} deliveries of ${count}.`)

    let next = 0
    const postStarted = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          next++
          await (await fetch(url, { method: 'POST', body: '{"type":"transfer.seen"}' })).text()
        }
      }),
    )
    const posts = count / ((performance.now() - postStarted) / 1000)
    return { deliveries, posts }
  } finally {
    await database.remove()
    server.stop(true)
  }
}

if (import.meta.main) console.log(await round(Number(process.argv[2] ?? 1_000), process.argv[3]))
