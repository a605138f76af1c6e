import { and, asc, eq, sql as raw } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'
import { InvalidTransitionError, type Ledger, transition } from '../../core/Ledger.js'
import { excluded, fromRow, pgMigration, pgPayments as payments, toClaimRow, toKey, toRow } from './schema.js'
import { isolate, migrateOnce } from '../internal/postgres.js'

/** Key of the transaction-level advisory lock that serialises the migration across processes ("ledger" in ASCII). */
const migrationLock = 0x6c6564676572n

/**
 * The payment ledger on PostgreSQL, for production and for several gateway processes on one database. Creates
 * its table at first use (idempotent, under an advisory lock, so processes may start together). A claim is one
 * `INSERT ... ON CONFLICT` statement; `apply` locks the row with `SELECT ... FOR UPDATE`.
 *
 * The caller owns `sql`: `close` does not end it, and its type parsers are left as they were.
 * Payer addresses are stored checksummed and nonces in lowercase, whatever letter case the caller used.
 */
export function postgres(parameters: postgres.Parameters): Ledger {
  const db = drizzle({ client: isolate(parameters.sql) })
  let closed = false
  const migrate = migrateOnce({ db, lock: migrationLock, statements: pgMigration })

  const ready = async () => {
    if (closed) throw new Error('The postgres ledger is closed.')
    await migrate()
  }
  // Named prepared statements: drizzle sends unnamed ones unprepared, which costs postgres.js a second round trip.
  const byKey = and(eq(payments.payer, raw.placeholder('payer')), eq(payments.nonce, raw.placeholder('nonce')))
  const claim = db
    .insert(payments)
    .values({
      payer: raw.placeholder('payer'),
      nonce: raw.placeholder('nonce'),
      state: 'claimed',
      amount: raw.placeholder('amount'),
      endpoint: raw.placeholder('endpoint'),
      protocol: raw.placeholder('protocol'),
      transaction: null,
      reason: null,
      authorization: raw.placeholder('authorization'),
      claimedAt: raw.placeholder('claimedAt'),
      updatedAt: raw.placeholder('claimedAt'),
    })
    // One statement: a row comes back only when it was inserted or taken over from a `released` entry.
    .onConflictDoUpdate({
      target: [payments.payer, payments.nonce],
      set: excluded,
      setWhere: eq(payments.state, 'released'),
    })
    .returning()
    .prepare('ledger_claim')
  const read = db.select().from(payments).where(byKey).prepare('ledger_read')
  const list = db
    .select()
    .from(payments)
    .where(eq(payments.state, raw.placeholder('state')))
    .orderBy(asc(payments.claimedAt), asc(payments.payer), asc(payments.nonce))
    .limit(raw.placeholder('limit'))
    .prepare('ledger_list')

  return {
    async claim(parameters) {
      await ready()
      const row = toClaimRow(parameters)
      for (let attempt = 1; ; attempt++) {
        const [claimed] = await claim.execute(row)
        if (claimed) return { ok: true, entry: fromRow(claimed) }
        const [existing] = await read.execute(row)
        // Released between the lost insert and this read: the authorization may be claimed again.
        if (existing?.state === 'released' && attempt < 3) continue
        if (!existing) throw new Error(`The payment of ${row.payer} with nonce ${row.nonce} vanished during its claim.`)
        return { ok: false, reason: 'replayed', existing: fromRow(existing) }
      }
    },
    async apply(key, event) {
      await ready()
      const { payer, nonce } = toKey(key)
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(payments)
          .where(byKey)
          .for('update')
          .prepare('ledger_lock')
          .execute({ payer, nonce })
        if (!row) throw new InvalidTransitionError(`No payment of ${payer} with nonce ${nonce} is in the ledger.`)
        const next = transition(fromRow(row), event, new Date())
        const [updated] = await tx
          .update(payments)
          .set(toRow(next))
          .where(byKey)
          .returning()
          .prepare('ledger_update')
          .execute({ payer, nonce })
        return fromRow(updated!)
      })
    },
    async get(key) {
      await ready()
      const [row] = await read.execute(toKey(key))
      return row ? fromRow(row) : undefined
    },
    async list({ limit = 100, state }) {
      await ready()
      return (await list.execute({ state, limit })).map(fromRow)
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

