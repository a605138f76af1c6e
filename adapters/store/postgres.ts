import { and, asc, desc, eq, gte, sql as raw } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'
import { getAddress } from 'viem'
import * as Store from '../../core/Store.js'
import { isolate, migrateOnce } from '../internal/postgres.js'
import { enqueueStatement, pgQueueMigration } from '../queue/schema.js'
import {
  fromEntryRow,
  fromRecordRow,
  pgLogEntries as logEntries,
  pgMigration,
  pgRecordOwners as recordOwners,
  pgRecords as records,
  toJson,
  toOwners,
} from './schema.js'

/** Key of the transaction-level advisory lock that serialises the migration across processes ("store" in ASCII). */
const migrationLock = 0x73746f7265n

/**
 * The store on PostgreSQL, for production and for several gateway processes on one database. Creates its tables
 * at first use (idempotent, under an advisory lock, so processes may start together). `update` locks the row with
 * `SELECT ... FOR UPDATE`; `append` takes a transaction-level advisory lock on the chain, so two processes never
 * take the same sequence number (the primary key would refuse the second), and `truncate` takes it too, so it never
 * deletes an entry that another process is linking to.
 *
 * The caller owns `sql`: `close` does not end it, and its type parsers are left as they were.
 * Owners are stored checksummed, whatever letter case the caller used.
 */
export function postgres(parameters: postgres.Parameters): Store.Store {
  const db = drizzle({ client: isolate(parameters.sql) })
  let closed = false
  const migrate = migrateOnce({ db, lock: migrationLock, statements: [...pgMigration, ...pgQueueMigration] })

  const ready = async () => {
    if (closed) throw new Error('The postgres store is closed.')
    await migrate()
  }

  // JSON goes in as text and comes out as text: a json parameter would pass through the client's JSON serializer
  // on top of drizzle's (stored as a JSON string), and a json result through both parsers (the string "1" would
  // come back as the number 1).
  const fromText = (name: string, type: 'json' | 'jsonb') =>
    raw`cast(${raw.placeholder(name)} as text)::${raw.raw(type)}`
  const recordFields = {
    collection: records.collection,
    id: records.id,
    owners: raw<string>`${records.owners}::text`,
    value: raw<string>`${records.value}::text`,
    version: records.version,
    createdAt: records.createdAt,
    updatedAt: records.updatedAt,
  }
  const entryFields = {
    chain: logEntries.chain,
    sequence: logEntries.sequence,
    value: raw<string>`${logEntries.value}::text`,
    previousHash: logEntries.previousHash,
    hash: logEntries.hash,
    createdAt: logEntries.createdAt,
  }
  const byKey = and(eq(records.collection, raw.placeholder('collection')), eq(records.id, raw.placeholder('id')))

  // One round trip for several owners: each owner's newest `$3` ids from the owners' index, then their records.
  const listOwnedStatement = `SELECT r.collection, r.id, r.owners::text AS owners, r.value::text AS value, r.version,
  r.created_at AS "createdAt", r.updated_at AS "updatedAt"
FROM unnest($2::text[]) AS o(owner)
CROSS JOIN LATERAL (SELECT id FROM record_owners WHERE collection = $1 AND owner = o.owner
  ORDER BY created_at DESC, id DESC LIMIT $3) AS owned
JOIN records r ON r.collection = $1 AND r.id = owned.id`

  // Named prepared statements: drizzle sends unnamed ones unprepared, which costs postgres.js a second round trip.
  const read = db.select(recordFields).from(records).where(byKey).prepare('store_read')
  const list = db
    .select(recordFields)
    .from(recordOwners)
    .innerJoin(records, and(eq(records.collection, recordOwners.collection), eq(records.id, recordOwners.id)))
    .where(
      and(eq(recordOwners.collection, raw.placeholder('collection')), eq(recordOwners.owner, raw.placeholder('owner'))),
    )
    .orderBy(desc(recordOwners.createdAt), desc(recordOwners.id))
    .limit(raw.placeholder('limit'))
    .prepare('store_list')
  const entries = db
    .select(entryFields)
    .from(logEntries)
    .where(
      and(eq(logEntries.chain, raw.placeholder('chain')), gte(logEntries.sequence, raw.placeholder('fromSequence'))),
    )
    .orderBy(asc(logEntries.sequence))
    .limit(raw.placeholder('limit'))
    .prepare('store_entries')

  /**
   * Takes the transaction-level advisory lock of a chain, which `append` and `truncate` hold. A statement of its
   * own: under READ COMMITTED the next statement's snapshot is taken once the lock is held, so it sees the entry
   * that the previous holder committed. drizzle's select needs a FROM; a one-row VALUES keeps it prepared.
   */
  const lockChain = (tx: Pick<typeof db, 'select'>, chain: string) =>
    tx
      .select({ locked: raw`pg_advisory_xact_lock(hashtext(${raw.placeholder('chain')}))` })
      .from(raw`(VALUES (1)) AS chain_lock (one)`)
      .prepare('store_chain_lock')
      .execute({ chain })

  // Inside the write's transaction: the work commits with the write.
  const enqueue = async (tx: Pick<typeof db, 'execute'>, also: Store.Also | undefined) => {
    const now = Date.now()
    for (const item of also?.enqueue ?? []) await tx.execute(enqueueStatement(item, now))
  }

  return {
    async insert(record, also) {
      await ready()
      const owners = toOwners(record.owners)
      const { collection, id, createdAt } = record
      const inserted = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(records)
          .values({
            collection: raw.placeholder('collection'),
            id: raw.placeholder('id'),
            owners: fromText('owners', 'jsonb'),
            value: fromText('value', 'json'),
            version: 1,
            createdAt: raw.placeholder('createdAt'),
            updatedAt: raw.placeholder('createdAt'),
          })
          .onConflictDoNothing()
          .returning(recordFields)
          .prepare('store_insert')
          .execute({ collection, id, createdAt, owners: JSON.stringify(owners), value: toJson(record.value) })
        if (!row) return row
        await enqueue(tx, also)
        if (owners.length === 0) return row
        // In the record's transaction, so `list` never sees one without the other.
        await tx
          .insert(recordOwners)
          .values(owners.map((owner) => ({ collection, id, owner, createdAt })))
          .prepare('store_insert_owners')
          .execute()
        return row
      })
      return inserted ? { ok: true, record: fromRecordRow(inserted) } : { ok: false, reason: 'exists' }
    },
    async get(collection, id) {
      await ready()
      const [row] = await read.execute({ collection, id })
      return row ? fromRecordRow(row) : undefined
    },
    async list(collection, { owner, limit = 100 }) {
      await ready()
      return (await list.execute({ collection, owner: getAddress(owner), limit })).map((row) => fromRecordRow(row))
    },
    async listOwned(collection, { owners, limit = 100 }) {
      await ready()
      const rows = await parameters.sql.unsafe<fromRecordRow.Row[]>(
        listOwnedStatement,
        [collection, owners.map((owner) => getAddress(owner)), limit],
        { prepare: true },
      )
      return Store.newestFirst([rows.map((row) => fromRecordRow(row))])
    },
    async update(collection, id, change, also) {
      await ready()
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select(recordFields)
          .from(records)
          .where(byKey)
          .for('update')
          .prepare('store_lock')
          .execute({ collection, id })
        if (!row) return { ok: false, reason: 'not_found' } as const
        const current = fromRecordRow<never>(row)
        const next = change(current)
        if (Store.isRefusal(next)) return { ok: false, ...next } as const
        const [updated] = await tx
          .update(records)
          .set({ value: fromText('value', 'json'), version: current.version + 1, updatedAt: new Date() })
          .where(byKey)
          .returning(recordFields)
          .prepare('store_update')
          .execute({ collection, id, value: toJson(next) })
        await enqueue(tx, also)
        return { ok: true, record: fromRecordRow(updated!) } as const
      })
    },
    async append(chain, make) {
      await ready()
      return db.transaction(async (tx) => {
        await lockChain(tx, chain)
        const [row] = await tx
          .select(entryFields)
          .from(logEntries)
          .where(eq(logEntries.chain, raw.placeholder('chain')))
          .orderBy(desc(logEntries.sequence))
          .limit(1)
          .prepare('store_last')
          .execute({ chain })
        const previous = row ? fromEntryRow<never>(row) : undefined
        const made = make(previous)
        const [entry] = await tx
          .insert(logEntries)
          .values({
            chain: raw.placeholder('chain'),
            sequence: raw.placeholder('sequence'),
            value: fromText('value', 'json'),
            previousHash: raw.placeholder('previousHash'),
            hash: raw.placeholder('hash'),
            createdAt: raw.placeholder('createdAt'),
          })
          .returning(entryFields)
          .prepare('store_append')
          .execute({
            chain,
            sequence: (previous?.sequence ?? 0) + 1,
            value: toJson(made.value),
            previousHash: previous?.hash ?? Store.genesisHash,
            hash: made.hash,
            createdAt: made.createdAt,
          })
        return fromEntryRow(entry!)
      })
    },
    async remove(collection, id) {
      await ready()
      return db.transaction(async (tx) => {
        // In the record's transaction, so `list` never sees one without the other.
        await tx
          .delete(recordOwners)
          .where(
            and(eq(recordOwners.collection, raw.placeholder('collection')), eq(recordOwners.id, raw.placeholder('id'))),
          )
          .prepare('store_remove_owners')
          .execute({ collection, id })
        const removed = await tx
          .delete(records)
          .where(byKey)
          .returning({ id: records.id })
          .prepare('store_remove')
          .execute({ collection, id })
        return removed.length > 0
      })
    },
    async truncate(chain, sequence) {
      await ready()
      return db.transaction(async (tx) => {
        // The lock of `append`: no append reads the last entry, or links to it, while it is deleted.
        await lockChain(tx, chain)
        const removed = await tx
          .delete(logEntries)
          .where(
            and(
              eq(logEntries.chain, raw.placeholder('chain')),
              eq(logEntries.sequence, raw.placeholder('sequence')),
              raw`NOT EXISTS (SELECT 1 FROM log_entries AS later WHERE later.chain = ${raw.placeholder('chain')}
                AND later.sequence > ${raw.placeholder('sequence')})`,
            ),
          )
          .returning({ sequence: logEntries.sequence })
          .prepare('store_truncate')
          .execute({ chain, sequence })
        return removed.length > 0
      })
    },
    async entries(chain, { fromSequence = 1, limit = 1000 } = {}) {
      await ready()
      return (await entries.execute({ chain, fromSequence, limit })).map((row) => fromEntryRow(row))
    },
    async close() {
      closed = true
    },
  }
}

export declare namespace postgres {
  type Parameters = {
    /** A postgres.js client; the caller owns it and ends it after `close`. */
    sql: Sql
  }
}
