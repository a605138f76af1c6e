import { and, asc, eq, gte, isNotNull, lt, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { InvalidTransitionError } from '../../core/Errors.js'
import {
  type Claim,
  type ClaimResult,
  type Event,
  type Lease,
  type Ledger,
  type Move,
  type Moved,
  transition,
} from '../../core/Ledger.js'
import type { Also } from '../../core/Store.js'
import { open } from '../internal/sqlite.js'
import { enqueueSql, enqueueValues, sqliteQueueMigration } from '../queue/schema.js'
import {
  decided,
  excluded,
  fromClaim,
  fromRow,
  inStates,
  sqliteLeases as leases,
  live,
  outstanding,
  sqlitePayments as payments,
  sqliteMigration,
  toKey,
  toPayer,
  toRow,
} from './schema.js'

/**
 * The embedded durable payment ledger: one SQLite file through `bun:sqlite` in WAL mode, no server needed.
 * Creates the file's folder and the tables when opened, and brings a file of an earlier version up to date.
 * Several processes may open the same file: every method is atomic across them (a claim without a balance is one
 * `INSERT ... ON CONFLICT` statement; a claim with one, `apply` and `acquire` run in `BEGIN IMMEDIATE`
 * transactions), and a writer waits up to `busyTimeout` for another one.
 *
 * `apply` writes its `also` work to the queue of the file `outbox` (the store's, where the queue lives), attached to
 * this connection, in the move's transaction. In WAL mode SQLite commits each attached file on its own: a process
 * killed within that commit may keep the move without its work (the work's ids are stable, so nothing is doubled).
 *
 * Payer addresses are stored checksummed and nonces in lowercase, whatever letter case the caller used.
 */
export function sqlite(parameters: sqlite.Parameters): Ledger {
  const { busyTimeout = 5_000, path, outbox } = parameters

  const client = open({ path, busyTimeout, migration: sqliteMigration })
  if (outbox !== undefined) {
    // The queue's table is created the way the store creates it, then the file is attached: `queue_items` is in no
    // other database of this connection, so the unqualified name in `enqueueSql` finds it there.
    open({ path: outbox, busyTimeout, migration: sqliteQueueMigration }).close(true)
    client.run('ATTACH DATABASE ? AS outbox', [outbox])
  }
  const enqueueItem = outbox === undefined ? undefined : client.prepare(enqueueSql)

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
      fingerprint: sql.placeholder('fingerprint'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      lease: sql.placeholder('lease'),
      response: null,
      effects: '[]',
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
  const find = db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.payer, sql.placeholder('payer')),
        eq(payments.idempotencyKey, sql.placeholder('idempotencyKey')),
        inStates(payments.state, live),
      ),
    )
    .prepare()
  const reserved = db
    .select({ amount: payments.amount })
    .from(payments)
    .where(and(eq(payments.payer, sql.placeholder('payer')), inStates(payments.state, outstanding)))
    .prepare()
  // Settled since the balance was read (`updated_at` as epoch ms: a placeholder in a condition skips the column).
  const settledSince = db
    .select({ amount: payments.amount })
    .from(payments)
    .where(
      and(
        eq(payments.payer, sql.placeholder('payer')),
        sql`${payments.state} = 'settled'`,
        gte(payments.updatedAt, sql.placeholder('balanceAt')),
      ),
    )
    .prepare()
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
      fingerprint: sql.placeholder('fingerprint'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      lease: sql.placeholder('lease'),
      response: sql.placeholder('response'),
      effects: sql.placeholder('effects'),
    } as unknown as Partial<typeof payments.$inferInsert>)
    .where(byKey)
    .prepare()
  const list = db
    .select()
    .from(payments)
    .where(eq(payments.state, sql.placeholder('state')))
    .orderBy(asc(payments.claimedAt), asc(payments.payer), asc(payments.nonce))
    .limit(sql.placeholder('limit'))
    .prepare()
  // Amounts are decimal text: summed here as bigints, exact at any size, over the payer's settled index.
  const settled = db
    .select({ amount: payments.amount, updatedAt: payments.updatedAt })
    .from(payments)
    .where(and(eq(payments.payer, sql.placeholder('payer')), eq(payments.state, 'settled')))
    .prepare()
  // `updated_at` is compared with epoch milliseconds: a placeholder in a condition is not encoded through the column.
  const forget = db
    .update(payments)
    .set({ response: null })
    .where(
      and(
        isNotNull(payments.response),
        lt(payments.updatedAt, sql.placeholder('before')),
        inStates(payments.state, decided),
      ),
    )
    .returning({ nonce: payments.nonce })
    .prepare()
  const removeStale = db
    .delete(leases)
    .where(lt(leases.heartbeatAt, sql.placeholder('staleBefore')))
    .prepare()
  const slots = db.select({ slot: leases.slot }).from(leases).orderBy(asc(leases.slot)).prepare()
  const insertLease = db
    .insert(leases)
    .values({
      id: sql.placeholder('id'),
      host: sql.placeholder('host'),
      pid: sql.placeholder('pid'),
      slot: sql.placeholder('slot'),
      heartbeatAt: sql.placeholder('heartbeatAt'),
    })
    .returning()
    .prepare()
  const renew = db
    .update(leases)
    .set({ heartbeatAt: sql.placeholder('now') } as unknown as Partial<typeof leases.$inferInsert>)
    .where(eq(leases.id, sql.placeholder('id')))
    .returning({ id: leases.id })
    .prepare()
  const allLeases = db.select().from(leases).orderBy(asc(leases.slot)).prepare()
  const drop = db
    .delete(leases)
    .where(eq(leases.id, sql.placeholder('id')))
    .prepare()

  // Reads, applies `transition` and writes; run under the write lock, so no other process moves the entry in between.
  // A refusal throws before anything is written.
  const move = (key: { payer: string; nonce: string }, event: Event, also?: Also) => {
    const row = read.get(key)
    if (!row) throw new InvalidTransitionError(`No payment of ${key.payer} with nonce ${key.nonce} is in the ledger.`)
    const next = transition(fromRow(row), event, new Date())
    if (also?.enqueue?.length && !enqueueItem) throw new Error('This SQLite ledger has no outbox file to enqueue on.')
    const written = toRow(next)
    update.run({ ...written, amount: next.amount.toString() })
    const now = Date.now()
    for (const item of also?.enqueue ?? []) enqueueItem!.run(...enqueueValues(item, now))
    // What was written, read as a row is: no need to read the row (and its kept response) back.
    return fromRow(written)
  }
  const applyAtomically = client.transaction(move)
  const applyAllAtomically = client.transaction((moves: readonly Move[]): Moved[] =>
    moves.map(({ key, event, also }) => {
      try {
        return { ok: true, entry: move(toKey(key), event, also) }
      } catch (error) {
        if (error instanceof InvalidTransitionError) return { ok: false, error }
        throw error
      }
    }),
  )
  // Checks the key, the idempotency key and the outstanding sum, then inserts, all under the write lock: no other
  // process claims for the payer in between.
  const claimWithin = client.transaction(
    (values: ReturnType<typeof toValues>, balance: bigint, balanceAt: Date | undefined): ClaimResult => {
      const existing = read.get(values)
      if (existing && existing.state !== 'released')
        return { ok: false, reason: 'replayed', existing: fromRow(existing) }
      const holder = values.idempotencyKey === null ? undefined : find.get(values)
      if (holder) return { ok: false, reason: 'duplicate', existing: fromRow(holder) }
      const counted = [
        ...reserved.all(values),
        ...(balanceAt === undefined ? [] : settledSince.all({ payer: values.payer, balanceAt: balanceAt.getTime() })),
      ]
      const sum = counted.reduce((total, { amount }) => total + BigInt(amount), 0n)
      if (sum + BigInt(values.amount) > balance) return { ok: false, reason: 'insufficient_funds', outstanding: sum }
      return { ok: true, entry: fromRow(claim.get(values)!) }
    },
  )
  // Removes the stale leases and takes the lowest free slot under the write lock, so no other process takes it.
  const acquireAtomically = client.transaction((lease: Omit<Lease, 'slot'>, staleBefore: Date): Lease => {
    removeStale.run({ staleBefore: staleBefore.getTime() })
    let slot = 0
    for (const { slot: taken } of slots.all()) if (taken === slot) slot++
    return insertLease.get({ ...lease, slot })!
  })

  return {
    async claim(parameters) {
      const values = toValues(parameters)
      if (parameters.balance !== undefined)
        return claimWithin.immediate(values, parameters.balance, parameters.balanceAt)
      for (let attempt = 1; ; attempt++) {
        let claimed: typeof payments.$inferSelect | undefined
        try {
          claimed = claim.get(values)
        } catch (error) {
          if (!isKeyViolation(error)) throw error
          const holder = find.get(values)
          if (holder) return { ok: false, reason: 'duplicate', existing: fromRow(holder) }
          // The holder was released between the refused insert and this read: the key is free again.
          if (attempt < 3) continue
          throw error
        }
        if (claimed) return { ok: true, entry: fromRow(claimed) }
        const existing = read.get(values)
        // Released between the lost insert and this read: the authorization may be claimed again.
        if (existing?.state === 'released' && attempt < 3) continue
        if (!existing)
          throw new Error(`The payment of ${values.payer} with nonce ${values.nonce} vanished during its claim.`)
        return { ok: false, reason: 'replayed', existing: fromRow(existing) }
      }
    },
    async apply(key, event, also) {
      return applyAtomically.immediate(toKey(key), event, also)
    },
    async applyAll(moves) {
      return applyAllAtomically.immediate(moves)
    },
    async get(key) {
      const row = read.get(toKey(key))
      return row ? fromRow(row) : undefined
    },
    async find({ payer, idempotencyKey }) {
      const row = find.get({ payer: toPayer(payer), idempotencyKey })
      return row ? fromRow(row) : undefined
    },
    async list({ limit = 100, state }) {
      return list.all({ state, limit }).map(fromRow)
    },
    async settled(payer) {
      const rows = settled.all({ payer: toPayer(payer) })
      const times = rows.map((row) => row.updatedAt.getTime())
      return {
        count: rows.length,
        amount: rows.reduce((sum, row) => sum + BigInt(row.amount), 0n),
        first: times.length === 0 ? undefined : new Date(Math.min(...times)),
        last: times.length === 0 ? undefined : new Date(Math.max(...times)),
      }
    },
    async forget({ before }) {
      return forget.all({ before: before.getTime() }).length
    },
    async acquire({ staleBefore, ...lease }) {
      return acquireAtomically.immediate(lease, staleBefore)
    },
    async renew({ id, now }) {
      return renew.get({ id, now }) !== undefined
    },
    async leases() {
      return allLeases.all()
    },
    async drop(id) {
      drop.run({ id })
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
    /** Path of the file whose queue `apply`'s `also` work goes to (the store's); without one, such an `apply` throws. */
    outbox?: string | undefined
  }
}

/** The placeholder values of a claim's statements: the fresh entry's row, the amount as decimal text. */
function toValues(claim: Claim) {
  const row = toRow(fromClaim(claim))
  return { ...row, amount: row.amount.toString() }
}

/** Whether SQLite refused a write for the unique index on (payer, idempotency_key). */
function isKeyViolation(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown }
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('payments.idempotency_key')
  )
}
