import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { RedisClient } from 'bun'
import postgresJs from 'postgres'
import { grouped } from '../adapters/ledger/grouped.js'
import { postgres as postgresLedger } from '../adapters/ledger/postgres.js'
import { sqlite as sqliteLedger } from '../adapters/ledger/sqlite.js'
import { memory as memoryLimiter } from '../adapters/limiter/memory.js'
import { postgres as postgresLimiter } from '../adapters/limiter/postgres.js'
import { redis as redisLimiter } from '../adapters/limiter/redis.js'
import { postgres as postgresQueue } from '../adapters/queue/postgres.js'
import { sqlite as sqliteQueue } from '../adapters/queue/sqlite.js'
import { postgres as postgresStore } from '../adapters/store/postgres.js'
import { sqlite as sqliteStore } from '../adapters/store/sqlite.js'
import type { Ledger } from '../core/Ledger.js'
import type { Limiter } from '../core/Limiter.js'
import type { Queue } from '../core/Queue.js'
import type { Store } from '../core/Store.js'
import type { Config } from './config.js'
import { hostOf, oneLine, StartError } from './startup.js'

/**
 * Opens the storage the configuration names: the payment ledger, the store and the durable queue in PostgreSQL at
 * DATABASE_URL or in SQLite files in DATA_DIR, and the per-client limits in Redis at REDIS_URL, else beside them.
 * Each is connected now, so that an unreachable one fails the start in one line; `closers` gets what closes them.
 */
export async function openStorage(parameters: openStorage.Parameters): Promise<openStorage.ReturnType> {
  const { config, closers } = parameters
  const opened = await openDatabase(config, closers)
  const limiter = config.redisUrl ? await redisLimiterOf(config.redisUrl, closers) : opened.limiter
  // Moves made together (a settlement batch's, calls finishing at once) commit together.
  return { ...opened, ledger: grouped(parameters.ledger ?? opened.ledger), limiter }
}

export declare namespace openStorage {
  type Parameters = {
    /** Parsed configuration. */
    config: Config
    /** Where what closes each connection goes, run in reverse at stop. */
    closers: (() => Promise<unknown>)[]
    /** A ledger to use instead of the configured one (tests). */
    ledger?: Ledger | undefined
  }
  type ReturnType = {
    /** The payment ledger, its moves made together committed together. */
    ledger: Ledger
    /** Durable records of the stateful modules. */
    store: Store
    /** Durable work in the store's database. */
    queue: Queue
    /** Where every per-client limit is counted. */
    limiter: Limiter
  }
}

/** The limits on Redis at `url`, connected now: an unreachable Redis fails the start, in one line. */
async function redisLimiterOf(url: string, closers: (() => Promise<unknown>)[]): Promise<Limiter> {
  const client = new RedisClient(url)
  closers.push(async () => client.close())
  try {
    await client.connect()
  } catch (error) {
    throw new StartError({
      code: 'redis_unreachable',
      message: `Redis at REDIS_URL (${hostOf(url)}) is unreachable: ${oneLine(error)}. Start Redis or fix REDIS_URL.`,
      cause: error,
    })
  }
  return redisLimiter({ client })
}

async function openDatabase(
  config: Config,
  closers: (() => Promise<unknown>)[],
): Promise<{ ledger: Ledger; store: Store; queue: Queue; limiter: Limiter }> {
  if (config.databaseUrl) {
    const sql = postgresJs(config.databaseUrl, { max: 10, onnotice: () => {} })
    closers.push(() => sql.end())
    try {
      await sql`select 1`
    } catch (error) {
      throw new StartError({
        code: 'database_unreachable',
        message: `The database at DATABASE_URL (${hostOf(config.databaseUrl)}) is unreachable: ${oneLine(error)}. Start PostgreSQL or fix DATABASE_URL.`,
        cause: error,
      })
    }
    const storage = {
      ledger: postgresLedger({ sql }),
      store: postgresStore({ sql }),
      queue: postgresQueue({ sql }),
      limiter: postgresLimiter({ sql }),
    }
    closers.push(
      () => storage.ledger.close(),
      () => storage.store.close(),
      () => storage.queue.close(),
    )
    return storage
  }
  mkdirSync(config.dataDir, { recursive: true })
  const storage = {
    // The store's file holds the outbox: a settlement's `payment.settled` commits with its confirmation.
    ledger: sqliteLedger({ path: join(config.dataDir, 'ledger.sqlite'), outbox: join(config.dataDir, 'store.sqlite') }),
    store: sqliteStore({ path: join(config.dataDir, 'store.sqlite') }),
    // The store's file: a write and the work it enqueues commit together.
    queue: sqliteQueue({ path: join(config.dataDir, 'store.sqlite') }),
    // The limits of this process alone: processes sharing a DATA_DIR share them only through REDIS_URL.
    limiter: memoryLimiter(),
  }
  closers.push(
    () => storage.ledger.close(),
    () => storage.store.close(),
    () => storage.queue.close(),
  )
  return storage
}
