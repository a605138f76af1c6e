/**
 * Durable work driven by the store, not by in-process timers: an item is enqueued with a due time and a stable id,
 * and any gateway process sharing the database may claim it once it is due. A claim is a lease: the item's due time
 * moves to the end of the lease and a fresh token is written, so a process that dies mid-work leaves the item to be
 * claimed again when the lease runs out (at least once), and a late `complete` from the dead lease's holder is
 * refused (its token is stale). Claims skip items another process holds (`FOR UPDATE SKIP LOCKED` on PostgreSQL, the
 * write lock on SQLite), so N processes claim each due item exactly once per lease.
 */

/** Where an item is in its life. */
export type State =
  /** Waiting for its due time, or claimed and leased until it. */
  | 'pending'
  /** Completed. */
  | 'done'
  /** Given up. */
  | 'failed'

/** One unit of durable work. */
export type Item<payload = unknown> = {
  /** Queue name, e.g. `webhook`; workers claim from one queue. */
  queue: string
  /** Stable id, unique within the queue: enqueueing it again changes nothing (idempotency). */
  id: string
  /** The JSON work description; bigints travel as decimal strings. */
  payload: payload
  /** Where it is. */
  state: State
  /** How many times it was claimed. */
  attempts: number
  /** When it may next be claimed (while pending): its due time, or the end of its current lease. */
  dueAt: Date
  /** The last error a worker reported (retry or fail). */
  lastError?: string | undefined
  /** What the worker that completed it reported. */
  result?: unknown
  /** When it was enqueued. */
  createdAt: Date
  /** When it last changed. */
  updatedAt: Date
}

/** What to enqueue. */
export type Enqueue<payload = unknown> = {
  /** Queue name. */
  queue: string
  /** Stable id within the queue; an id already present is left as it is. */
  id: string
  /** The work description (JSON). */
  payload: payload
  /** When it becomes due. @default now */
  dueAt?: Date | undefined
}

/** A claimed item: the lease's token goes back with `complete`, `retry` or `fail`. */
export type Claim<payload = unknown> = Item<payload> & {
  /** The lease's token; stale once the lease ran out and someone else claimed the item. */
  token: string
}

/** The holder's handle on a claimed item. */
export type Lease = Pick<Claim, 'queue' | 'id' | 'token'>

/** The durable queue port. */
export type Queue = {
  /** Enqueues items, each once per (queue, id); how many were new. */
  enqueue: (items: readonly Enqueue[]) => Promise<number>
  /**
   * Claims up to `limit` (@default 10) pending items of `queue` due at `now` (@default the clock), oldest due first,
   * each leased for `leaseMs` (@default 30 s): no other claim returns them before the lease ends.
   */
  claim: <payload>(
    queue: string,
    parameters?: { limit?: number; leaseMs?: number; now?: Date },
  ) => Promise<Claim<payload>[]>
  /** Marks a claimed item done; `false` when the lease is no longer this holder's. */
  complete: (lease: Lease, result?: unknown) => Promise<boolean>
  /** Puts a claimed item back, due at `at`, with the error; `false` when the lease is no longer this holder's. */
  retry: (lease: Lease, parameters: { at: Date; error: string }) => Promise<boolean>
  /** Gives a claimed item up with the error; `false` when the lease is no longer this holder's. */
  fail: (lease: Lease, error: string) => Promise<boolean>
  /** Reads an item. */
  get: <payload>(queue: string, id: string) => Promise<Item<payload> | undefined>
  /** How many items each queue holds `pending` (due or not, leased or not), by queue name; empty queues are absent. */
  pending: () => Promise<Record<string, number>>
  /** Releases connections and file handles. */
  close: () => Promise<void>
}

/** The default lease of a claim, in ms. */
export const defaultLeaseMs = 30_000

/** A new lease token. */
export function token(): string {
  return crypto.randomUUID()
}

/**
 * Exponential backoff with full jitter: a delay drawn uniformly from [0, min(maxMs, baseMs × 2^(attempt−1))], and at
 * least `baseMs / 2` so that a retry never fires at once. `attempt` counts from 1.
 */
export function backoff(attempt: number, parameters: { baseMs: number; maxMs: number; random?: () => number }): number {
  const { baseMs, maxMs, random = Math.random } = parameters
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1))
  return Math.max(Math.floor(baseMs / 2), Math.floor(random() * ceiling))
}
