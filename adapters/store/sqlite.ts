import { and, asc, desc, eq, gte, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { type Address, getAddress } from 'viem'
import * as Store from '../../core/Store.js'
import { open } from '../internal/sqlite.js'
import { enqueueSql, enqueueValues, sqliteQueueMigration } from '../queue/schema.js'
import {
  fromEntryRow,
  fromRecordRow,
  sqliteLogEntries as logEntries,
  sqliteRecordOwners as recordOwners,
  sqliteRecords as records,
  sqliteMigration,
  toJson,
  toOwners,
} from './schema.js'

/** What an update answers. */
type Updated = { ok: true; record: Store.Record<never> } | ({ ok: false } & ({ reason: 'not_found' } | Store.Refusal))

/** What an `append` maker returns, whatever its value's type. */
type Made = Pick<Store.LogEntry, 'value' | 'hash' | 'createdAt'>

/**
 * The embedded durable store: one SQLite file through `bun:sqlite` in WAL mode, no server needed. Creates the
 * file's folder and the tables when opened. Several processes may open the same file: every write runs in a
 * `BEGIN IMMEDIATE` transaction, so `update` and `append` read and write under the write lock, and a writer waits
 * up to `busyTimeout` for another one; `truncate` deletes the last entry under it too.
 *
 * Owners are stored checksummed, whatever letter case the caller used.
 */
export function sqlite(parameters: sqlite.Parameters): Store.Store {
  const { busyTimeout = 5_000, path } = parameters

  const client = open({ path, busyTimeout, migration: [...sqliteMigration, ...sqliteQueueMigration] })

  const db = drizzle({ client })

  const byKey = and(eq(records.collection, sql.placeholder('collection')), eq(records.id, sql.placeholder('id')))
  const insertRecord = db
    .insert(records)
    .values({
      collection: sql.placeholder('collection'),
      id: sql.placeholder('id'),
      owners: sql.placeholder('owners'),
      value: sql.placeholder('value'),
      version: 1,
      createdAt: sql.placeholder('createdAt'),
      updatedAt: sql.placeholder('createdAt'),
    })
    .onConflictDoNothing()
    .returning()
    .prepare()
  const insertOwner = db
    .insert(recordOwners)
    .values({
      collection: sql.placeholder('collection'),
      id: sql.placeholder('id'),
      owner: sql.placeholder('owner'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare()
  const read = db.select().from(records).where(byKey).prepare()
  const write = db
    .update(records)
    // drizzle's update types leave out placeholders, which its runtime encodes through the column like values.
    .set({
      value: sql.placeholder('value'),
      version: sql.placeholder('version'),
      updatedAt: sql.placeholder('updatedAt'),
    } as unknown as Partial<typeof records.$inferInsert>)
    .where(byKey)
    .prepare()
  const list = db
    .select({
      collection: records.collection,
      id: records.id,
      owners: records.owners,
      value: records.value,
      version: records.version,
      createdAt: records.createdAt,
      updatedAt: records.updatedAt,
    })
    .from(recordOwners)
    .innerJoin(records, and(eq(records.collection, recordOwners.collection), eq(records.id, recordOwners.id)))
    .where(
      and(eq(recordOwners.collection, sql.placeholder('collection')), eq(recordOwners.owner, sql.placeholder('owner'))),
    )
    .orderBy(desc(recordOwners.createdAt), desc(recordOwners.id))
    .limit(sql.placeholder('limit'))
    .prepare()
  const last = db
    .select()
    .from(logEntries)
    .where(eq(logEntries.chain, sql.placeholder('chain')))
    .orderBy(desc(logEntries.sequence))
    .limit(1)
    .prepare()
  const insertEntry = db
    .insert(logEntries)
    .values({
      chain: sql.placeholder('chain'),
      sequence: sql.placeholder('sequence'),
      value: sql.placeholder('value'),
      previousHash: sql.placeholder('previousHash'),
      hash: sql.placeholder('hash'),
      createdAt: sql.placeholder('createdAt'),
    })
    .returning()
    .prepare()
  const removeRecord = db.delete(records).where(byKey).returning({ id: records.id }).prepare()
  const removeOwners = db
    .delete(recordOwners)
    .where(and(eq(recordOwners.collection, sql.placeholder('collection')), eq(recordOwners.id, sql.placeholder('id'))))
    .prepare()
  const removeEntry = db
    .delete(logEntries)
    .where(and(eq(logEntries.chain, sql.placeholder('chain')), eq(logEntries.sequence, sql.placeholder('sequence'))))
    .prepare()
  const entries = db
    .select()
    .from(logEntries)
    .where(
      and(eq(logEntries.chain, sql.placeholder('chain')), gte(logEntries.sequence, sql.placeholder('fromSequence'))),
    )
    .orderBy(asc(logEntries.sequence))
    .limit(sql.placeholder('limit'))
    .prepare()

  const enqueueItem = client.prepare(enqueueSql)
  // Inside the write's transaction: the work commits with the write.
  const enqueue = (also: Store.Also | undefined) => {
    const now = Date.now()
    for (const item of also?.enqueue ?? []) enqueueItem.run(...enqueueValues(item, now))
  }

  // The record and its owner rows commit together, so `list` never sees one without the other.
  const insertAtomically = client.transaction((record: Parameters<Store.Store['insert']>[0], also?: Store.Also) => {
    const owners = toOwners(record.owners)
    const key = { collection: record.collection, id: record.id, createdAt: record.createdAt }
    const inserted = insertRecord.get({ ...key, owners: JSON.stringify(owners), value: toJson(record.value) })
    if (!inserted) return undefined
    for (const owner of owners) insertOwner.run({ ...key, owner })
    enqueue(also)
    return inserted
  })
  // Reads, calls `change` and writes under the write lock, so no other process changes the record in between.
  const updateOne = (
    collection: string,
    id: string,
    change: (current: Store.Record<never>) => unknown,
    also?: Store.Also,
  ): Updated => {
    const row = read.get({ collection, id })
    if (!row) return { ok: false, reason: 'not_found' }
    const current = fromRecordRow<never>(row)
    const next = change(current)
    if (Store.isRefusal(next)) return { ok: false, ...next }
    const text = toJson(next)
    const changed = { version: current.version + 1, updatedAt: new Date() }
    write.run({ collection, id, value: text, ...changed })
    enqueue(also)
    // What was written, as a read of the row would give it back: no need to return the row (and its value) again.
    return { ok: true, record: { ...current, value: JSON.parse(text) as never, ...changed } }
  }
  // A group of updates in one transaction, in order, each reading what the ones before it wrote; a `change` that
  // throws fails its own update only (it throws before anything of it is written).
  const updateAllAtomically = client.transaction((group: readonly Waiting[]) =>
    group.map((one): { ok: true; updated: Updated } | { ok: false; error: unknown } => {
      let threw = false
      const change = (current: Store.Record<never>) => {
        try {
          return one.change(current)
        } catch (error) {
          threw = true
          throw error
        }
      }
      try {
        return { ok: true, updated: updateOne(one.collection, one.id, change, one.also) }
      } catch (error) {
        // Anything but the caller's own `change` is a fault of the database: the whole group fails.
        if (!threw) throw error
        return { ok: false, error }
      }
    }),
  )
  // Group commit: the updates made in one turn of the event loop share one transaction (one commit) instead of one
  // each; each caller gets its own outcome once its group has committed.
  type Waiting = {
    collection: string
    id: string
    change: (current: Store.Record<never>) => unknown
    also: Store.Also | undefined
    resolve: (updated: Updated) => void
    reject: (error: unknown) => void
  }
  let waiting: Waiting[] = []
  let scheduled = false
  const writeGroup = () => {
    scheduled = false
    const group = waiting
    waiting = []
    try {
      updateAllAtomically.immediate(group).forEach((outcome, index) => {
        if (outcome.ok) group[index]!.resolve(outcome.updated)
        else group[index]!.reject(outcome.error)
      })
    } catch (error) {
      for (const one of group) one.reject(error)
    }
  }
  // Reads the last entry, calls `make` and inserts under the write lock, so no other process takes the sequence.
  const appendAtomically = client.transaction(
    (chain: string, make: (last: Store.LogEntry<never> | undefined) => Made) => {
      const row = last.get({ chain })
      const previous = row ? fromEntryRow<never>(row) : undefined
      const made = make(previous)
      const entry = insertEntry.get({
        chain,
        sequence: (previous?.sequence ?? 0) + 1,
        value: toJson(made.value),
        previousHash: previous?.hash ?? Store.genesisHash,
        hash: made.hash,
        createdAt: made.createdAt,
      })
      return fromEntryRow<never>(entry!)
    },
  )

  // The record and its owner rows go together, so `list` never sees one without the other.
  const removeAtomically = client.transaction((collection: string, id: string) => {
    removeOwners.run({ collection, id })
    return removeRecord.all({ collection, id }).length > 0
  })
  // Reads the last entry and deletes it under the write lock, so no other process appends after it in between.
  const truncateAtomically = client.transaction((chain: string, sequence: number) => {
    if (last.get({ chain })?.sequence !== sequence) return false
    removeEntry.run({ chain, sequence })
    return true
  })
  /** The records of `collection` that `owner` owns, newest first, at most `limit`. */
  const listOf = <value>(collection: string, owner: Address, limit = 100) =>
    list.all({ collection, owner: getAddress(owner), limit }).map((row) => fromRecordRow<value>(row))

  return {
    async insert(record, also) {
      const inserted = insertAtomically.immediate(record, also)
      return inserted ? { ok: true, record: fromRecordRow(inserted) } : { ok: false, reason: 'exists' }
    },
    async get(collection, id) {
      const row = read.get({ collection, id })
      return row ? fromRecordRow(row) : undefined
    },
    async list(collection, { owner, limit }) {
      return listOf(collection, owner, limit)
    },
    async listOwned(collection, { owners, limit }) {
      // Each owner's read is local and indexed: no round trip to save by reading them as one.
      return Store.newestFirst(owners.map((owner) => listOf(collection, owner, limit)))
    },
    update(collection, id, change, also) {
      return new Promise<Updated>((resolve, reject) => {
        waiting.push({ collection, id, change: change as Waiting['change'], also, resolve, reject })
        if (!scheduled) {
          scheduled = true
          setImmediate(writeGroup)
        }
      }) as never
    },
    async append(chain, make) {
      return appendAtomically.immediate(chain, make)
    },
    async entries(chain, { fromSequence = 1, limit = 1000 } = {}) {
      return entries.all({ chain, fromSequence, limit }).map((row) => fromEntryRow(row))
    },
    async remove(collection, id) {
      return removeAtomically.immediate(collection, id)
    },
    async truncate(chain, sequence) {
      return truncateAtomically.immediate(chain, sequence)
    },
    async close() {
      // `true` finalizes the prepared statements too; otherwise SQLite keeps the connection alive for them.
      client.close(true)
    },
  }
}

export declare namespace sqlite {
  type Parameters = {
    /** Path of the database file (its folder is created), or `':memory:'` for a private in-memory database. */
    path: string
    /** How long (in ms) a write waits for another connection's write lock before failing. @default 5_000 */
    busyTimeout?: number
  }
}
