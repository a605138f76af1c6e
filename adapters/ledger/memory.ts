import { type Entry, InvalidTransitionError, type Ledger, transition } from '../../core/Ledger.js'
import { fromRow, toClaimRow, toKey } from './schema.js'

/**
 * A payment ledger in process memory, for tests. Behaves like the durable ones: every entry is stored as JSON
 * (bigint amounts and dates round-trip, no object is shared with the caller) and (payer, nonce) is unique.
 */
export function memory(): Ledger {
  const rows = new Map<string, string>()
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
  const open = () => {
    if (closed) throw new Error('The memory ledger is closed.')
  }

  return {
    async claim(parameters) {
      open()
      const row = toClaimRow(parameters)
      // The databases' CHECK constraints refuse a negative amount; so does this store.
      if (row.amount < 0n) throw new Error(`Amount ${row.amount} is negative.`)
      const existing = read(idOf(row))
      if (existing && existing.state !== 'released') return { ok: false, reason: 'replayed', existing }
      return { ok: true, entry: write(fromRow(row)) }
    },
    async apply(key, event) {
      open()
      const entry = read(idOf(toKey(key)))
      if (!entry)
        throw new InvalidTransitionError(`No payment of ${key.payer} with nonce ${key.nonce} is in the ledger.`)
      return write(transition(entry, event, new Date()))
    },
    async get(key) {
      open()
      return read(idOf(toKey(key)))
    },
    async list({ state, limit = 100 }) {
      open()
      return [...rows.values()]
        .map(deserialize)
        .filter((entry) => entry.state === state)
        .sort(
          (a, b) =>
            a.claimedAt.getTime() - b.claimedAt.getTime() ||
            compare(a.payer, b.payer) ||
            compare(a.nonce, b.nonce),
        )
        .slice(0, limit)
    },
    async close() {
      closed = true
      rows.clear()
    },
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function serialize(entry: Entry): string {
  return JSON.stringify({
    ...entry,
    amount: entry.amount.toString(),
    transaction: entry.transaction ?? null,
    reason: entry.reason ?? null,
    claimedAt: entry.claimedAt.getTime(),
    updatedAt: entry.updatedAt.getTime(),
  })
}

function deserialize(json: string): Entry {
  const row = JSON.parse(json)
  return fromRow({ ...row, claimedAt: new Date(row.claimedAt), updatedAt: new Date(row.updatedAt) })
}
