import { type Address, getAddress, isAddress } from 'viem'
import * as AuditChain from '../../core/AuditChain.js'
import { ForbiddenError, ValidationError } from '../../core/Errors.js'
import { genesisHash, type LogEntry, type Store } from '../../core/Store.js'
import * as Time from '../../core/Time.js'
import { defaultQueryLimit, type LogBody, maxDetailsBytes, maxQueryLimit, type QueryQuery } from './schema.js'

/** What the audit module needs from outside. */
export type Deps = {
  /** Where the chains are appended. */
  store: Store
  /** The clock. @default () => new Date() */
  now?: () => Date
}

/** What one audit entry records (the chain adds sequence, hashes and time). */
export type Entry = {
  /** Unique id of the entry. */
  id: string
  /** What was done. */
  action: string
  /** Who did it: the payer's checksummed address, or the payer's own label for it. */
  actor: string
  /** Checksummed address that recorded it: always the payer (absent from entries written before labels). */
  payer?: Address
  /** What it was done to. */
  resource: string
  /** Further JSON facts, when given. */
  details?: Details
  /** The transaction it is about, when given. */
  txHash?: string
}

/** Entries read from the store per page while a chain is verified. */
const pageSize = 1000

/** The chain of an address: one per payer, so a trail is private to it and cannot be interleaved. */
export function chainOf(address: Address): string {
  return `audit:${getAddress(address)}`
}

/** Further JSON facts of an entry. */
export type Details = { [key: string]: unknown }

/**
 * Refuses `details` that are not a JSON object or whose JSON is larger than {@link maxDetailsBytes}. Pure; the
 * routes run it before validation and payment.
 */
export function assertDetails(details: unknown): asserts details is Details | undefined {
  if (details === undefined) return
  if (typeof details !== 'object' || details === null || Array.isArray(details))
    throw new ValidationError({ field: 'details', message: 'must be a JSON object' })
  const size = new TextEncoder().encode(JSON.stringify(details)).length
  if (size > maxDetailsBytes)
    throw new ValidationError({
      field: 'details',
      message: `must be at most ${maxDetailsBytes} bytes as JSON (got ${size})`,
    })
}

/**
 * The actor an entry records: the payer's checksummed address when `actor` is an address (it must be the caller's:
 * no one records actions in another address's name), else the label as given.
 */
function actorOf(actor: string, caller: Address, refusal: string): string {
  if (!isAddress(actor, { strict: false })) return actor
  if (actor.toLowerCase() !== caller.toLowerCase()) throw new ForbiddenError(refusal, { details: { field: 'actor' } })
  return getAddress(caller)
}

/**
 * Appends an entry to the caller's chain: the trail is the payer's, whatever `actor` says. An address as `actor`
 * must be the caller, so no one can write into another's trail or record actions in another address's name; a label
 * (the original gateway's free-string actor) is kept as given beside the payer.
 */
export async function log(deps: Deps, input: log.Input) {
  const { caller, action, resource, details, txHash } = input
  const actor = actorOf(input.actor, caller, 'The actor of an audit entry must be the address that pays for it.')
  assertDetails(details)
  const createdAt = (deps.now ?? (() => new Date()))()
  // Hash what the store will give back: JSON drops undefined fields, so round-trip before hashing.
  const value: Entry = JSON.parse(
    JSON.stringify({
      id: crypto.randomUUID(),
      action,
      actor,
      payer: getAddress(caller),
      resource,
      details,
      txHash,
    } satisfies Entry),
  )
  const entry = await deps.store.append<Entry>(chainOf(caller), (last) => {
    const linked = { sequence: (last?.sequence ?? 0) + 1, previousHash: last?.hash ?? genesisHash, value, createdAt }
    return { value, createdAt, hash: AuditChain.hash(linked) }
  })
  return {
    id: value.id,
    action,
    actor,
    payer: value.payer,
    resource,
    ...(txHash === undefined ? {} : { txHash }),
    recorded: true,
    sequence: entry.sequence,
    hash: entry.hash,
    recordedAt: entry.createdAt.toISOString(),
  }
}

export declare namespace log {
  type Input = LogBody & {
    /** The verified payer. */
    caller: Address
  }
}

/**
 * The caller's own entries, most recent first, filtered by action and time, with a verification of the whole
 * chain. Reads the chain page by page: linear in the caller's own entry count. `actor`, when given, must be the
 * caller (a trail is readable by its actor only).
 */
export async function query(deps: Deps, input: query.Input) {
  const { caller, action, resource, since, until, limit } = input
  const actor =
    input.actor === undefined
      ? undefined
      : actorOf(
          input.actor,
          caller,
          'An audit trail can only be read by its actor, the address that pays for the query.',
        )
  const from = since === undefined ? undefined : Time.fromIso(since, 'since')
  const to = until === undefined ? undefined : Time.fromIso(until, 'until')
  const count = Math.min(Number(limit ?? 0) || defaultQueryLimit, maxQueryLimit)
  const chain = chainOf(caller)

  const matches: LogEntry<Entry>[] = []
  let total = 0
  let verification: AuditChain.verify.ReturnType = { valid: true, length: 0, head: genesisHash }
  let last: LogEntry<Entry> | undefined
  for (let fromSequence = 1; ; fromSequence += pageSize) {
    const page = await deps.store.entries<Entry>(chain, { fromSequence, limit: pageSize })
    if (verification.valid) verification = AuditChain.verify(page, { after: last })
    for (const entry of page) {
      if (action !== undefined && entry.value.action !== action) continue
      if (resource !== undefined && entry.value.resource !== resource) continue
      // An address is the payer's own: every entry of its trail is theirs, recorded with a label or not.
      if (actor !== undefined && !isAddress(actor) && entry.value.actor !== actor) continue
      if (from !== undefined && entry.createdAt < from) continue
      if (to !== undefined && entry.createdAt > to) continue
      total += 1
      matches.push(entry)
      if (matches.length > count) matches.shift()
    }
    last = page.at(-1) ?? last
    if (page.length < pageSize) break
  }

  return { entries: matches.reverse().map(toView), total, verification }
}

export declare namespace query {
  type Input = QueryQuery & {
    /** The verified payer. */
    caller: Address
  }
}

function toView(entry: LogEntry<Entry>) {
  const { id, action, actor, payer = actor, resource, details, txHash } = entry.value
  return {
    id,
    sequence: entry.sequence,
    action,
    actor,
    payer,
    resource,
    ...(details === undefined ? {} : { details }),
    ...(txHash === undefined ? {} : { txHash }),
    recordedAt: entry.createdAt.toISOString(),
    previousHash: entry.previousHash,
    hash: entry.hash,
  }
}
