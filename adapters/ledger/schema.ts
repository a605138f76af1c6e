import { type AnyColumn, type SQL, sql } from 'drizzle-orm'
import {
  numeric,
  index as pgIndex,
  integer as pgInteger,
  primaryKey as pgPrimaryKey,
  pgTable,
  text as pgText,
  uniqueIndex as pgUniqueIndex,
  timestamp,
} from 'drizzle-orm/pg-core'
import {
  integer,
  index as sqliteIndex,
  primaryKey as sqlitePrimaryKey,
  sqliteTable,
  text as sqliteText,
  uniqueIndex as sqliteUniqueIndex,
} from 'drizzle-orm/sqlite-core'
import { getAddress, type Hash, type Hex } from 'viem'
import {
  type Claim,
  type Entry,
  isEvmPayer,
  type Payer,
  type Protocol,
  type State,
  type StoredResponse,
} from '../../core/Ledger.js'
import type { Effect } from '../../core/Store.js'
import { jsonbText, jsonText } from '../internal/postgres.js'
import type { open } from '../internal/sqlite.js'

// The DDL below and the drizzle tables describe the same tables; drizzle-kit is not used, so change both together.
// The stored response and the effects travel as JSON text in both dialects, parsed and serialized here, so an
// effect's `before` value comes back exactly as `JSON.stringify` wrote it, key order included.

/** States in which an entry holds its idempotency key. */
export const live = ['claimed', 'settling', 'settled'] as const satisfies readonly State[]

/** States whose amount counts against the payer's balance. */
export const outstanding = ['claimed', 'settling'] as const satisfies readonly State[]

/** States past which an entry never moves, whose stored response `forget` drops. */
export const decided = ['settled', 'failed', 'released'] as const satisfies readonly State[]

/** A list of states as SQL literals, for index predicates (a partial index matches only literal values). */
export const literals = (states: readonly State[]) => states.map((state) => `'${state}'`).join(', ')

/** `state IN (...)` with the states as literals, so that a query matches the partial indexes' predicates. */
export function inStates(column: AnyColumn, states: readonly State[]): SQL {
  return sql`${column} IN (${sql.raw(literals(states))})`
}

/** `idempotency_key IS NOT NULL AND state IN (live)`: the entries whose key is unique per payer. */
const holdsKey = `idempotency_key IS NOT NULL AND state IN (${literals(live)})`

/**
 * `state IN (outstanding)`: the entries whose amount is reserved. Their index repeats `state` although the predicate
 * fixes it: with two equality columns SQLite's planner prefers it to the primary key even before any `ANALYZE`.
 */
const isOutstanding = `state IN (${literals(outstanding)})`

/** `state = 'settled'`: the entries a balance read before their settlement may not show yet (see `Claim.balanceAt`). */
const isSettled = "state = 'settled'"

/** The `payments` table on SQLite: amounts as decimal text (exact beyond 2^64), times as epoch milliseconds. */
export const sqlitePayments = sqliteTable(
  'payments',
  {
    /** Checksummed payer address. */
    payer: sqliteText('payer').notNull(),
    /** Lowercase hex EIP-3009 nonce. */
    nonce: sqliteText('nonce').notNull(),
    /** Ledger state. */
    state: sqliteText('state').$type<State>().notNull(),
    /** Amount in atomic units, as the decimal text of the integer. */
    amount: sqliteText('amount').notNull(),
    /** `"METHOD path"` paid for. */
    endpoint: sqliteText('endpoint').notNull(),
    /** Payment protocol. */
    protocol: sqliteText('protocol').$type<Protocol>().notNull(),
    /** Settlement transaction hash, once known. */
    transaction: sqliteText('transaction').$type<Hash>(),
    /** Why it failed or was released. */
    reason: sqliteText('reason'),
    /** The signed authorization. */
    authorization: sqliteText('authorization').notNull(),
    /** Claim time (epoch ms). */
    claimedAt: integer('claimed_at', { mode: 'timestamp_ms' }).notNull(),
    /** Last change (epoch ms). */
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    /** Hash of the request paid for. @default '' (entries of earlier versions) */
    fingerprint: sqliteText('fingerprint').notNull().default(''),
    /** The caller's idempotency key, or null. */
    idempotencyKey: sqliteText('idempotency_key'),
    /** Lease of the process holding the claim, or null. */
    lease: sqliteText('lease'),
    /** JSON text of the kept response, or null. */
    response: sqliteText('response'),
    /** JSON text of the effects array. @default '[]' */
    effects: sqliteText('effects').notNull().default('[]'),
  },
  (table) => [
    sqlitePrimaryKey({ columns: [table.payer, table.nonce] }),
    sqliteIndex('payments_state_claimed_at').on(table.state, table.claimedAt),
    sqliteUniqueIndex('payments_payer_idempotency_key').on(table.payer, table.idempotencyKey).where(sql.raw(holdsKey)),
    sqliteIndex('payments_payer_outstanding').on(table.payer, table.state, table.amount).where(sql.raw(isOutstanding)),
    sqliteIndex('payments_payer_settled_updated_at').on(table.payer, table.updatedAt).where(sql.raw(isSettled)),
    sqliteIndex('payments_response_updated_at').on(table.updatedAt).where(sql.raw('response IS NOT NULL')),
  ],
)

/** The `payments` table on PostgreSQL: amounts as numeric(78,0) (any uint256), times as timestamptz. */
export const pgPayments = pgTable(
  'payments',
  {
    /** Checksummed payer address. */
    payer: pgText('payer').notNull(),
    /** Lowercase hex EIP-3009 nonce. */
    nonce: pgText('nonce').notNull(),
    /** Ledger state. */
    state: pgText('state').$type<State>().notNull(),
    /** Amount in atomic units. */
    amount: numeric('amount', { precision: 78, scale: 0, mode: 'bigint' }).notNull(),
    /** `"METHOD path"` paid for. */
    endpoint: pgText('endpoint').notNull(),
    /** Payment protocol. */
    protocol: pgText('protocol').$type<Protocol>().notNull(),
    /** Settlement transaction hash, once known. */
    transaction: pgText('transaction').$type<Hash>(),
    /** Why it failed or was released. */
    reason: pgText('reason'),
    /** The signed authorization. */
    authorization: pgText('authorization').notNull(),
    /** Claim time. */
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Last change. */
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Hash of the request paid for. @default '' (entries of earlier versions) */
    fingerprint: pgText('fingerprint').notNull().default(''),
    /** The caller's idempotency key, or null. */
    idempotencyKey: pgText('idempotency_key'),
    /** Lease of the process holding the claim, or null. */
    lease: pgText('lease'),
    /** The kept response as jsonb, or null. */
    response: jsonbText('response'),
    /** The effects array as json: an update's `before` is a store value, kept as written (key order, `\u0000`). */
    effects: jsonText('effects').notNull().default('[]'),
  },
  (table) => [
    pgPrimaryKey({ columns: [table.payer, table.nonce] }),
    pgIndex('payments_state_claimed_at').on(table.state, table.claimedAt),
    pgUniqueIndex('payments_payer_idempotency_key').on(table.payer, table.idempotencyKey).where(sql.raw(holdsKey)),
    pgIndex('payments_payer_outstanding').on(table.payer, table.state, table.amount).where(sql.raw(isOutstanding)),
    pgIndex('payments_payer_settled_updated_at').on(table.payer, table.updatedAt).where(sql.raw(isSettled)),
    pgIndex('payments_response_updated_at').on(table.updatedAt).where(sql.raw('response IS NOT NULL')),
  ],
)

/** The `leases` table on SQLite: one row per live gateway process, times as epoch milliseconds. */
export const sqliteLeases = sqliteTable('leases', {
  /** Random lease id. */
  id: sqliteText('id').primaryKey(),
  /** Host name. */
  host: sqliteText('host').notNull(),
  /** OS process id. */
  pid: integer('pid').notNull(),
  /** Slot, from 0, unique among leases. */
  slot: integer('slot').notNull().unique(),
  /** Last heartbeat (epoch ms). */
  heartbeatAt: integer('heartbeat_at', { mode: 'timestamp_ms' }).notNull(),
})

/** The `leases` table on PostgreSQL: one row per live gateway process. */
export const pgLeases = pgTable('leases', {
  /** Random lease id. */
  id: pgText('id').primaryKey(),
  /** Host name. */
  host: pgText('host').notNull(),
  /** OS process id. */
  pid: pgInteger('pid').notNull(),
  /** Slot, from 0, unique among leases. */
  slot: pgInteger('slot').notNull().unique(),
  /** Last heartbeat. */
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull(),
})

const states = "'claimed', 'settling', 'settled', 'failed', 'released'"

// A database of an earlier version has the payments table without these columns. Both migrations create the table
// as first shipped and then add each column it lacks, so a new database and an upgraded one are the same. The
// defaults fill the rows of earlier versions, and the rows that processes of the previous version still insert
// during a rolling upgrade.

/** Columns added to `payments` since it was first shipped, on SQLite. */
const sqliteAdded: open.Column[] = [
  { table: 'payments', column: 'fingerprint', definition: "TEXT NOT NULL DEFAULT ''" },
  { table: 'payments', column: 'idempotency_key', definition: 'TEXT' },
  { table: 'payments', column: 'lease', definition: 'TEXT' },
  { table: 'payments', column: 'response', definition: 'TEXT CHECK (response IS NULL OR json_valid(response))' },
  {
    table: 'payments',
    column: 'effects',
    definition: "TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(effects) AND json_type(effects) = 'array')",
  },
]

/** Columns added to `payments` since it was first shipped, on PostgreSQL. */
const pgAdded = [
  { column: 'fingerprint', definition: "text NOT NULL DEFAULT ''" },
  { column: 'idempotency_key', definition: 'text' },
  { column: 'lease', definition: 'text' },
  { column: 'response', definition: 'jsonb' },
  { column: 'effects', definition: "json NOT NULL DEFAULT '[]' CHECK (json_typeof(effects) = 'array')" },
]

/** Idempotent SQLite migration creating {@link sqlitePayments} and {@link sqliteLeases}, in order. */
export const sqliteMigration: readonly open.Step[] = [
  `CREATE TABLE IF NOT EXISTS payments (
    payer TEXT NOT NULL,
    nonce TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN (${states})),
    amount TEXT NOT NULL CHECK (amount <> '' AND amount NOT GLOB '*[^0-9]*'),
    endpoint TEXT NOT NULL,
    protocol TEXT NOT NULL,
    "transaction" TEXT,
    reason TEXT,
    "authorization" TEXT NOT NULL,
    claimed_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (payer, nonce)
  ) WITHOUT ROWID`,
  ...sqliteAdded,
  'CREATE INDEX IF NOT EXISTS payments_state_claimed_at ON payments (state, claimed_at)',
  `CREATE UNIQUE INDEX IF NOT EXISTS payments_payer_idempotency_key ON payments (payer, idempotency_key)
    WHERE ${holdsKey}`,
  `CREATE INDEX IF NOT EXISTS payments_payer_outstanding ON payments (payer, state, amount)
    WHERE ${isOutstanding}`,
  `CREATE INDEX IF NOT EXISTS payments_payer_settled_updated_at ON payments (payer, updated_at) WHERE ${isSettled}`,
  'CREATE INDEX IF NOT EXISTS payments_response_updated_at ON payments (updated_at) WHERE response IS NOT NULL',
  `CREATE TABLE IF NOT EXISTS leases (
    id TEXT NOT NULL PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    slot INTEGER NOT NULL UNIQUE CHECK (slot >= 0),
    heartbeat_at INTEGER NOT NULL
  ) WITHOUT ROWID`,
]

/** Idempotent PostgreSQL migration creating {@link pgPayments} and {@link pgLeases}, one statement per item. */
export const pgMigration: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS payments (
    payer text NOT NULL,
    nonce text NOT NULL,
    state text NOT NULL CHECK (state IN (${states})),
    amount numeric(78, 0) NOT NULL CHECK (amount >= 0),
    endpoint text NOT NULL,
    protocol text NOT NULL,
    "transaction" text,
    reason text,
    "authorization" text NOT NULL,
    claimed_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (payer, nonce)
  )`,
  // ADD COLUMN takes an ACCESS EXCLUSIVE lock on the table even when the column exists, which would stall every
  // query on payments at every start: alter only a table that lacks one of the columns.
  `DO $$ BEGIN
    IF (SELECT count(*) FROM pg_attribute WHERE attrelid = 'payments'::regclass AND NOT attisdropped
        AND attname IN (${pgAdded.map(({ column }) => `'${column}'`).join(', ')})) < ${pgAdded.length} THEN
      ALTER TABLE payments
        ${pgAdded.map(({ column, definition }) => `ADD COLUMN IF NOT EXISTS ${column} ${definition}`).join(', ')};
    END IF;
  END $$`,
  'CREATE INDEX IF NOT EXISTS payments_state_claimed_at ON payments (state, claimed_at)',
  `CREATE UNIQUE INDEX IF NOT EXISTS payments_payer_idempotency_key ON payments (payer, idempotency_key)
    WHERE ${holdsKey}`,
  `CREATE INDEX IF NOT EXISTS payments_payer_outstanding ON payments (payer, state, amount)
    WHERE ${isOutstanding}`,
  `CREATE INDEX IF NOT EXISTS payments_payer_settled_updated_at ON payments (payer, updated_at) WHERE ${isSettled}`,
  'CREATE INDEX IF NOT EXISTS payments_response_updated_at ON payments (updated_at) WHERE response IS NOT NULL',
  `CREATE TABLE IF NOT EXISTS leases (
    id text PRIMARY KEY,
    host text NOT NULL,
    pid integer NOT NULL,
    slot integer NOT NULL CONSTRAINT leases_slot_unique UNIQUE CHECK (slot >= 0),
    heartbeat_at timestamptz NOT NULL
  )`,
]

/** Name of the unique index that holds one live idempotency key per payer, as a violation reports it. */
export const idempotencyIndex = 'payments_payer_idempotency_key'

/** What a claim writes over a `released` entry with the same key: every column, from the new row. */
export const excluded = {
  state: sql`excluded.state`,
  amount: sql`excluded.amount`,
  endpoint: sql`excluded.endpoint`,
  protocol: sql`excluded.protocol`,
  transaction: sql`excluded."transaction"`,
  reason: sql`excluded.reason`,
  authorization: sql`excluded."authorization"`,
  claimedAt: sql`excluded.claimed_at`,
  updatedAt: sql`excluded.updated_at`,
  fingerprint: sql`excluded.fingerprint`,
  idempotencyKey: sql`excluded.idempotency_key`,
  lease: sql`excluded.lease`,
  response: sql`excluded.response`,
  effects: sql`excluded.effects`,
}

/**
 * The stored form of a ledger key: an EVM payer checksummed (a Solana one, base58, as it is) and the nonce in
 * lowercase hex, so that one authorization spelled in another letter case is still the same key and cannot be
 * served twice.
 */
export function toKey(key: { payer: Payer; nonce: Hex }): { payer: Payer; nonce: Hex } {
  return { payer: toPayer(key.payer), nonce: key.nonce.toLowerCase() as Hex }
}

/** The stored form of a payer: checksummed when it is an EVM address. */
export function toPayer(payer: Payer): Payer {
  return isEvmPayer(payer) ? getAddress(payer) : payer
}

/** The entry that a fresh claim writes: state `claimed`, nothing kept or done yet, updated when claimed. */
export function fromClaim(claim: Claim): Entry {
  return {
    ...toKey(claim),
    amount: claim.amount,
    endpoint: claim.endpoint,
    protocol: claim.protocol,
    authorization: claim.authorization,
    fingerprint: claim.fingerprint,
    idempotencyKey: claim.idempotencyKey,
    lease: claim.lease,
    state: 'claimed',
    transaction: undefined,
    reason: undefined,
    response: undefined,
    effects: [],
    claimedAt: claim.claimedAt,
    updatedAt: claim.claimedAt,
  }
}

/** The row of an entry, in dialect-neutral form (amount as bigint, JSON as text, absent values as null). */
export function toRow(entry: Entry): toRow.ReturnType {
  return {
    payer: entry.payer,
    nonce: entry.nonce,
    state: entry.state,
    amount: entry.amount,
    endpoint: entry.endpoint,
    protocol: entry.protocol,
    transaction: entry.transaction ?? null,
    reason: entry.reason ?? null,
    authorization: entry.authorization,
    claimedAt: entry.claimedAt,
    updatedAt: entry.updatedAt,
    fingerprint: entry.fingerprint,
    idempotencyKey: entry.idempotencyKey ?? null,
    lease: entry.lease ?? null,
    response: entry.response === undefined ? null : JSON.stringify(entry.response),
    effects: JSON.stringify(entry.effects),
  }
}

export declare namespace toRow {
  type ReturnType = fromRow.Row & {
    /** Amount in atomic units. */
    amount: bigint
  }
}

/** An entry from a row of either dialect (amount as bigint or decimal text, JSON as text, absent as null). */
export function fromRow(row: fromRow.Row): Entry {
  return {
    payer: row.payer as Payer,
    nonce: row.nonce as Hex,
    state: row.state,
    amount: BigInt(row.amount),
    endpoint: row.endpoint,
    protocol: row.protocol,
    transaction: row.transaction ?? undefined,
    reason: row.reason ?? undefined,
    authorization: row.authorization,
    fingerprint: row.fingerprint,
    idempotencyKey: row.idempotencyKey ?? undefined,
    lease: row.lease ?? undefined,
    response: row.response === null ? undefined : (JSON.parse(row.response) as StoredResponse),
    effects: JSON.parse(row.effects) as Effect[],
    claimedAt: row.claimedAt,
    updatedAt: row.updatedAt,
  }
}

export declare namespace fromRow {
  type Row = {
    /** Checksummed payer address. */
    payer: string
    /** Lowercase hex nonce. */
    nonce: string
    /** Ledger state. */
    state: State
    /** Atomic units, as bigint or decimal text. */
    amount: bigint | string
    /** `"METHOD path"` paid for. */
    endpoint: string
    /** Payment protocol. */
    protocol: Protocol
    /** Settlement transaction hash, or null. */
    transaction: Hash | null
    /** Reason, or null. */
    reason: string | null
    /** The signed authorization. */
    authorization: string
    /** Hash of the request paid for. */
    fingerprint: string
    /** Idempotency key, or null. */
    idempotencyKey: string | null
    /** Lease of the holding process, or null. */
    lease: string | null
    /** JSON text of the kept response, or null. */
    response: string | null
    /** JSON text of the effects array. */
    effects: string
    /** Claim time. */
    claimedAt: Date
    /** Last change. */
    updatedAt: Date
  }
}
