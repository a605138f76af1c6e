import { and, asc, eq, getTableColumns, isNotNull, lt, sql as raw } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'
import { InvalidTransitionError } from '../../core/Errors.js'
import { type Claim, type ClaimResult, type Ledger, type Move, type Moved, transition } from '../../core/Ledger.js'
import type { Also } from '../../core/Store.js'
import { isolate, migrateOnce, serverError } from '../internal/postgres.js'
import { enqueueStatement, pgQueueMigration } from '../queue/schema.js'
import {
  decided,
  excluded,
  fromClaim,
  fromRow,
  idempotencyIndex,
  inStates,
  pgLeases as leases,
  literals,
  live,
  outstanding,
  pgPayments as payments,
  pgMigration,
  toKey,
  toPayer,
  toRow,
} from './schema.js'

/** Key of the transaction-level advisory lock that serialises the migration across processes ("ledger" in ASCII). */
const migrationLock = 0x6c6564676572n

/** The store's migration lock ("store" in ASCII), under which the queue's table is created, as the store creates it. */
const queueMigrationLock = 0x73746f7265n

/**
 * First half of the two-key advisory lock that serialises the balance-bounded claims of one payer ("ledg" in ASCII);
 * the second half is `hashtext(payer)`. Two-key locks never meet the one-key locks of the migration and the store.
 */
const payerLock = 0x6c656467

/**
 * The payer's claim lock, for the balance-bounded claim: `$1` the payer. It also keeps the rest of the transaction off
 * bitmap scans: every move of an entry leaves a dead version in the payer's outstanding index until a vacuum, and a
 * plain index scan marks what it finds dead so that the next claim skips it, where a bitmap scan (which the planner
 * prefers for a payer with many entries) visits every dead version again, each claim, so that a busy payer's claims
 * would slow down with its history.
 */
const lockStatement = `SELECT pg_advisory_xact_lock(${payerLock}, hashtext($1)), set_config('enable_bitmapscan', 'off', true)`

/**
 * What a payer's balance must still cover: its outstanding entries, and those settled since the balance was read
 * (`since`, a timestamp as text or null), which the balance may not show yet. Two sums, each over a partial index of
 * its own: with an OR between them the planner reads every entry the payer ever had.
 */
const outstandingOf = (payer: string, since: string) =>
  `((SELECT coalesce(sum(amount), 0) FROM payments WHERE payer = ${payer} AND state IN (${literals(outstanding)}))
    + (SELECT coalesce(sum(amount), 0) FROM payments
      WHERE payer = ${payer} AND state = 'settled' AND updated_at >= ${since}::text::timestamptz))`

/** {@link outstandingOf} a payer, alone: `$1` the payer, `$2` when the balance was read. */
const outstandingStatement = `SELECT ${outstandingOf('$1', '$2')}::text AS sum`

/**
 * The balance-bounded claim's insert: `$1` payer, `$2` nonce, `$3` amount, `$4` endpoint, `$5` protocol, `$6`
 * authorization, `$7` claim time, `$8` fingerprint, `$9` idempotency key or null, `$10` lease, `$11` balance, `$12`
 * when the balance was read or null. A row comes back only when it was inserted or took a `released` entry over.
 */
const claimStatement = `
INSERT INTO payments (payer, nonce, state, amount, endpoint, protocol, "transaction", reason, "authorization",
  claimed_at, updated_at, fingerprint, idempotency_key, lease, response, effects)
SELECT $1, $2, 'claimed', $3::numeric, $4, $5, NULL, NULL, $6, $7::text::timestamptz, $7::text::timestamptz, $8, $9::text,
  $10::text, NULL, '[]'::json
WHERE NOT EXISTS (SELECT 1 FROM payments WHERE payer = $1 AND nonce = $2 AND state <> 'released')
  AND ($9::text IS NULL OR NOT EXISTS (
    SELECT 1 FROM payments WHERE payer = $1 AND idempotency_key = $9::text AND state IN (${literals(live)})))
  AND ${outstandingOf('$1', '$12')} + $3::numeric <= $11::numeric
ON CONFLICT (payer, nonce) DO UPDATE SET state = excluded.state, amount = excluded.amount,
  endpoint = excluded.endpoint, protocol = excluded.protocol, "transaction" = excluded."transaction",
  reason = excluded.reason, "authorization" = excluded."authorization", claimed_at = excluded.claimed_at,
  updated_at = excluded.updated_at, fingerprint = excluded.fingerprint, idempotency_key = excluded.idempotency_key,
  lease = excluded.lease, response = excluded.response, effects = excluded.effects
  WHERE payments.state = 'released'
RETURNING 1`

/** Name of the unique constraint on a lease's slot, as a violation reports it. */
const slotConstraint = 'leases_slot_unique'

/**
 * The payment ledger on PostgreSQL, for production and for several gateway processes on one database. Creates
 * its tables at first use and brings a database of an earlier version up to date (idempotent, under an advisory
 * lock, so processes may start together). A claim without a balance is one `INSERT ... ON CONFLICT` statement; a
 * claim with one runs in a transaction holding an advisory lock on its payer; `apply` locks the row with
 * `SELECT ... FOR UPDATE`; `acquire` takes the lowest free slot and looks again when another process took it first.
 * `apply` writes its `also` work to the queue's table of the same database in its transaction (the outbox).
 *
 * The caller owns `sql`: `close` does not end it, and its type parsers are left as they were.
 * Payer addresses are stored checksummed and nonces in lowercase, whatever letter case the caller used.
 */
export function postgres(parameters: postgres.Parameters): Ledger {
  const db = drizzle({ client: isolate(parameters.sql) })
  type Transaction = Parameters<Parameters<typeof db.transaction>[0]>[0]
  let closed = false
  const migrate = migrateOnce({ db, lock: migrationLock, statements: pgMigration })
  // Only a move with outbox work needs the queue's table; the store creates it too, under the same lock.
  const migrateQueue = migrateOnce({ db, lock: queueMigrationLock, statements: pgQueueMigration })

  // Writes an entry's new state (the row is locked by the caller's transaction).
  const write = (tx: Transaction, next: toRow.ReturnType) =>
    tx
      .update(payments)
      .set({ ...next, response: fromText(next.response, 'jsonb'), effects: fromText(next.effects, 'json')! })
      .where(byKey)
      .prepare('ledger_update')
      .execute({ payer: next.payer, nonce: next.nonce })

  // Writes the new states of a group's entries in one statement, as parallel arrays: the columns `transition` changes
  // (the key, the authorization and what the claim recorded stay as claimed).
  const writeAll = (tx: Transaction, rows: toRow.ReturnType[]) => {
    const column = <value>(pick: (row: toRow.ReturnType) => value) => raw.param(rows.map(pick))
    return tx.execute(raw`UPDATE payments SET state = v.state, amount = v.amount::numeric, "transaction" = v.tx,
  reason = v.reason, lease = v.lease, response = v.response::jsonb, effects = v.effects::json,
  updated_at = v.updated_at::timestamptz
FROM unnest(${column((row) => row.payer)}::text[], ${column((row) => row.nonce)}::text[],
  ${column((row) => row.state)}::text[], ${column((row) => row.amount.toString())}::text[],
  ${column((row) => row.transaction)}::text[], ${column((row) => row.reason)}::text[], ${column((row) => row.lease)}::text[],
  ${column((row) => row.response)}::text[], ${column((row) => row.effects)}::text[],
  ${column((row) => row.updatedAt.toISOString())}::text[])
  AS v(payer, nonce, state, amount, tx, reason, lease, response, effects, updated_at)
WHERE payments.payer = v.payer AND payments.nonce = v.nonce`)
  }

  // Locks the entry's row, applies `transition` and writes, with the move's outbox work; a refusal throws before any
  // write.
  const move = async (tx: Transaction, { key, event, also }: Move) => {
    const { payer, nonce } = toKey(key)
    const [row] = await tx
      .select(fields)
      .from(payments)
      .where(byKey)
      .for('update')
      .prepare('ledger_lock')
      .execute({ payer, nonce })
    if (!row) throw new InvalidTransitionError(`No payment of ${payer} with nonce ${nonce} is in the ledger.`)
    const next = toRow(transition(fromRow(row), event, new Date()))
    await write(tx, next)
    await enqueue(tx, also)
    // What was written, read as a row is: no need to read the row (and its kept response) back.
    return fromRow(next)
  }

  // Every row of a group of moves, locked in one statement in key order (the locks are taken as the sorted rows come),
  // so two groups never wait for each other in a circle.
  const lockAll = (tx: Transaction, keys: { payers: string[]; nonces: string[] }) =>
    tx
      .select(fields)
      .from(payments)
      .where(
        raw`(${payments.payer}, ${payments.nonce}) IN (SELECT * FROM unnest(cast(${raw.placeholder('payers')} as text[]), cast(${raw.placeholder('nonces')} as text[])))`,
      )
      .orderBy(asc(payments.payer), asc(payments.nonce))
      .for('update')
      .prepare('ledger_lock_all')
      .execute(keys)

  const ready = async () => {
    if (closed) throw new Error('The postgres ledger is closed.')
    await migrate()
  }

  // JSON comes out as text and goes in as text, parsed and serialized by the schema: a json result would pass
  // through the client's JSON parser, and a json parameter through its serializer on top of ours.
  const fields = {
    ...getTableColumns(payments),
    response: raw<string | null>`${payments.response}::text`,
    effects: raw<string>`${payments.effects}::text`,
  }
  const fromText = (text: string | null, type: 'json' | 'jsonb') =>
    text === null ? null : raw`cast(${text} as text)::${raw.raw(type)}`

  // Named prepared statements: drizzle sends unnamed ones unprepared, which costs postgres.js a second round trip.
  const byKey = and(eq(payments.payer, raw.placeholder('payer')), eq(payments.nonce, raw.placeholder('nonce')))
  const byIdempotencyKey = and(
    eq(payments.payer, raw.placeholder('payer')),
    eq(payments.idempotencyKey, raw.placeholder('idempotencyKey')),
    inStates(payments.state, live),
  )
  /** The claim statement, on the pool or inside a transaction. */
  const claimOn = (executor: Executor) =>
    executor
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
        fingerprint: raw.placeholder('fingerprint'),
        idempotencyKey: raw.placeholder('idempotencyKey'),
        lease: raw.placeholder('lease'),
        response: null,
        effects: raw`'[]'::json`,
      })
      // One statement: a row comes back only when it was inserted or taken over from a `released` entry.
      .onConflictDoUpdate({
        target: [payments.payer, payments.nonce],
        set: excluded,
        setWhere: eq(payments.state, 'released'),
      })
      .returning(fields)
      .prepare('ledger_claim')
  const readOn = (executor: Executor) => executor.select(fields).from(payments).where(byKey).prepare('ledger_read')
  const findOn = (executor: Executor) =>
    executor.select(fields).from(payments).where(byIdempotencyKey).prepare('ledger_find')

  const claim = claimOn(db)
  const read = readOn(db)
  const find = findOn(db)
  const list = db
    .select(fields)
    .from(payments)
    .where(eq(payments.state, raw.placeholder('state')))
    .orderBy(asc(payments.claimedAt), asc(payments.payer), asc(payments.nonce))
    .limit(raw.placeholder('limit'))
    .prepare('ledger_list')
  const settled = db
    .select({
      count: raw<number>`count(*)::int`,
      amount: raw<string>`coalesce(sum(${payments.amount}), 0)::text`,
      first: raw<number | null>`(extract(epoch from min(${payments.updatedAt})) * 1000)::float8`,
      last: raw<number | null>`(extract(epoch from max(${payments.updatedAt})) * 1000)::float8`,
    })
    .from(payments)
    .where(and(eq(payments.payer, raw.placeholder('payer')), eq(payments.state, 'settled')))
    .prepare('ledger_settled')
  // Times in conditions go as ISO text: a placeholder in a condition is not encoded through its column.
  const forget = db
    .update(payments)
    .set({ response: null })
    .where(
      and(
        isNotNull(payments.response),
        lt(payments.updatedAt, raw.placeholder('before')),
        inStates(payments.state, decided),
      ),
    )
    .returning({ nonce: payments.nonce })
    .prepare('ledger_forget')
  const renew = db
    .update(leases)
    .set({ heartbeatAt: raw.placeholder('now') } as unknown as Partial<typeof leases.$inferInsert>)
    .where(eq(leases.id, raw.placeholder('id')))
    .returning({ id: leases.id })
    .prepare('ledger_renew')
  const allLeases = db.select().from(leases).orderBy(asc(leases.slot)).prepare('ledger_leases')
  const drop = db
    .delete(leases)
    .where(eq(leases.id, raw.placeholder('id')))
    .prepare('ledger_drop')

  /**
   * A balance-bounded claim: one transaction of pipelined statements, the payer's advisory lock and then one
   * conditional insert, whose snapshot (READ COMMITTED: taken when it starts, after the lock is held) sees every claim
   * the previous holder committed. It inserts only when the key is free (or `released`), the idempotency key is not
   * held and the outstanding sum plus this amount fits in the balance. When it inserts nothing, why is read after
   * the commit; `undefined` when nothing refuses it any more (a claim finished in between), to be tried again.
   */
  const claimWithin = async (
    values: toRow.ReturnType,
    balance: bigint,
    balanceAt: Date | undefined,
  ): Promise<ClaimResult | undefined> => {
    const claimedAt = values.claimedAt.toISOString()
    const since = balanceAt?.toISOString() ?? null
    // The transaction's four statements go out together, pipelined on one connection: one round trip. After a failed
    // statement the server aborts the transaction and answers the COMMIT with a rollback.
    const connection = await parameters.sql.reserve()
    const answered = await Promise.allSettled([
      connection.unsafe('BEGIN'),
      connection.unsafe(lockStatement, [values.payer], { prepare: true }),
      connection.unsafe(
        claimStatement,
        [
          values.payer,
          values.nonce,
          values.amount.toString(),
          values.endpoint,
          values.protocol,
          values.authorization,
          claimedAt,
          values.fingerprint,
          values.idempotencyKey,
          values.lease,
          balance.toString(),
          since,
        ],
        { prepare: true },
      ),
      connection.unsafe('COMMIT'),
    ])
    connection.release()
    const failed = answered.find((one) => one.status === 'rejected')
    if (failed) throw failed.reason
    const inserted = (answered[2] as PromiseFulfilledResult<unknown[]>).value.length > 0
    if (inserted) return { ok: true, entry: fromRow(values) }
    const [existing] = await read.execute(values)
    if (existing && existing.state !== 'released') return { ok: false, reason: 'replayed', existing: fromRow(existing) }
    const [holder] = values.idempotencyKey === null ? [] : await find.execute(values)
    if (holder) return { ok: false, reason: 'duplicate', existing: fromRow(holder) }
    const [counted] = await parameters.sql.unsafe<{ sum: string }[]>(outstandingStatement, [values.payer, since], {
      prepare: true,
    })
    const sum = BigInt(counted!.sum)
    if (sum + values.amount > balance) return { ok: false, reason: 'insufficient_funds', outstanding: sum }
    return undefined
  }

  return {
    async claim(parameters) {
      await ready()
      const values = toValues(parameters)
      for (let attempt = 1; ; attempt++) {
        try {
          if (parameters.balance !== undefined) {
            const result = await claimWithin(values, parameters.balance, parameters.balanceAt)
            if (result || attempt >= 3) return result ?? replayedOrVanished(await read.execute(values), values)
            continue
          }
          const [claimed] = await claim.execute(values)
          if (claimed) return { ok: true, entry: fromRow(claimed) }
        } catch (error) {
          if (serverError(error)?.constraint !== idempotencyIndex) throw error
          const [holder] = await find.execute(values)
          if (holder) return { ok: false, reason: 'duplicate', existing: fromRow(holder) }
          // The holder was released between the refused insert and this read: the key is free again.
          if (attempt < 3) continue
          throw error
        }
        const [existing] = await read.execute(values)
        // Released between the lost insert and this read: the authorization may be claimed again.
        if (existing?.state === 'released' && attempt < 3) continue
        return replayedOrVanished([existing], values)
      }
    },
    async apply(key, event, also) {
      await ready()
      if (also?.enqueue?.length) await migrateQueue()
      return db.transaction((tx) => move(tx, { key, event, also }))
    },
    async applyAll(moves) {
      await ready()
      if (moves.some(({ also }) => also?.enqueue?.length)) await migrateQueue()
      const keyed = moves.map((one) => ({ ...one, key: toKey(one.key) }))
      const idOf = ({ payer, nonce }: { payer: string; nonce: string }) => `${payer}:${nonce}`
      const unique = [...new Map(keyed.map(({ key }) => [idOf(key), key])).values()]
      return db.transaction(async (tx) => {
        // One read locks the group; the moves then apply in order in memory, each on its entry's latest state.
        const rows = await lockAll(tx, {
          payers: unique.map(({ payer }) => payer),
          nonces: unique.map(({ nonce }) => nonce),
        })
        const latest = new Map(rows.map((row) => [idOf(row), fromRow(row)]))
        const changed = new Set<string>()
        const moved = keyed.map(({ key, event }): Moved => {
          const entry = latest.get(idOf(key))
          try {
            if (!entry)
              throw new InvalidTransitionError(`No payment of ${key.payer} with nonce ${key.nonce} is in the ledger.`)
            const next = transition(entry, event, new Date())
            latest.set(idOf(key), next)
            changed.add(idOf(key))
            return { ok: true, entry: next }
          } catch (error) {
            if (error instanceof InvalidTransitionError) return { ok: false, error }
            throw error
          }
        })
        // One statement writes every changed entry; the outbox work goes out beside it, pipelined on the connection.
        await Promise.all([
          ...(changed.size > 0
            ? [
                writeAll(
                  tx,
                  [...changed].map((id) => toRow(latest.get(id)!)),
                ),
              ]
            : []),
          ...keyed.filter((_, index) => moved[index]!.ok).map(({ also }) => enqueue(tx, also)),
        ])
        return moved.map((one) => (one.ok ? { ok: true, entry: fromRow(toRow(one.entry)) } : one))
      })
    },
    async get(key) {
      await ready()
      const [row] = await read.execute(toKey(key))
      return row ? fromRow(row) : undefined
    },
    async find({ payer, idempotencyKey }) {
      await ready()
      const [row] = await find.execute({ payer: toPayer(payer), idempotencyKey })
      return row ? fromRow(row) : undefined
    },
    async list({ limit = 100, state }) {
      await ready()
      return (await list.execute({ state, limit })).map(fromRow)
    },
    async settled(payer) {
      await ready()
      const [row] = await settled.execute({ payer: toPayer(payer) })
      return {
        count: row!.count,
        amount: BigInt(row!.amount),
        first: row!.first === null ? undefined : new Date(row!.first),
        last: row!.last === null ? undefined : new Date(row!.last),
      }
    },
    async forget({ before }) {
      await ready()
      return (await forget.execute({ before: before.toISOString() })).length
    },
    async acquire({ staleBefore, ...lease }) {
      await ready()
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction(async (tx) => {
            await tx
              .delete(leases)
              .where(lt(leases.heartbeatAt, raw.placeholder('staleBefore')))
              .prepare('ledger_leases_stale')
              .execute({ staleBefore: staleBefore.toISOString() })
            const taken = await tx
              .select({ slot: leases.slot })
              .from(leases)
              .orderBy(asc(leases.slot))
              .prepare('ledger_slots')
              .execute()
            let slot = 0
            for (const row of taken) if (row.slot === slot) slot++
            const [acquired] = await tx
              .insert(leases)
              .values({
                id: raw.placeholder('id'),
                host: raw.placeholder('host'),
                pid: raw.placeholder('pid'),
                slot: raw.placeholder('slot'),
                heartbeatAt: raw.placeholder('heartbeatAt'),
              })
              .returning()
              .prepare('ledger_acquire')
              .execute({ ...lease, slot })
            return acquired!
          })
        } catch (error) {
          const server = serverError(error)
          // Another process took the same slot first, or two acquires deadlocked removing the same stale leases:
          // either way the other one committed, so the next look finds another free slot.
          if ((server?.constraint === slotConstraint || server?.code === '40P01') && attempt < 100) continue
          throw error
        }
      }
    },
    async renew({ id, now }) {
      await ready()
      return (await renew.execute({ id, now })).length > 0
    },
    async leases() {
      await ready()
      return allLeases.execute()
    },
    async drop(id) {
      await ready()
      await drop.execute({ id })
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

/** The pool, or a transaction on it: what a statement runs on. */
type Executor = Pick<ReturnType<typeof drizzle>, 'select' | 'insert'>

/** Writes `also`'s items to the queue's table inside the transaction `tx`: they commit with the move. */
async function enqueue(tx: Pick<ReturnType<typeof drizzle>, 'execute'>, also: Also | undefined): Promise<void> {
  const now = Date.now()
  for (const item of also?.enqueue ?? []) await tx.execute(enqueueStatement(item, now))
}

/** The placeholder values of a claim's statements: the fresh entry's row. */
function toValues(claim: Claim): toRow.ReturnType {
  return toRow(fromClaim(claim))
}

/** `replayed` with the entry that holds the key; a fault when there is none, since a claim never deletes. */
function replayedOrVanished(rows: (fromRow.Row | undefined)[], values: toRow.ReturnType): ClaimResult {
  const [existing] = rows
  if (!existing) throw new Error(`The payment of ${values.payer} with nonce ${values.nonce} vanished during its claim.`)
  return { ok: false, reason: 'replayed', existing: fromRow(existing) }
}
