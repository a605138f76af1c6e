// The writes that the store suite and its second process both make: counter increments and chained appends.
import { keccak256, stringToHex } from 'viem'
import * as Store from '../../../core/Store.js'

/** The value of the counter records of the concurrency tests. */
export type Counter = { count: number }

/** An `update` change that adds one to a counter. */
export function increment(current: Store.Record<Counter>): Counter {
  return { count: current.value.count + 1 }
}

/** The hash an entry carries: over its previous hash, its sequence and its value's JSON text. */
export function hashOf(previousHash: `0x${string}`, sequence: number, value: unknown): `0x${string}` {
  return keccak256(stringToHex(JSON.stringify([previousHash, sequence, value])))
}

/** An `append` maker that chains `value` to the last entry. */
export function appendTo<value>(value: value, createdAt = new Date()) {
  return (last: Store.LogEntry<unknown> | undefined) => ({
    value,
    hash: hashOf(last?.hash ?? Store.genesisHash, (last?.sequence ?? 0) + 1, value),
    createdAt,
  })
}

/** Whether every entry links to the one before it and its hash covers its value as stored. */
export function isChained(entries: readonly Store.LogEntry[]): boolean {
  return entries.every(
    (entry, index) =>
      entry.sequence === index + 1 &&
      entry.previousHash === (index === 0 ? Store.genesisHash : entries[index - 1]!.hash) &&
      entry.hash === hashOf(entry.previousHash, entry.sequence, entry.value),
  )
}
