import { type Address, getAddress } from 'viem'
import type { Queue } from '../../core/Queue.js'
import * as Store from '../../core/Store.js'

/**
 * An in-memory store for unit tests. Values round-trip through JSON like the durable adapters, and every
 * operation finishes within one turn of the event loop, so it is atomic as they are. Writes enqueue their `also`
 * work on `queue` (a memory queue, whose enqueue also finishes within the turn).
 */
export function memory(parameters: memory.Parameters = {}): Store.Store {
  const { queue } = parameters
  const enqueue = (also: Store.Also | undefined) => {
    if (!also?.enqueue?.length) return
    if (!queue) throw new Error('This memory store has no queue to enqueue on.')
    void queue.enqueue(also.enqueue)
  }
  const records = new Map<string, string>()
  const chains = new Map<string, string[]>()
  const keyOf = (collection: string, id: string) => `${collection}\u0000${id}`
  const revive = <value>(text: string) => {
    const parsed = JSON.parse(text)
    return {
      ...parsed,
      createdAt: new Date(parsed.createdAt),
      updatedAt: new Date(parsed.updatedAt),
    } as Store.Record<value>
  }
  const reviveEntry = <value>(text: string) => {
    const parsed = JSON.parse(text)
    return { ...parsed, createdAt: new Date(parsed.createdAt) } as Store.LogEntry<value>
  }
  /** The records of `collection` that `owner` owns, newest first, at most `limit`. */
  const listOf = <value>(collection: string, owner: Address, limit = 100) => {
    const checksummed = getAddress(owner)
    const owned = [...records.values()]
      .map((text) => revive<value>(text))
      .filter((record) => record.collection === collection && record.owners.includes(checksummed))
    return Store.newestFirst([owned]).slice(0, limit)
  }

  return {
    async insert(record, also) {
      const key = keyOf(record.collection, record.id)
      if (records.has(key)) return { ok: false, reason: 'exists' }
      // Checksummed and each once, as the durable adapters store them.
      const owners = [...new Set(record.owners.map((owner) => getAddress(owner)))]
      const text = JSON.stringify({ ...record, owners, version: 1, updatedAt: record.createdAt })
      records.set(key, text)
      enqueue(also)
      return { ok: true, record: revive(text) }
    },
    async get(collection, id) {
      const text = records.get(keyOf(collection, id))
      return text === undefined ? undefined : revive(text)
    },
    async list(collection, { owner, limit }) {
      return listOf(collection, owner, limit)
    },
    async listOwned(collection, { owners, limit }) {
      return Store.newestFirst(owners.map((owner) => listOf(collection, owner, limit)))
    },
    async update(collection, id, change, also) {
      const text = records.get(keyOf(collection, id))
      if (text === undefined) return { ok: false, reason: 'not_found' }
      const current = revive<never>(text)
      const next = change(current)
      if (Store.isRefusal(next)) return { ok: false, ...next }
      const updated = JSON.stringify({ ...current, value: next, version: current.version + 1, updatedAt: new Date() })
      records.set(keyOf(collection, id), updated)
      enqueue(also)
      return { ok: true, record: revive(updated) }
    },
    async append(chain, make) {
      const entries = chains.get(chain) ?? []
      const last = entries.length > 0 ? reviveEntry<never>(entries.at(-1)!) : undefined
      const made = make(last)
      const entry = JSON.stringify({
        chain,
        sequence: (last?.sequence ?? 0) + 1,
        value: made.value,
        previousHash: last?.hash ?? Store.genesisHash,
        hash: made.hash,
        createdAt: made.createdAt,
      })
      chains.set(chain, [...entries, entry])
      return reviveEntry(entry)
    },
    async entries(chain, { fromSequence = 1, limit = 1000 } = {}) {
      const start = Math.max(fromSequence, 1) - 1
      return (chains.get(chain) ?? []).slice(start, start + limit).map((text) => reviveEntry(text))
    },
    async remove(collection, id) {
      return records.delete(keyOf(collection, id))
    },
    async truncate(chain, sequence) {
      const entries = chains.get(chain) ?? []
      if (entries.length === 0 || reviveEntry(entries.at(-1)!).sequence !== sequence) return false
      chains.set(chain, entries.slice(0, -1))
      return true
    },
    async close() {},
  }
}

export declare namespace memory {
  type Parameters = {
    /** Where writes enqueue their `also` work; without one, such a write throws. */
    queue?: Queue | undefined
  }
}
