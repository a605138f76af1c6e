import { and, asc, eq, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { type Event, InvalidTransitionError, type Ledger, transition } from '../../core/Ledger.js'
import { excluded, fromRow, sqliteMigration, sqlitePayments as payments, toClaimRow, toKey, toRow } from './schema.js'
import { open } from '../internal/sqlite.js'

/**
 * The embedded durable payment ledger: one SQLite file through `bun:sqlite` in WAL mode, no server needed.
 * Creates the file's folder and the table when opened. Several processes may open the same file: every
 * method is atomic across them (a claim is one `INSERT ... ON CONFLICT` statement; `apply` runs in a
 * `BEGIN IMMEDIATE` transaction), and a writer waits up to `busyTimeout` for another one.
 *
 * Payer addresses are stored checksummed and nonces in lowercase, whatever letter case the caller used.
 */
export function sqlite(parameters: sqlite.Parameters): Ledger {
  const { busyTimeout = 5_000, path } = parameters

  const client = open({ path, busyTimeout, migration: sqliteMigration })

  const db = drizzle({ client })

  // One statement: a row comes back only when it was inserted or taken over from a `released` entry.
  const claim = db
    .insert(payments)
    .values({
      payer: sql.placeholder('payer'),
      nonce: sql.placeholder('nonce'),
      state: 'claimed',
      amount: sql.placeholder('amount'),
      endpoint: sql.placeholder('endpoint'),
      protocol: sql.placeholder('protocol'),
      transaction: null,
      reason: null,
      authorization: sql.placeholder('authorization'),
      claimedAt: sql.placeholder('claimedAt'),
      updatedAt: sql.placeholder('claimedAt'),
    })
    .onConflictDoUpdate({
      target: [payments.payer, payments.nonce],
      set: excluded,
      setWhere: eq(payments.state, 'released'),
    })
    .returning()
    .prepare()
  const byKey = and(eq(payments.payer, sql.placeholder('payer')), eq(payments.nonce, sql.placeholder('nonce')))
  const read = db.select().from(payments).where(byKey).prepare()
  const update = db
    .update(payments)
    // drizzle's update types leave out placeholders, which its runtime encodes through the column like values.
    .set({
      state: sql.placeholder('state'),
      amount: sql.placeholder('amount'),
      endpoint: sql.placeholder('endpoint'),
      protocol: sql.placeholder('protocol'),
      transaction: sql.placeholder('transaction'),
      reason: sql.placeholder('reason'),
      authorization: sql.placeholder('authorization'),
      claimedAt: sql.placeholder('claimedAt'),
      updatedAt: sql.placeholder('updatedAt'),
    } as unknown as Partial<typeof payments.$inferInsert>)
    .where(byKey)
    .returning()
    .prepare()
  const list = db
    .select()
    .from(payments)
    .where(eq(payments.state, sql.placeholder('state')))
    .orderBy(asc(payments.claimedAt), asc(payments.payer), asc(payments.nonce))
    .limit(sql.placeholder('limit'))
    .prepare()
  // Reads, applies `transition` and writes under the write lock, so no other process moves the entry in between.
  const applyAtomically = client.transaction((key: { payer: string; nonce: string }, event: Event) => {
    const row = read.get(key)
    if (!row) throw new InvalidTransitionError(`No payment of ${key.payer} with nonce ${key.nonce} is in the ledger.`)
    const next = transition(fromRow(row), event, new Date())
    return fromRow(update.get({ ...toRow(next), amount: next.amount.toString() })!)
  })

  return {
    async claim(parameters) {
      const row = toClaimRow(parameters)
      const values = { ...row, amount: row.amount.toString() }
      for (let attempt = 1; ; attempt++) {
        const claimed = claim.get(values)
        if (claimed) return { ok: true, entry: fromRow(claimed) }
        const existing = read.get(values)
        // Released between the lost insert and this read: the authorization may be claimed again.
        if (existing?.state === 'released' && attempt < 3) continue
        if (!existing) throw new Error(`The payment of ${row.payer} with nonce ${row.nonce} vanished during its claim.`)
        return { ok: false, reason: 'replayed', existing: fromRow(existing) }
      }
    },
    async apply(key, event) {
      return applyAtomically.immediate(toKey(key), event)
    },
    async get(key) {
      const row = read.get(toKey(key))
      return row ? fromRow(row) : undefined
    },
    async list({ limit = 100, state }) {
      return list.all({ state, limit }).map(fromRow)
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
