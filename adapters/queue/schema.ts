import { type SQL, sql } from 'drizzle-orm'
import type { Enqueue, Item, State } from '../../core/Queue.js'

// The queue's one table, in the store's database so that a store write and the work it causes commit together.
// Times are epoch milliseconds in both dialects and JSON travels as text, so both adapters read rows the same way.

/** Idempotent SQLite statements creating the queue's table; part of the store's migration too. */
export const sqliteQueueMigration = [
  `CREATE TABLE IF NOT EXISTS queue_items (
    queue TEXT NOT NULL,
    id TEXT NOT NULL,
    payload TEXT NOT NULL CHECK (json_valid(payload)),
    state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
    attempts INTEGER NOT NULL,
    due_at INTEGER NOT NULL,
    token TEXT,
    last_error TEXT,
    result TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (queue, id)
  ) WITHOUT ROWID`,
  `CREATE INDEX IF NOT EXISTS queue_items_due ON queue_items (queue, due_at, id) WHERE state = 'pending'`,
] as const

/** Idempotent PostgreSQL statements creating the queue's table; part of the store's migration too. */
export const pgQueueMigration = [
  `CREATE TABLE IF NOT EXISTS queue_items (
    queue text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    payload text NOT NULL,
    state text NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
    attempts integer NOT NULL,
    due_at bigint NOT NULL,
    token text,
    last_error text,
    result text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (queue, id)
  )`,
  `CREATE INDEX IF NOT EXISTS queue_items_due ON queue_items (queue, due_at, id) WHERE state = 'pending'`,
] as const

/** The insert of one item, both dialects; an id already present is left alone. Parameters in `enqueueValues` order. */
export const enqueueSql = `INSERT INTO queue_items (queue, id, payload, state, attempts, due_at, created_at, updated_at)
  VALUES ($1, $2, $3, 'pending', 0, $4, $5, $5) ON CONFLICT (queue, id) DO NOTHING`

/** The parameters of `enqueueSql` for `item` enqueued at `now`. */
export function enqueueValues(item: Enqueue, now: number): [string, string, string, number, number] {
  const payload = JSON.stringify(item.payload)
  if (payload === undefined) throw new TypeError('A queued payload must be JSON.')
  return [item.queue, item.id, payload, item.dueAt?.getTime() ?? now, now]
}

/**
 * The insert of one item as a drizzle statement, for the transaction of a write the item commits with (the outbox);
 * an id already present is left alone.
 */
export function enqueueStatement(item: Enqueue, now: number): SQL {
  const [queue, id, payload, dueAt, at] = enqueueValues(item, now)
  return sql`INSERT INTO queue_items (queue, id, payload, state, attempts, due_at, created_at, updated_at)
    VALUES (${queue}, ${id}, ${payload}, 'pending', 0, ${dueAt}, ${at}, ${at}) ON CONFLICT (queue, id) DO NOTHING`
}

/**
 * A `WITH` item of PostgreSQL (`outbox AS (...)`) that inserts the items given by `outboxValues` from parameter
 * `$first` on, once for each row of `from`: with the write it names, in one statement, and only when it wrote a row.
 * Its rows are the ids it added (an id already queued is left alone).
 */
export function outboxInsert(from: string, first: number): string {
  const [at, queues, ids, payloads, dues] = [first, first + 1, first + 2, first + 3, first + 4].map((n) => `$${n}`)
  return `outbox AS (
  INSERT INTO queue_items (queue, id, payload, state, attempts, due_at, created_at, updated_at)
  SELECT item.queue, item.id, item.payload, 'pending', 0, item.due_at::bigint, ${at}::bigint, ${at}::bigint
  FROM ${from} CROSS JOIN unnest(${queues}::text[], ${ids}::text[], ${payloads}::text[], ${dues}::text[])
    AS item(queue, id, payload, due_at)
  ON CONFLICT (queue, id) DO NOTHING
  RETURNING id)`
}

/** The parameters of `outboxInsert` for `items` enqueued at `now`. */
export function outboxValues(items: readonly Enqueue[], now: number): [number, string[], string[], string[], string[]] {
  const rows = items.map((item) => enqueueValues(item, now))
  return [
    now,
    rows.map(([queue]) => queue),
    rows.map(([, id]) => id),
    rows.map(([, , payload]) => payload),
    rows.map(([, , , dueAt]) => String(dueAt)),
  ]
}

/** A row of `queue_items` as either driver returns it. */
export type Row = {
  queue: string
  id: string
  payload: string
  state: string
  attempts: number | string
  due_at: number | string | bigint
  token: string | null
  last_error: string | null
  result: string | null
  created_at: number | string | bigint
  updated_at: number | string | bigint
}

/** An item from its row. */
export function fromRow<payload>(row: Row): Item<payload> & { token: string | null } {
  return {
    queue: row.queue,
    id: row.id,
    payload: JSON.parse(row.payload),
    state: row.state as State,
    attempts: Number(row.attempts),
    dueAt: new Date(Number(row.due_at)),
    lastError: row.last_error ?? undefined,
    result: row.result === null ? undefined : JSON.parse(row.result),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    token: row.token,
  }
}

/** The JSON text of a result, or null. */
export function resultText(result: unknown): string | null {
  return result === undefined ? null : JSON.stringify(result)
}
