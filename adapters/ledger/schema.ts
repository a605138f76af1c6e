import {
  numeric,
  index as pgIndex,
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
import { sql } from 'drizzle-orm'
import { type Address, type Hash, type Hex, getAddress } from 'viem'
import type { Entry, Ledger, Protocol, State } from '../../core/Ledger.js'

// The DDL below and the drizzle tables describe the same table; drizzle-kit is not used, so change both together.

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
  },
  (table) => [
    sqlitePrimaryKey({ columns: [table.payer, table.nonce] }),
    sqliteIndex('payments_state_claimed_at').on(table.state, table.claimedAt),
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
  },
  (table) => [
    pgPrimaryKey({ columns: [table.payer, table.nonce] }),
    pgIndex('payments_state_claimed_at').on(table.state, table.claimedAt),
  ],
)

const states = "'claimed', 'settling', 'settled', 'failed', 'released'"

/** Idempotent SQLite migration creating {@link sqlitePayments}, one statement per item. */
export const sqliteMigration = [
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
  'CREATE INDEX IF NOT EXISTS payments_state_claimed_at ON payments (state, claimed_at)',
] as const

/** Idempotent PostgreSQL migration creating {@link pgPayments}, one statement per item. */
export const pgMigration = [
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
  'CREATE INDEX IF NOT EXISTS payments_state_claimed_at ON payments (state, claimed_at)',
] as const

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
}

/**
 * The stored form of a ledger key: the payer checksummed and the nonce in lowercase hex, so that one
 * authorization spelled in another letter case is still the same key and cannot be served twice.
 */
export function toKey(key: { payer: Address; nonce: Hex }): { payer: Address; nonce: Hex } {
  return { payer: getAddress(key.payer), nonce: key.nonce.toLowerCase() as Hex }
}

/** The row that a fresh claim writes: state `claimed`, no transaction or reason, updated when claimed. */
export function toClaimRow(entry: Parameters<Ledger['claim']>[0]): toRow.ReturnType {
  return toRow({
    ...entry,
    ...toKey(entry),
    state: 'claimed',
    transaction: undefined,
    reason: undefined,
    updatedAt: entry.claimedAt,
  })
}

/** The row of an entry, in dialect-neutral form (amount as bigint, absent values as null). */
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
  }
}

export declare namespace toRow {
  type ReturnType = fromRow.Row & {
    /** Amount in atomic units. */
    amount: bigint
  }
}

/** An entry from a row of either dialect (amount as bigint or decimal text, nullable columns as null). */
export function fromRow(row: fromRow.Row): Entry {
  return {
    payer: row.payer as Address,
    nonce: row.nonce as Hex,
    state: row.state,
    amount: BigInt(row.amount),
    endpoint: row.endpoint,
    protocol: row.protocol,
    transaction: row.transaction ?? undefined,
    reason: row.reason ?? undefined,
    authorization: row.authorization,
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
    /** Claim time. */
    claimedAt: Date
    /** Last change. */
    updatedAt: Date
  }
}
