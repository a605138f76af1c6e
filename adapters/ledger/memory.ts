import * as Codec from '../../core/Codec.js'
import { InvalidTransitionError } from '../../core/Errors.js'
import { type Entry, type Lease, type Ledger, type Move, type Moved, transition } from '../../core/Ledger.js'
import type { Queue } from '../../core/Queue.js'
import { decided, fromClaim, fromRow, live, outstanding, toKey, toPayer, toRow } from './schema.js'

/**
 * A payment ledger in process memory, for tests. Behaves like the durable ones: every entry and lease is stored as
 * JSON (bigint amounts, dates and effects round-trip, no object is shared with the caller), (payer, nonce), a live
 * idempotency key per payer, a lease id and a slot are unique. Every method finishes within one turn of the event
 * loop, so it is atomic as theirs are. `apply` enqueues its `also` work on `queue` (a memory queue, whose enqueue also
 * finishes within the turn).
 */
export function memory(parameters: memory.Parameters = {}): Ledger {
  const { queue } = parameters
  const rows = new Map<string, string>()
  const leases = new Map<string, string>()
  let closed = false

  const idOf = (key: { payer: string; nonce: string }) => `${key.payer}:${key.nonce}`
  const read = (id: string): Entry | undefined => {
    const json = rows.get(id)
    return json === undefined ? undefined : deserialize(json)
  }
  const write = (entry: Entry): Entry => {
    const id = idOf(entry)
    rows.set(id, serialize(entry))
    return read(id)!
  }
  const entries = () => [...rows.values()].map(deserialize)
  const allLeases = () => [...leases.values()].map(deserializeLease).sort((a, b) => a.slot - b.slot)
  const holder = (payer: string, idempotencyKey: string) =>
    entries().find(
      (entry) =>
        entry.payer === payer &&
        entry.idempotencyKey === idempotencyKey &&
        (live as readonly string[]).includes(entry.state),
    )
  const open = () => {
    if (closed) throw new Error('The memory ledger is closed.')
  }
  // A refusal throws before anything is written.
  const move = ({ key, event, also }: Move): Entry => {
    open()
    const entry = read(idOf(toKey(key)))
    if (!entry) throw new InvalidTransitionError(`No payment of ${key.payer} with nonce ${key.nonce} is in the ledger.`)
    const next = transition(entry, event, new Date())
    if (also?.enqueue?.length) {
      if (!queue) throw new Error('This memory ledger has no queue to enqueue on.')
      void queue.enqueue(also.enqueue)
    }
    return write(next)
  }

  return {
    async claim(claim) {
      open()
      const entry = fromClaim(claim)
      // The databases' CHECK constraints refuse a negative amount; so does this store.
      if (entry.amount < 0n) throw new Error(`Amount ${entry.amount} is negative.`)
      const existing = read(idOf(entry))
      if (existing && existing.state !== 'released') return { ok: false, reason: 'replayed', existing }
      const duplicate = entry.idempotencyKey === undefined ? undefined : holder(entry.payer, entry.idempotencyKey)
      if (duplicate) return { ok: false, reason: 'duplicate', existing: duplicate }
      if (claim.balance !== undefined) {
        const { balanceAt } = claim
        const reserved = entries()
          .filter(
            (other) =>
              other.payer === entry.payer &&
              ((outstanding as readonly string[]).includes(other.state) ||
                (balanceAt !== undefined &&
                  other.state === 'settled' &&
                  other.updatedAt.getTime() >= balanceAt.getTime())),
          )
          .reduce((sum, other) => sum + other.amount, 0n)
        if (reserved + entry.amount > claim.balance)
          return { ok: false, reason: 'insufficient_funds', outstanding: reserved }
      }
      return { ok: true, entry: write(entry) }
    },
    async apply(key, event, also) {
      return move({ key, event, also })
    },
    async applyAll(moves) {
      return moves.map((one): Moved => {
        try {
          return { ok: true, entry: move(one) }
        } catch (error) {
          if (error instanceof InvalidTransitionError) return { ok: false, error }
          throw error
        }
      })
    },
    async get(key) {
      open()
      return read(idOf(toKey(key)))
    },
    async find({ payer, idempotencyKey }) {
      open()
      return holder(toPayer(payer), idempotencyKey)
    },
    async list({ state, limit = 100 }) {
      open()
      return entries()
        .filter((entry) => entry.state === state)
        .sort(
          (a, b) =>
            a.claimedAt.getTime() - b.claimedAt.getTime() || compare(a.payer, b.payer) || compare(a.nonce, b.nonce),
        )
        .slice(0, limit)
    },
    async settled(payer) {
      open()
      const settled = entries().filter((entry) => entry.state === 'settled' && entry.payer === toPayer(payer))
      const times = settled.map((entry) => entry.updatedAt.getTime())
      return {
        count: settled.length,
        amount: settled.reduce((sum, entry) => sum + entry.amount, 0n),
        first: times.length === 0 ? undefined : new Date(Math.min(...times)),
        last: times.length === 0 ? undefined : new Date(Math.max(...times)),
      }
    },
    async forget({ before }) {
      open()
      let count = 0
      for (const entry of entries())
        if (
          (decided as readonly string[]).includes(entry.state) &&
          entry.response !== undefined &&
          entry.updatedAt.getTime() < before.getTime()
        ) {
          write({ ...entry, response: undefined })
          count++
        }
      return count
    },
    async acquire({ id, host, pid, heartbeatAt, staleBefore }) {
      open()
      for (const lease of allLeases()) if (lease.heartbeatAt.getTime() < staleBefore.getTime()) leases.delete(lease.id)
      // The databases' primary key refuses a second lease with one id; so does this store.
      if (leases.has(id)) throw new Error(`Lease ${id} is already registered.`)
      const taken = new Set(allLeases().map((lease) => lease.slot))
      let slot = 0
      while (taken.has(slot)) slot++
      leases.set(id, serializeLease({ id, host, pid, slot, heartbeatAt }))
      return deserializeLease(leases.get(id)!)
    },
    async renew({ id, now }) {
      open()
      const json = leases.get(id)
      if (json === undefined) return false
      leases.set(id, serializeLease({ ...deserializeLease(json), heartbeatAt: now }))
      return true
    },
    async leases() {
      open()
      return allLeases()
    },
    async drop(id) {
      open()
      leases.delete(id)
    },
    async close() {
      closed = true
      rows.clear()
      leases.clear()
    },
  }
}

export declare namespace memory {
  type Parameters = {
    /** Where `apply` enqueues its `also` work; without one, such an `apply` throws. */
    queue?: Queue | undefined
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** How an entry is kept: its row as the database adapters write it, the amount as decimal text, times in epoch ms. */
const rowCodec = Codec.from<toRow.ReturnType, Record<string, unknown>>({
  payer: 'json',
  nonce: 'json',
  state: 'json',
  amount: 'bigint',
  endpoint: 'json',
  protocol: 'json',
  transaction: 'json',
  reason: 'json',
  authorization: 'json',
  claimedAt: 'millis',
  updatedAt: 'millis',
  fingerprint: 'json',
  idempotencyKey: 'json',
  lease: 'json',
  response: 'json',
  effects: 'json',
})

/** How a lease is kept: its heartbeat in epoch ms. */
const leaseCodec = Codec.from<Lease, Record<string, unknown>>({
  id: 'json',
  host: 'json',
  pid: 'json',
  slot: 'json',
  heartbeatAt: 'millis',
})

function serialize(entry: Entry): string {
  return JSON.stringify(rowCodec.serialize(toRow(entry)))
}

function deserialize(json: string): Entry {
  return fromRow(rowCodec.deserialize(JSON.parse(json)))
}

function serializeLease(lease: Lease): string {
  return JSON.stringify(leaseCodec.serialize(lease))
}

function deserializeLease(json: string): Lease {
  return leaseCodec.deserialize(JSON.parse(json))
}
