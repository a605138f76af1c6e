import { isDeepStrictEqual } from 'node:util'
import type { Also, Record, Refusal, Store } from '../../core/Store.js'

/** One successful write that reached a recorded store. */
export type Write =
  | { type: 'insert'; collection: string; id: string }
  | {
      type: 'update'
      collection: string
      id: string
      /** The value the update replaced. */
      before: unknown
    }
  | {
      type: 'remove'
      collection: string
      id: string
      /** The value the record held when it was removed. */
      before: unknown
    }
  | { type: 'append'; chain: string; sequence: number }

/**
 * Records every successful insert, update, remove and append made through the stores it wraps, oldest first, so that
 * a test can check afterwards which of them still stand. Reads, and the truncates that take appends back, pass through.
 */
export function recorder() {
  const writes: Write[] = []
  return {
    /** The writes since the last {@link clear}, oldest first. */
    writes,
    /** Forgets the writes recorded so far. */
    clear: () => void writes.splice(0),
    /** `store`, recording each successful write. */
    wrap(store: Store): Store {
      return {
        ...store,
        async insert(record, also) {
          const result = await store.insert(record, also)
          if (result.ok) writes.push({ type: 'insert', collection: record.collection, id: record.id })
          return result
        },
        async update<value>(
          collection: string,
          id: string,
          change: (current: Record<value>) => value | Refusal,
          also?: Also,
        ) {
          let before: unknown
          const result = await store.update<value>(
            collection,
            id,
            (current) => {
              // The adapter may run `change` again after a lost race; the last run saw the value that was replaced.
              before = current.value
              return change(current)
            },
            also,
          )
          if (result.ok) writes.push({ type: 'update', collection, id, before })
          return result
        },
        async remove(collection, id) {
          const before = await store.get(collection, id)
          const removed = await store.remove(collection, id)
          if (removed) writes.push({ type: 'remove', collection, id, before: before?.value })
          return removed
        },
        async append(chain, make) {
          const entry = await store.append(chain, make)
          writes.push({ type: 'append', chain, sequence: entry.sequence })
          return entry
        },
      }
    },
  }
}

/** Where a write landed: its collection, or its chain. */
export function placeOf(write: Write): string {
  return write.type === 'append' ? write.chain : write.collection
}

/**
 * The writes of `writes` that still stand in `store`: a record inserted and still there, a record no longer holding
 * the value from before its first update, a record removed and still absent, an appended entry still in its chain.
 * A record is judged by its first write alone: one first inserted by the same writes must be gone (its updates and
 * its removal by a take-back are part of its life), one first updated or removed must hold again what it held (its
 * insert again by a take-back is how it does).
 */
export async function standing(store: Store, writes: readonly Write[]): Promise<Write[]> {
  const keyOf = (write: Exclude<Write, { type: 'append' }>) => `${write.collection}\u0000${write.id}`
  const first = new Map<string, Write>()
  for (const write of writes) if (write.type !== 'append' && !first.has(keyOf(write))) first.set(keyOf(write), write)
  const stands: Write[] = []
  for (const write of writes) {
    if (write.type === 'append') {
      const [entry] = await store.entries(write.chain, { fromSequence: write.sequence, limit: 1 })
      if (entry?.sequence === write.sequence) stands.push(write)
      continue
    }
    if (first.get(keyOf(write)) !== write) continue
    const record = await store.get(write.collection, write.id)
    const taken = write.type === 'insert' ? record === undefined : isDeepStrictEqual(record?.value, write.before)
    if (!taken) stands.push(write)
  }
  return stands
}
