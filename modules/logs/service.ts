import { type Address, getAddress } from 'viem'
import { ValidationError } from '../../core/Errors.js'
import type { Store } from '../../core/Store.js'
import * as Time from '../../core/Time.js'
import {
  defaultQueryLimit,
  type IngestBody,
  type Level,
  maxFields,
  maxQueryLimit,
  maxQueryScan,
  type QueryQuery,
} from './schema.js'

/** What the logs module needs from outside. */
export type Deps = {
  /** Where log records are kept. */
  store: Store
  /** The clock. @default () => new Date() */
  now?: () => Date
}

/** Collection of log records; each is owned by the payer that ingested it. */
export const collection = 'logs'

/** A stored log record's value. */
export type Log = {
  /** Name of the emitting service. */
  service: string
  /** Severity. */
  level: Level
  /** The message. */
  message: string
  /** When it happened, ISO 8601 (the ingest time when the entry named none). */
  timestamp: string
  /** Structured fields, when given. */
  fields?: Fields
}

/** Structured fields of a log entry. */
export type Fields = { [key: string]: unknown }

/**
 * Refuses entries whose `fields` (or `data`, the original gateway's name of them) are not a JSON object of at most
 * {@link maxFields} fields, or that send both. Pure; the routes run it before validation and payment, and leave
 * everything else about `entries` to the schema.
 */
export function assertFields(entries: unknown): void {
  if (!Array.isArray(entries)) return
  entries.forEach((entry: { fields?: unknown; data?: unknown } | null, index) => {
    if (typeof entry !== 'object' || entry === null) return
    if (entry.fields !== undefined && entry.data !== undefined)
      throw new ValidationError({
        field: `entries.${index}.data`,
        message: 'and `fields` are one thing under two names: send one of them',
      })
    const name = entry.data === undefined ? 'fields' : 'data'
    const fields = entry.fields ?? entry.data
    if (fields === undefined) return
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
      throw new ValidationError({ field: `entries.${index}.${name}`, message: 'must be a JSON object' })
    if (Object.keys(fields).length > maxFields)
      throw new ValidationError({ field: `entries.${index}.${name}`, message: `must have at most ${maxFields} fields` })
  })
}

/**
 * Stores each complete entry as a record owned by the caller; an entry without a service, a level or a message is
 * skipped and counted, as the original gateway does. Every record is written atomically, the batch is not: a fault
 * part-way leaves the earlier entries stored (their ids are lost with the failed response).
 */
export async function ingest(deps: Deps, input: ingest.Input) {
  assertFields(input.entries)
  const owner = getAddress(input.caller)
  const now = (deps.now ?? (() => new Date()))()
  // Check every timestamp first, so a bad entry stores nothing.
  const logs = input.entries.flatMap(({ service, level, message, timestamp, fields, data }, index): Log[] =>
    service && level && message
      ? [
          {
            service,
            level,
            message,
            timestamp:
              timestamp === undefined
                ? now.toISOString()
                : Time.fromIso(timestamp, `entries.${index}.timestamp`).toISOString(),
            ...((fields ?? data) === undefined ? {} : { fields: (fields ?? data) as Fields }),
          },
        ]
      : [],
  )
  const ids: string[] = []
  for (const value of logs) {
    const id = crypto.randomUUID()
    const inserted = await deps.store.insert<Log>({ collection, id, owners: [owner], value, createdAt: now })
    if (!inserted.ok) throw new Error(`A random log id collided: ${id}.`)
    ids.push(id)
  }
  return { ingested: ids.length, skipped: input.entries.length - ids.length, ids }
}

export declare namespace ingest {
  type Input = IngestBody & {
    /** The verified payer. */
    caller: Address
  }
}

/**
 * The caller's own logs, newest first by timestamp, filtered by service, exact level and time. Scans the
 * caller's {@link maxQueryScan} most recently ingested records and filters them, so it is linear in that bound,
 * never in other callers' logs; `total` counts the matches among them.
 */
export async function query(deps: Deps, input: query.Input) {
  const { caller, service, level, since, limit } = input
  const count = Math.min(Number(limit ?? 0) || defaultQueryLimit, maxQueryLimit)
  const from = since === undefined ? undefined : Time.fromIso(since, 'since').getTime()
  const records = await deps.store.list<Log>(collection, { owner: getAddress(caller), limit: maxQueryScan })
  const matches = records
    .filter(
      ({ value }) =>
        (service === undefined || value.service === service) &&
        (level === undefined || value.level === level) &&
        (from === undefined || Date.parse(value.timestamp) >= from),
    )
    .sort((a, b) => Date.parse(b.value.timestamp) - Date.parse(a.value.timestamp))
  return {
    logs: matches.slice(0, count).map(({ id, value, createdAt }) => ({
      id,
      ...value,
      data: value.fields ?? {},
      ingestedAt: createdAt.toISOString(),
    })),
    total: matches.length,
  }
}

export declare namespace query {
  type Input = QueryQuery & {
    /** The verified payer. */
    caller: Address
  }
}
