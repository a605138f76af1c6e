import type { Entry } from '../../core/Ledger.js'
import type { Also, Effect, Record, Refusal, Store } from '../../core/Store.js'
import type { Logger } from '../log.js'

/** Where the writes of one paid call are recorded: with its payment while it is held, nowhere once it is not. */
export type Scope = {
  /** Records one write, durably, before the handler goes on; `undefined` once the payment is settled or released. */
  record: ((effect: Effect) => Promise<void>) | undefined
}

/**
 * The store of one paid call (`paid.journal`): every insert, update, remove and append made through it is recorded in
 * `scope`, so that {@link undo} can take it back when the call is never paid.
 */
export function journaled(store: Store, scope: Scope): Store {
  const note = async (effect: Effect) => {
    await scope.record?.(effect)
  }
  return {
    ...store,
    async insert(record, also) {
      const result = await store.insert(record, also)
      if (result.ok) await note({ type: 'insert', collection: record.collection, id: record.id })
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
      if (result.ok) await note({ type: 'update', collection, id, before, version: result.record.version })
      return result
    },
    async remove(collection, id) {
      // The store's remove answers only whether there was a record, so it is read first to be put back by `undo`.
      const record = await store.get(collection, id)
      const removed = await store.remove(collection, id)
      if (removed && record)
        await note({
          type: 'remove',
          collection,
          id,
          record: { owners: [...record.owners], value: record.value, createdAt: record.createdAt.toISOString() },
        })
      return removed
    },
    async append(chain, make) {
      const entry = await store.append(chain, make)
      await note({ type: 'append', chain, sequence: entry.sequence })
      return entry
    },
  }
}

/**
 * Takes back the writes of a call that was never paid, newest first: inserts are removed, updates put back while
 * nobody changed the record since, removed records inserted again while their id is free, appends truncated while
 * still last. Returns the writes it could not take back.
 */
export async function undo(store: Store, effects: readonly Effect[]): Promise<Effect[]> {
  const kept: Effect[] = []
  for (const effect of [...effects].reverse()) {
    const undone = await (async () => {
      switch (effect.type) {
        case 'insert':
          // Already gone is as good as removed.
          await store.remove(effect.collection, effect.id)
          return true
        case 'update': {
          const result = await store.update(effect.collection, effect.id, (current) =>
            current.version === effect.version ? effect.before : { refused: true, reason: 'changed since' },
          )
          return result.ok || result.reason === 'not_found'
        }
        case 'remove': {
          // A record made again under that id since is someone's newer write: it stays, and the effect is kept.
          const { owners, value, createdAt } = effect.record
          const result = await store.insert({
            collection: effect.collection,
            id: effect.id,
            owners,
            value,
            createdAt: new Date(createdAt),
          })
          return result.ok
        }
        case 'append':
          return store.truncate(effect.chain, effect.sequence)
      }
    })()
    if (!undone) kept.push(effect)
  }
  return kept
}

/** Takes back the writes of a payment that was released or failed; logs the ones that could not be. */
export async function takeBack(parameters: { store: Store | undefined; entry: Entry; logger: Logger }): Promise<void> {
  const { store, entry, logger } = parameters
  if (!store || entry.effects.length === 0) return
  const kept = await undo(store, entry.effects)
  if (kept.length > 0)
    logger.log('error', 'undo_incomplete', { endpoint: entry.endpoint, payer: entry.payer, kept: kept.length })
}
