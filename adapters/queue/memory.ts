import * as Queue from '../../core/Queue.js'

/** An item as the memory queue keeps it: JSON text, as the durable adapters store it. */
type Kept = { text: string; token: string | null }

/**
 * An in-memory queue for unit tests and for the memory store's atomic writes. Payloads round-trip through JSON like
 * the durable adapters', and every operation finishes within one turn of the event loop, so a claim is atomic.
 */
export function memory(): Queue.Queue {
  const items = new Map<string, Kept>()
  const keyOf = (queue: string, id: string) => `${queue}\u0000${id}`
  const revive = <payload>(text: string): Queue.Item<payload> => {
    const parsed = JSON.parse(text)
    return {
      ...parsed,
      dueAt: new Date(parsed.dueAt),
      createdAt: new Date(parsed.createdAt),
      updatedAt: new Date(parsed.updatedAt),
    }
  }
  const settle = (lease: Queue.Lease, change: (item: Queue.Item) => Queue.Item) => {
    const kept = items.get(keyOf(lease.queue, lease.id))
    if (!kept || kept.token !== lease.token) return false
    const item = revive(kept.text)
    if (item.state !== 'pending') return false
    items.set(keyOf(lease.queue, lease.id), {
      text: JSON.stringify({ ...change(item), updatedAt: new Date() }),
      token: null,
    })
    return true
  }

  return {
    async enqueue(list) {
      const now = new Date()
      let added = 0
      for (const item of list) {
        const key = keyOf(item.queue, item.id)
        if (items.has(key)) continue
        const stored: Queue.Item = {
          queue: item.queue,
          id: item.id,
          payload: item.payload,
          state: 'pending',
          attempts: 0,
          dueAt: item.dueAt ?? now,
          createdAt: now,
          updatedAt: now,
        }
        items.set(key, { text: JSON.stringify(stored), token: null })
        added++
      }
      return added
    },
    async claim<payload>(
      queue: string,
      { limit = 10, leaseMs = Queue.defaultLeaseMs, now = new Date() }: Parameters<Queue.Queue['claim']>[1] = {},
    ) {
      const token = Queue.token()
      const due = [...items.values()]
        .map((kept) => revive<payload>(kept.text))
        .filter((item) => item.queue === queue && item.state === 'pending' && item.dueAt <= now)
        .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || (a.id < b.id ? -1 : 1))
        .slice(0, limit)
      return due.map((item) => {
        const leased = {
          ...item,
          attempts: item.attempts + 1,
          dueAt: new Date(now.getTime() + leaseMs),
          updatedAt: now,
        }
        items.set(keyOf(queue, item.id), { text: JSON.stringify(leased), token })
        return { ...revive<payload>(JSON.stringify(leased)), token }
      })
    },
    async complete(lease, result) {
      return settle(lease, (item) => ({ ...item, state: 'done', result }))
    },
    async retry(lease, { at, error }) {
      return settle(lease, (item) => ({ ...item, dueAt: at, lastError: error }))
    },
    async fail(lease, error) {
      return settle(lease, (item) => ({ ...item, state: 'failed', lastError: error }))
    },
    async get(queue, id) {
      const kept = items.get(keyOf(queue, id))
      return kept ? revive(kept.text) : undefined
    },
    async pending() {
      const counts: Record<string, number> = {}
      for (const { text } of items.values()) {
        const item = revive(text)
        if (item.state === 'pending') counts[item.queue] = (counts[item.queue] ?? 0) + 1
      }
      return counts
    },
    async close() {},
  }
}
