import * as Queue from '../../core/Queue.js'
import { open } from '../internal/sqlite.js'
import { enqueueSql, enqueueValues, fromRow, type Row, resultText, sqliteQueueMigration } from './schema.js'

/**
 * The embedded queue: the store's SQLite file (WAL), in its own connection. A claim selects and leases the due items
 * in one `BEGIN IMMEDIATE` transaction, under the file's write lock: the embedded equivalent of `SKIP LOCKED`, so
 * processes sharing the file claim each due item once. The write transaction is only begun when a read finds an
 * item due.
 */
export function sqlite(parameters: sqlite.Parameters): Queue.Queue {
  const { path, busyTimeout = 5_000 } = parameters
  const client = open({ path, busyTimeout, migration: sqliteQueueMigration })
  const insert = client.prepare(enqueueSql)
  const due = client.prepare(
    `SELECT id FROM queue_items WHERE queue = ? AND state = 'pending' AND due_at <= ? ORDER BY due_at, id LIMIT ?`,
  )
  const lease = client.prepare(
    'UPDATE queue_items SET due_at = ?, attempts = attempts + 1, token = ?, updated_at = ? WHERE queue = ? AND id = ? RETURNING *',
  )
  const read = client.prepare('SELECT * FROM queue_items WHERE queue = ? AND id = ?')
  const pending = client.prepare(
    `SELECT queue, count(*) AS count FROM queue_items WHERE state = 'pending' GROUP BY queue`,
  )

  const enqueueAll = client.transaction((items: readonly Queue.Enqueue[]) => {
    const now = Date.now()
    let added = 0
    for (const item of items) added += insert.run(...enqueueValues(item, now)).changes
    return added
  })
  const claimAll = client.transaction((queue: string, limit: number, at: number, until: number, token: string) => {
    const ids = due.all(queue, at, limit) as { id: string }[]
    return ids.map(({ id }) => lease.get(until, token, at, queue, id) as Row)
  })
  const settle = (lease: Queue.Lease, set: string, values: (string | number | null)[]) =>
    client
      .prepare(
        `UPDATE queue_items SET ${set}, token = NULL, updated_at = ?
          WHERE queue = ? AND id = ? AND token = ? AND state = 'pending'`,
      )
      .run(...values, Date.now(), lease.queue, lease.id, lease.token).changes > 0

  return {
    async enqueue(items) {
      return enqueueAll.immediate(items)
    },
    async claim(queue, { limit = 10, leaseMs = Queue.defaultLeaseMs, now = new Date() } = {}) {
      const at = now.getTime()
      // A read first, outside the write lock (WAL readers never wait): an idle queue costs no write transaction.
      if (due.all(queue, at, 1).length === 0) return []
      const token = Queue.token()
      return claimAll.immediate(queue, limit, at, at + leaseMs, token).map((row) => ({ ...fromRow<never>(row), token }))
    },
    async complete(lease, result) {
      return settle(lease, `state = 'done', result = ?`, [resultText(result)])
    },
    async retry(lease, { at, error }) {
      return settle(lease, 'due_at = ?, last_error = ?', [at.getTime(), error])
    },
    async fail(lease, error) {
      return settle(lease, `state = 'failed', last_error = ?`, [error])
    },
    async get(queue, id) {
      const row = read.get(queue, id) as Row | null
      if (!row) return undefined
      const { token: _token, ...item } = fromRow(row)
      return item as never
    },
    async pending() {
      const rows = pending.all() as { queue: string; count: number }[]
      return Object.fromEntries(rows.map(({ queue, count }) => [queue, count]))
    },
    async close() {
      client.close(true)
    },
  }
}

export declare namespace sqlite {
  type Parameters = {
    /** Path of the store's database file. */
    path: string
    /** How long a write waits for another connection's write lock, in ms. @default 5_000 */
    busyTimeout?: number
  }
}
