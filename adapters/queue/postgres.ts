import { drizzle } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'
import * as Queue from '../../core/Queue.js'
import { isolate, migrateOnce } from '../internal/postgres.js'
import { fromRow, outboxInsert, outboxValues, pgQueueMigration, type Row, resultText } from './schema.js'

/** The store's migration lock ("store" in ASCII): the queue's table is part of the store's database. */
const migrationLock = 0x73746f7265n

/** Every item of an enqueue in one statement, so all or none are added: how many were new. */
const enqueueStatement = `WITH one AS (VALUES (1)), ${outboxInsert('one', 1)} SELECT count(*)::int AS added FROM outbox`

/**
 * The queue on PostgreSQL, in the store's database. A claim is one `UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED)`:
 * concurrent claims from any number of processes skip each other's rows, so each due item goes to one of them.
 * The caller owns `sql`.
 */
export function postgres(parameters: postgres.Parameters): Queue.Queue {
  const { sql } = parameters
  const migrate = migrateOnce({
    db: drizzle({ client: isolate(sql) }),
    lock: migrationLock,
    statements: pgQueueMigration,
  })
  let closed = false
  const ready = async () => {
    if (closed) throw new Error('The postgres queue is closed.')
    await migrate()
  }
  const settle = async (lease: Queue.Lease, set: string, values: unknown[]) => {
    await ready()
    const rows = await sql.unsafe(
      `UPDATE queue_items SET ${set}, token = NULL, updated_at = $4
        WHERE queue = $1 AND id = $2 AND token = $3 AND state = 'pending' RETURNING id`,
      [lease.queue, lease.id, lease.token, Date.now(), ...values] as never[],
    )
    return rows.length > 0
  }

  return {
    async enqueue(items) {
      await ready()
      if (items.length === 0) return 0
      const [row] = await sql.unsafe<{ added: number }[]>(enqueueStatement, outboxValues(items, Date.now()))
      return row!.added
    },
    async claim(queue, { limit = 10, leaseMs = Queue.defaultLeaseMs, now = new Date() } = {}) {
      await ready()
      const token = Queue.token()
      const at = now.getTime()
      const rows = await sql.unsafe<Row[]>(
        `UPDATE queue_items AS q SET due_at = $4, attempts = q.attempts + 1, token = $5, updated_at = $3
          FROM (SELECT queue, id FROM queue_items WHERE queue = $1 AND state = 'pending' AND due_at <= $3
                ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) AS due
          WHERE q.queue = due.queue AND q.id = due.id RETURNING q.*`,
        [queue, limit, at, at + leaseMs, token],
      )
      return rows
        .map((row) => ({ ...fromRow<never>(row), token }))
        .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || (a.id < b.id ? -1 : 1))
    },
    complete: (lease, result) => settle(lease, `state = 'done', result = $5`, [resultText(result)]),
    retry: (lease, { at, error }) => settle(lease, 'due_at = $5, last_error = $6', [at.getTime(), error]),
    fail: (lease, error) => settle(lease, `state = 'failed', last_error = $5`, [error]),
    async get(queue, id) {
      await ready()
      const [row] = await sql.unsafe<Row[]>('SELECT * FROM queue_items WHERE queue = $1 AND id = $2', [queue, id])
      if (!row) return undefined
      const { token: _token, ...item } = fromRow(row)
      return item as never
    },
    async pending() {
      await ready()
      const rows = await sql.unsafe<{ queue: string; count: number }[]>(
        `SELECT queue, count(*)::int AS count FROM queue_items WHERE state = 'pending' GROUP BY queue`,
      )
      return Object.fromEntries(rows.map(({ queue, count }) => [queue, count]))
    },
    async close() {
      closed = true
    },
  }
}

export declare namespace postgres {
  type Parameters = {
    /** A postgres.js client on the store's database; the caller owns it and ends it after `close`. */
    sql: Sql
  }
}
