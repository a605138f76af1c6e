import { and, asc, desc, eq, gte, sql as raw } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'
import { getAddress } from 'viem'
import * as Store from '../../core/Store.js'
import { isolate, migrateOnce } from '../internal/postgres.js'
import { outboxInsert, outboxValues, pgQueueMigration } from '../queue/schema.js'
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

// One round trip for several owners: each owner's newest `$3` ids from the owners' index, then their records.
const listOwnedStatement = `SELECT r.collection, r.id, r.owners::text AS owners, r.value::text AS value, r.version,
r.created_at AS "createdAt", r.updated_at AS "updatedAt"
FROM unnest($2::text[]) AS o(owner)
CROSS JOIN LATERAL (SELECT id FROM record_owners WHERE collection = $1 AND owner = o.owner
ORDER BY created_at DESC, id DESC LIMIT $3) AS owned
JOIN records r ON r.collection = $1 AND r.id = owned.id`

// Every write is one prepared statement, or a transaction of a few, written here as SQL: drizzle would build each
// statement's text anew on every call (about half a millisecond of CPU per write). JSON goes in as text and comes out as
// text: a json parameter would pass through the client's JSON serializer, and a json result through its parser (the
// string "1" would come back as the number 1).

/** A record's columns as `fromRecordRow` reads them. */
const recordColumns = `collection, id, owners::text AS owners, value::text AS value, version, created_at AS "createdAt",
  updated_at AS "updatedAt"`

/** A log entry's columns as `fromEntryRow` reads them. */
const entryColumns = `chain, sequence, value::text AS value, previous_hash AS "previousHash", hash, created_at AS "createdAt"`

// One statement, so atomic: the record, its owners (so that `list` never sees one without the other) and the work
// that commits with it, the last two only when the record was inserted.
const insertStatement = `WITH inserted AS (
  INSERT INTO records (collection, id, owners, value, version, created_at, updated_at)
  VALUES ($1, $2, $3::text::jsonb, $4::text::json, 1, $5, $5)
  ON CONFLICT DO NOTHING
  RETURNING ${recordColumns}
), owned AS (
  INSERT INTO record_owners (collection, id, owner, created_at)
  SELECT inserted.collection, inserted.id, o.owner, inserted."createdAt"
  FROM inserted CROSS JOIN unnest($6::text[]) AS o(owner)
), ${outboxInsert('inserted', 7)}
SELECT * FROM inserted`

// The change lands only on the record it was computed from, at the version read (a record removed and inserted again
// starts at version 1 anew, with a later creation time); the work commits with it.
const updateStatement = `WITH updated AS (
  UPDATE records SET value = $3::text::json, version = version + 1, updated_at = $4
  WHERE collection = $1 AND id = $2 AND version = $5 AND created_at = $6
  RETURNING ${recordColumns}
), ${outboxInsert('updated', 7)}
SELECT * FROM updated`

const readStatement = `SELECT ${recordColumns} FROM records WHERE collection = $1 AND id = $2`
const lockStatement = `${readStatement} FOR UPDATE`

// One statement, so `list` never sees a record without its owners or the other way round.
const removeStatement = `WITH unowned AS (DELETE FROM record_owners WHERE collection = $1 AND id = $2)
DELETE FROM records WHERE collection = $1 AND id = $2 RETURNING id`

/** The transaction-level advisory lock of a chain, which `append` and `truncate` hold. */
const chainLockStatement = 'SELECT pg_advisory_xact_lock(hashtext($1))'
const lastEntryStatement = `SELECT ${entryColumns} FROM log_entries WHERE chain = $1 ORDER BY sequence DESC LIMIT 1`
const appendStatement = `INSERT INTO log_entries (chain, sequence, value, previous_hash, hash, created_at)
VALUES ($1, $2, $3::text::json, $4, $5, $6) RETURNING ${entryColumns}`
const truncateStatement = `DELETE FROM log_entries WHERE chain = $1 AND sequence = $2
  AND NOT EXISTS (SELECT 1 FROM log_entries AS later WHERE later.chain = $1 AND later.sequence > $2)
RETURNING sequence`

/** Optimistic tries of an update before it takes the record's row lock. */
const optimisticAttempts = 3

/**
 * One try of an update: reads the record with `read` (plain, or locking its row), applies the change and writes it if
 * the record is still at the version read. `undefined` when another write got there first.
 */
async function updateOnce<value>(
  sql: Pick<Sql, 'unsafe'>,
  read: string,
  write: {
    collection: string
    id: string
    change: (current: Store.Record<value>) => value | Store.Refusal
    also: Store.Also | undefined
  },
): Promise<
  | { ok: true; record: Store.Record<value> }
  | { ok: false; reason: 'not_found' }
  | ({ ok: false } & Store.Refusal)
  | undefined
> {
  const { collection, id, change, also } = write
  const [row] = await sql.unsafe<fromRecordRow.Row[]>(read, [collection, id], { prepare: true })
  if (!row) return { ok: false, reason: 'not_found' }
  const current = fromRecordRow<value>(row)
  const next = change(current)
  if (Store.isRefusal(next)) return { ok: false, ...next }
  const [updated] = await sql.unsafe<fromRecordRow.Row[]>(
    updateStatement,
    [
      collection,
      id,
      toJson(next),
      new Date(),
      current.version,
      current.createdAt,
      ...outboxValues(also?.enqueue ?? [], Date.now()),
    ],
    { prepare: true },
  )
  return updated ? { ok: true, record: fromRecordRow(updated) } : undefined
}

/**
 * The store on PostgreSQL, for production and for several gateway processes on one database. Creates its tables
 * at first use (idempotent, under an advisory lock, so processes may start together). `update` writes on the version
 * it read, and after a few lost races takes the row lock (`SELECT ... FOR UPDATE`); `append` takes a transaction-level
 * advisory lock on the chain, so two processes never take the same sequence number (the primary key would refuse the
 * second), and `truncate` takes it too, so it never deletes an entry that another process is linking to.
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

  // Named prepared statements: drizzle sends unnamed ones unprepared, which costs postgres.js a second round trip.
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

  return {
    async insert(record, also) {
      await ready()
      const { collection, id, createdAt } = record
      const owners = toOwners(record.owners)
      const [row] = await parameters.sql.unsafe<fromRecordRow.Row[]>(
        insertStatement,
        [
          collection,
          id,
          JSON.stringify(owners),
          toJson(record.value),
          createdAt,
          owners,
          ...outboxValues(also?.enqueue ?? [], Date.now()),
        ],
        { prepare: true },
      )
      return row ? { ok: true, record: fromRecordRow(row) } : { ok: false, reason: 'exists' }
    },
    async get(collection, id) {
      await ready()
      const [row] = await parameters.sql.unsafe<fromRecordRow.Row[]>(readStatement, [collection, id], { prepare: true })
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
      for (let attempt = 1; ; attempt++) {
        // A write that lost the race to the record a few times takes its row lock: the writers of a busy record then
        // take turns instead of racing on.
        const outcome =
          attempt <= optimisticAttempts
            ? await updateOnce(parameters.sql, readStatement, { collection, id, change, also })
            : await parameters.sql.begin((tx) => updateOnce(tx, lockStatement, { collection, id, change, also }))
        if (outcome) return outcome
      }
    },
    async append(chain, make) {
      await ready()
      return parameters.sql.begin(async (tx) => {
        // A statement of its own: under READ COMMITTED the next statement's snapshot is taken once the lock is held,
        // so it sees the entry that the previous holder committed.
        await tx.unsafe(chainLockStatement, [chain], { prepare: true })
        const [row] = await tx.unsafe<fromEntryRow.Row[]>(lastEntryStatement, [chain], { prepare: true })
        const previous = row ? fromEntryRow<never>(row) : undefined
        const made = make(previous)
        const [entry] = await tx.unsafe<fromEntryRow.Row[]>(
          appendStatement,
          [
            chain,
            (previous?.sequence ?? 0) + 1,
            toJson(made.value),
            previous?.hash ?? Store.genesisHash,
            made.hash,
            made.createdAt,
          ],
          { prepare: true },
        )
        return fromEntryRow(entry!)
      })
    },
    async remove(collection, id) {
      await ready()
      return (await parameters.sql.unsafe(removeStatement, [collection, id], { prepare: true })).length > 0
    },
    async truncate(chain, sequence) {
      await ready()
      return parameters.sql.begin(async (tx) => {
        // The lock of `append`: no append reads the last entry, or links to it, while it is deleted.
        await tx.unsafe(chainLockStatement, [chain], { prepare: true })
        return (await tx.unsafe(truncateStatement, [chain, sequence], { prepare: true })).length > 0
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
