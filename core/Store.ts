import type { Address } from 'viem'
import type { Enqueue } from './Queue.js'

/** A stored record: a JSON value in a collection, visible to its owners only. */
export type Record<value = unknown> = {
  /** Collection, e.g. `invoices`. */
  collection: string
  /** Id, unique within the collection. */
  id: string
  /** Checksummed addresses that may see and act on it (creator, recipient, parties). */
  owners: readonly Address[]
  /** The JSON value; bigints travel as decimal strings. */
  value: value
  /** Increases by one with every update; the first version is 1. */
  version: number
  /** When it was inserted. */
  createdAt: Date
  /** When it last changed. */
  updatedAt: Date
}

/** One entry of an append-only, hash-chained log (audit). */
export type LogEntry<value = unknown> = {
  /** Chain name, e.g. `audit:0xabc…`. */
  chain: string
  /** Position in the chain, from 1, without gaps. */
  sequence: number
  /** The JSON value. */
  value: value
  /** Hash of the previous entry; all zeros for the first. */
  previousHash: `0x${string}`
  /** Hash of this entry, computed by the caller over `previousHash`, `sequence` and `value`. */
  hash: `0x${string}`
  /** When it was appended. */
  createdAt: Date
}

/**
 * What else a write does in its transaction: the transactional outbox. The items are enqueued (see `Queue`) only if
 * the write happens (not on `exists`, `not_found` or a refusal), and commit with it or not at all.
 */
export type Also = {
  /** Durable work caused by the write, e.g. an event for the webhooks. */
  enqueue?: readonly Enqueue[] | undefined
}

/** Raised by an `update` function to refuse a change; the store leaves the record as it was. */
export type Refusal = { refused: true; reason: string }

/**
 * Durable records for the stateful modules. Every write is atomic across all processes sharing the store.
 * Values round-trip through JSON in every adapter, so the memory adapter behaves like the durable ones.
 */
export type Store = {
  /** Inserts a record; `exists` when the id is taken in that collection. `also` commits with it. */
  insert: <value>(
    record: Omit<Record<value>, 'version' | 'updatedAt'>,
    also?: Also,
  ) => Promise<{ ok: true; record: Record<value> } | { ok: false; reason: 'exists' }>
  /** Reads a record. */
  get: <value>(collection: string, id: string) => Promise<Record<value> | undefined>
  /** Records of a collection that `owner` owns, newest first, at most `limit` (@default 100). */
  list: <value>(collection: string, parameters: { owner: Address; limit?: number }) => Promise<Record<value>[]>
  /**
   * Records of a collection that any of `owners` owns, each once, newest first, at most `limit` (@default 100) of
   * each owner: what {@link Store.list} answers for each, read together.
   */
  listOwned: <value>(
    collection: string,
    parameters: { owners: readonly Address[]; limit?: number },
  ) => Promise<Record<value>[]>
  /**
   * Replaces a record's value with `change(value)`, atomically. `change` must be pure: adapters may run it again
   * after a lost race. Returning a {@link Refusal} leaves the record unchanged and is passed back. `also` commits
   * with the change.
   */
  update: <value>(
    collection: string,
    id: string,
    change: (current: Record<value>) => value | Refusal,
    also?: Also,
  ) => Promise<{ ok: true; record: Record<value> } | { ok: false; reason: 'not_found' } | ({ ok: false } & Refusal)>
  /**
   * Appends to a hash chain, atomically: `make` receives the last entry (or undefined) and returns the new
   * entry's value and hash; concurrent appends never share a sequence number.
   */
  append: <value>(
    chain: string,
    make: (last: LogEntry<value> | undefined) => { value: value; hash: `0x${string}`; createdAt: Date },
  ) => Promise<LogEntry<value>>
  /** The entries of a chain in order, from `fromSequence` (@default 1), at most `limit` (@default 1000). */
  entries: <value>(chain: string, parameters?: { fromSequence?: number; limit?: number }) => Promise<LogEntry<value>[]>
  /** Deletes a record; `false` when there was none. Undoes an insert of a call that was never paid. */
  remove: (collection: string, id: string) => Promise<boolean>
  /**
   * Deletes the entry at `sequence` of a chain, atomically, only while it is the chain's last: a chain never
   * gets a gap. `false` when it is not the last (or absent). Undoes an append of a call that was never paid.
   */
  truncate: (chain: string, sequence: number) => Promise<boolean>
  /** Releases connections and file handles. */
  close: () => Promise<void>
}

/**
 * One write a paid call made, recorded so that it can be undone when the call is never paid: an insert is
 * removed, an update is put back while nobody changed the record since, a removed record is inserted again while its
 * id is free, an append is truncated while it is last. Effects travel as JSON (ledger entries, channel records).
 */
export type Effect =
  | { /** A record was inserted. */ type: 'insert'; collection: string; id: string }
  | {
      /** A record was updated. */ type: 'update'
      collection: string
      id: string
      /** The value before the update. */
      before: unknown
      /** The version the update wrote; the undo applies only while the record is still at it. */
      version: number
    }
  | {
      /** A record was removed. */ type: 'remove'
      collection: string
      id: string
      /** The record as it was, what an insert needs to put it back. */
      record: {
        /** Its owners. */
        owners: Address[]
        /** Its value. */
        value: unknown
        /** When it was inserted, ISO 8601: effects are stored as JSON, which has no dates. */
        createdAt: string
      }
    }
  | { /** An entry was appended to a chain. */ type: 'append'; chain: string; sequence: number }

/**
 * `lists` of records as one, each record once, newest first; ties by id, descending by code unit, as the durable
 * adapters' binary ("C") collation orders ids.
 */
export function newestFirst<value>(lists: readonly (readonly Record<value>[])[]): Record<value>[] {
  const unique = new Map(lists.flat().map((record) => [record.id, record]))
  return [...unique.values()].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  )
}

/** Whether an `update` change function refused. */
export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as Refusal).refused === true
}

/** The previous hash of the first entry of every chain. */
export const genesisHash = `0x${'0'.repeat(64)}` as const

/** Every entry of a chain in order, read a page at a time, for walks longer than one `entries` call answers. */
export async function* walk<value>(store: Store, chain: string, pageSize = 500): AsyncGenerator<LogEntry<value>> {
  let fromSequence = 1
  for (;;) {
    const page = await store.entries<value>(chain, { fromSequence, limit: pageSize })
    yield* page
    if (page.length < pageSize) return
    fromSequence = page.at(-1)!.sequence + 1
  }
}
