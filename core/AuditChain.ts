import { type Hex, keccak256, stringToBytes } from 'viem'
import { genesisHash, type LogEntry } from './Store.js'

/**
 * Tamper-evident audit chains: every entry's hash covers the previous entry's hash, so altering, removing or
 * reordering an entry breaks every link after it. Appending is the store's job (`Store.append`); this file says
 * what is hashed and how a chain is checked.
 */

/** The fields of an entry its hash covers. */
export type Hashed = Pick<LogEntry, 'previousHash' | 'sequence' | 'value' | 'createdAt'>

/** An entry as stored: the hashed fields and the hash. */
export type Linked = Hashed & Pick<LogEntry, 'hash'>

/** Why a chain does not verify. Reasons never change once published. */
export type Reason =
  /** An entry is missing or out of order: the sequence is not the next number. */
  | 'sequence_gap'
  /** The entry does not point at the hash of the entry before it. */
  | 'previous_hash_mismatch'
  /** The entry's content no longer matches its hash. */
  | 'hash_mismatch'

/**
 * The canonical JSON that {@link hash} covers: `{createdAt, previousHash, sequence, value}` with object keys
 * sorted by UTF-16 code units at every depth and no whitespace (RFC 8785 for values that round-trip through JSON),
 * `createdAt` as ISO 8601 with milliseconds. Stores may reorder keys (jsonb does); the hash does not change.
 */
export function serialize(entry: Hashed): string {
  return canonical({
    createdAt: entry.createdAt.toISOString(),
    previousHash: entry.previousHash,
    sequence: entry.sequence,
    value: entry.value,
  })
}

/** keccak256 of the entry's canonical JSON ({@link serialize}) in UTF-8. */
export function hash(entry: Hashed): Hex {
  return keccak256(stringToBytes(serialize(entry)))
}

/**
 * Checks a run of entries in order: each has the next sequence number, points at the hash before it, and still
 * matches its own hash. Names the first entry where the chain breaks. A chain cut short at its end verifies (no
 * later link is left to break); compare `head` with one you kept to detect that.
 */
export function verify(entries: readonly Linked[], parameters: verify.Parameters = {}): verify.ReturnType {
  const { after } = parameters
  let sequence = after?.sequence ?? 0
  let previousHash: Hex = after?.hash ?? genesisHash
  for (const entry of entries) {
    sequence += 1
    if (entry.sequence !== sequence) return { valid: false, brokenAt: sequence, reason: 'sequence_gap' }
    if (entry.previousHash !== previousHash)
      return { valid: false, brokenAt: sequence, reason: 'previous_hash_mismatch' }
    if (hash(entry) !== entry.hash) return { valid: false, brokenAt: sequence, reason: 'hash_mismatch' }
    previousHash = entry.hash
  }
  return { valid: true, length: sequence, head: previousHash }
}

export declare namespace verify {
  type Parameters = {
    /** The verified entry just before `entries`, to check a chain page by page; absent: `entries` start the chain. */
    after?: Pick<Linked, 'sequence' | 'hash'> | undefined
  }
  type ReturnType =
    | {
        valid: true
        /** Entries in the chain up to and including the last one checked. */
        length: number
        /** Hash of the last entry (the genesis hash for an empty chain); keep it to detect a cut-off end later. */
        head: Hex
      }
    | {
        valid: false
        /** Sequence number of the first entry that does not verify (or that is missing). */
        brokenAt: number
        /** What failed there. */
        reason: Reason
      }
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return canonical((value as { toJSON: () => unknown }).toJSON())
  if (Array.isArray(value)) return `[${value.map((item) => (isOmitted(item) ? 'null' : canonical(item))).join(',')}]`
  const fields = Object.keys(value)
    .filter((key) => !isOmitted((value as { [key: string]: unknown })[key]))
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical((value as { [key: string]: unknown })[key])}`)
  return `{${fields.join(',')}}`
}

/** Values JSON drops from objects (and writes as null in arrays). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}
