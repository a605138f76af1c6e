import { drizzle } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'
import type { Limiter } from '../../core/Limiter.js'
import * as RateLimit from '../../core/RateLimit.js'
import { isolate, migrateOnce } from '../internal/postgres.js'

/** Key of the transaction-level advisory lock that serialises the migration across processes ("limits" in ASCII). */
const migrationLock = 0x6c696d697473n

/**
 * The buckets: `level` in token-ms as in `core/RateLimit.ts`, times in epoch ms of the database's clock. Unlogged: a
 * crash forgets the buckets (they come back full), and no take waits for a WAL flush. `full_at` is when the bucket
 * is full again, after which its row means nothing and is swept.
 */
const migration = [
  `CREATE UNLOGGED TABLE IF NOT EXISTS rate_limits (
    key text COLLATE "C" PRIMARY KEY,
    level bigint NOT NULL,
    updated_at bigint NOT NULL,
    taken boolean NOT NULL,
    full_at bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS rate_limits_full_at ON rate_limits (full_at)',
]

/** The bucket's level topped up to the take's time (`excluded.updated_at`): `$2` capacity, `$3` token-ms per ms. */
const toppedUp = 'least($2::bigint, bucket.level + greatest(0, excluded.updated_at - bucket.updated_at) * $3::bigint)'

/**
 * One take in one statement: `$1` key, `$2` capacity in token-ms, `$3` token-ms gained per ms, `$4` one token in
 * token-ms. A new bucket is full, less the token taken; an existing one is topped up and loses a token when it holds
 * one. The row lock of the upsert orders concurrent takes of one key, across every process.
 */
const takeStatement = `
INSERT INTO rate_limits AS bucket (key, level, updated_at, taken, full_at)
SELECT $1, $2::bigint - $4::bigint, now.ms, true, now.ms + ceil($4::numeric / $3::bigint)::bigint
  FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms) AS now
ON CONFLICT (key) DO UPDATE SET
  taken = ${toppedUp} >= $4::bigint,
  level = ${toppedUp} - CASE WHEN ${toppedUp} >= $4::bigint THEN $4::bigint ELSE 0 END,
  updated_at = greatest(excluded.updated_at, bucket.updated_at),
  full_at = greatest(excluded.updated_at, bucket.updated_at)
    + ceil(($2::bigint - ${toppedUp} + CASE WHEN ${toppedUp} >= $4::bigint THEN $4::bigint ELSE 0 END)::numeric
      / $3::bigint)::bigint
RETURNING taken, CASE WHEN taken THEN 0 ELSE updated_at + ceil(($4::bigint - level)::numeric / $3::bigint) END::float8
  AS retry_at`

/** Removes the buckets that are full again by the database's clock. */
const sweepStatement = 'DELETE FROM rate_limits WHERE full_at < (extract(epoch FROM clock_timestamp()) * 1000)::bigint'

/** How often a limiter sweeps the buckets that are full again, in ms. */
const sweepIntervalMs = 60_000

/**
 * Token buckets in PostgreSQL, shared by every process on the database: each take is one upsert that computes the
 * bucket on the database's clock. Creates its table at first use. A minute after its last sweep, a take also
 * removes the buckets that are full again (nobody waits for it). The caller owns `sql`: `close` leaves it open.
 */
export function postgres(parameters: postgres.Parameters): Limiter {
  const { sql } = parameters
  const migrate = migrateOnce({ db: drizzle({ client: isolate(sql) }), lock: migrationLock, statements: migration })
  let sweptAt = Date.now()
  return {
    async take(key, options) {
      RateLimit.assert(options)
      await migrate()
      const { capacity, refill, intervalMs } = options
      if (Date.now() - sweptAt > sweepIntervalMs) {
        sweptAt = Date.now()
        // A failed sweep leaves rows that the next one removes: nothing to report to this take's caller.
        void sql.unsafe(sweepStatement).catch(() => {})
      }
      const [row] = await sql.unsafe<{ taken: boolean; retry_at: number }[]>(
        takeStatement,
        [key, capacity * intervalMs, refill, intervalMs] as never[],
        { prepare: true },
      )
      return row!.taken ? { ok: true } : { ok: false, retryAt: row!.retry_at }
    },
    async close() {},
  }
}

export declare namespace postgres {
  type Parameters = {
    /** A postgres.js client of the database. */
    sql: Sql
  }
}
