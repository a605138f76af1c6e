import {
  index as pgIndex,
  integer as pgInteger,
  primaryKey as pgPrimaryKey,
  pgTable,
  text as pgText,
  timestamp,
} from 'drizzle-orm/pg-core'
import {
  integer,
  index as sqliteIndex,
  primaryKey as sqlitePrimaryKey,
  sqliteTable,
  text as sqliteText,
} from 'drizzle-orm/sqlite-core'
import { type Address, getAddress } from 'viem'
import type { LogEntry, Record } from '../../core/Store.js'
import { jsonText as pgJson, jsonbText as pgJsonb } from '../internal/postgres.js'

// The DDL below and the drizzle tables describe the same tables; drizzle-kit is not used, so change both together.
// Owners and values travel as JSON text in both dialects: the adapters serialize and parse them themselves, so a
// value comes back exactly as `JSON.stringify` wrote it, key order included, whatever the client's JSON parsers.

/** The `records` table on SQLite: JSON as text, times as epoch milliseconds. */
export const sqliteRecords = sqliteTable(
  'records',
  {
    /** Collection name. */
    collection: sqliteText('collection').notNull(),
    /** Id within the collection. */
    id: sqliteText('id').notNull(),
    /** JSON array of checksummed owner addresses. */
    owners: sqliteText('owners').notNull(),
    /** The JSON value. */
    value: sqliteText('value').notNull(),
    /** Version, from 1. */
    version: integer('version').notNull(),
    /** Insert time (epoch ms). */
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    /** Last change (epoch ms). */
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [sqlitePrimaryKey({ columns: [table.collection, table.id] })],
)

/** The `record_owners` table on SQLite: one row per owner of a record, so that `list` by owner is indexed. */
export const sqliteRecordOwners = sqliteTable(
  'record_owners',
  {
    /** Collection name. */
    collection: sqliteText('collection').notNull(),
    /** Id within the collection. */
    id: sqliteText('id').notNull(),
    /** Checksummed owner address. */
    owner: sqliteText('owner').notNull(),
    /** The record's insert time (epoch ms), copied so that the index orders by it. */
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    sqlitePrimaryKey({ columns: [table.collection, table.id, table.owner] }),
    sqliteIndex('record_owners_owner_created_at').on(table.collection, table.owner, table.createdAt, table.id),
  ],
)

/** The `log_entries` table on SQLite: JSON as text, times as epoch milliseconds. */
export const sqliteLogEntries = sqliteTable(
  'log_entries',
  {
    /** Chain name. */
    chain: sqliteText('chain').notNull(),
    /** Position in the chain, from 1. */
    sequence: integer('sequence').notNull(),
    /** The JSON value. */
    value: sqliteText('value').notNull(),
    /** Hash of the previous entry. */
    previousHash: sqliteText('previous_hash').$type<`0x${string}`>().notNull(),
    /** Hash of this entry. */
    hash: sqliteText('hash').$type<`0x${string}`>().notNull(),
    /** Append time (epoch ms). */
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [sqlitePrimaryKey({ columns: [table.chain, table.sequence] })],
)

/** The `records` table on PostgreSQL: owners as jsonb, the value as json (exact text), times as timestamptz. */
export const pgRecords = pgTable(
  'records',
  {
    /** Collection name. */
    collection: pgText('collection').notNull(),
    /** Id within the collection. */
    id: pgText('id').notNull(),
    /** JSON array of checksummed owner addresses. */
    owners: pgJsonb('owners').notNull(),
    /** The JSON value. */
    value: pgJson('value').notNull(),
    /** Version, from 1. */
    version: pgInteger('version').notNull(),
    /** Insert time. */
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Last change. */
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [pgPrimaryKey({ columns: [table.collection, table.id] })],
)

/** The `record_owners` table on PostgreSQL: one row per owner of a record, so that `list` by owner is indexed. */
export const pgRecordOwners = pgTable(
  'record_owners',
  {
    /** Collection name. */
    collection: pgText('collection').notNull(),
    /** Id within the collection. */
    id: pgText('id').notNull(),
    /** Checksummed owner address. */
    owner: pgText('owner').notNull(),
    /** The record's insert time, copied so that the index orders by it. */
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    pgPrimaryKey({ columns: [table.collection, table.id, table.owner] }),
    pgIndex('record_owners_owner_created_at').on(table.collection, table.owner, table.createdAt, table.id),
  ],
)

/** The `log_entries` table on PostgreSQL: the value as json (exact text, which the caller's hash covers). */
export const pgLogEntries = pgTable(
  'log_entries',
  {
    /** Chain name. */
    chain: pgText('chain').notNull(),
    /** Position in the chain, from 1. */
    sequence: pgInteger('sequence').notNull(),
    /** The JSON value. */
    value: pgJson('value').notNull(),
    /** Hash of the previous entry. */
    previousHash: pgText('previous_hash').$type<`0x${string}`>().notNull(),
    /** Hash of this entry. */
    hash: pgText('hash').$type<`0x${string}`>().notNull(),
    /** Append time. */
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [pgPrimaryKey({ columns: [table.chain, table.sequence] })],
)

/** Idempotent SQLite migration creating the store's tables, one statement per item. */
export const sqliteMigration = [
  `CREATE TABLE IF NOT EXISTS records (
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    owners TEXT NOT NULL CHECK (json_valid(owners) AND json_type(owners) = 'array'),
    value TEXT NOT NULL CHECK (json_valid(value)),
    version INTEGER NOT NULL CHECK (version >= 1),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (collection, id)
  ) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS record_owners (
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    owner TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (collection, id, owner)
  ) WITHOUT ROWID`,
  // `id` last: records inserted in the same millisecond are listed by id, from the index alone.
  'CREATE INDEX IF NOT EXISTS record_owners_owner_created_at ON record_owners (collection, owner, created_at, id)',
  `CREATE TABLE IF NOT EXISTS log_entries (
    chain TEXT NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    value TEXT NOT NULL CHECK (json_valid(value)),
    previous_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (chain, sequence)
  ) WITHOUT ROWID`,
] as const

// Keys collate as "C" (by byte, like SQLite and the memory adapter) whatever the database's locale, so that ties
// in `list` come out in the same order on every adapter.

/** Idempotent PostgreSQL migration creating the store's tables, one statement per item. */
export const pgMigration = [
  `CREATE TABLE IF NOT EXISTS records (
    collection text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    owners jsonb NOT NULL CHECK (jsonb_typeof(owners) = 'array'),
    value json NOT NULL,
    version integer NOT NULL CHECK (version >= 1),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (collection, id)
  )`,
  `CREATE TABLE IF NOT EXISTS record_owners (
    collection text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (collection, id, owner)
  )`,
  'CREATE INDEX IF NOT EXISTS record_owners_owner_created_at ON record_owners (collection, owner, created_at, id)',
  `CREATE TABLE IF NOT EXISTS log_entries (
    chain text COLLATE "C" NOT NULL,
    sequence integer NOT NULL CHECK (sequence >= 1),
    value json NOT NULL,
    previous_hash text NOT NULL,
    hash text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (chain, sequence)
  )`,
] as const

/** The stored owners of a record: checksummed, each once, in the caller's order. */
export function toOwners(owners: readonly string[]): Address[] {
  return [...new Set(owners.map((owner) => getAddress(owner)))]
}

/** The JSON text of a value; throws for what JSON cannot hold (`undefined`, a function), which is a fault. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined) throw new TypeError(`A stored value must be JSON, not ${typeof value}.`)
  return text
}

/** A record from a row of either dialect (owners and value as JSON text). */
export function fromRecordRow<value>(row: fromRecordRow.Row): Record<value> {
  return {
    collection: row.collection,
    id: row.id,
    owners: JSON.parse(row.owners),
    value: JSON.parse(row.value),
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

export declare namespace fromRecordRow {
  type Row = {
    /** Collection name. */
    collection: string
    /** Id within the collection. */
    id: string
    /** JSON array of checksummed owner addresses. */
    owners: string
    /** JSON text of the value. */
    value: string
    /** Version, from 1. */
    version: number
    /** Insert time. */
    createdAt: Date
    /** Last change. */
    updatedAt: Date
  }
}

/** A log entry from a row of either dialect (value as JSON text). */
export function fromEntryRow<value>(row: fromEntryRow.Row): LogEntry<value> {
  return {
    chain: row.chain,
    sequence: row.sequence,
    value: JSON.parse(row.value),
    previousHash: row.previousHash,
    hash: row.hash,
    createdAt: row.createdAt,
  }
}

export declare namespace fromEntryRow {
  type Row = {
    /** Chain name. */
    chain: string
    /** Position in the chain, from 1. */
    sequence: number
    /** JSON text of the value. */
    value: string
    /** Hash of the previous entry. */
    previousHash: `0x${string}`
    /** Hash of this entry. */
    hash: `0x${string}`
    /** Append time. */
    createdAt: Date
  }
}
