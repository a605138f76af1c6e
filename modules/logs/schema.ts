import { type Static, Type } from '@sinclair/typebox'
import { isoPattern } from '../../core/Time.js'

/** Most entries one ingest call takes. */
export const maxEntries = 500

/** Longest message, in characters (UTF-16 code units, 4 Ki). */
export const maxMessageLength = 4096

/** Most structured fields of one entry. */
export const maxFields = 64

/** Most records a query scans: the caller's most recent logs. */
export const maxQueryScan = 1000

/** Most logs one query returns; a larger `limit` is clamped to it. */
export const maxQueryLimit = 1000

/** Logs a query returns without a `limit` (the original gateway's default). */
export const defaultQueryLimit = 50

/** Severity levels, least severe first. */
export const levels = ['debug', 'info', 'warn', 'error'] as const

/** One severity level. */
export type Level = (typeof levels)[number]

const Level = Type.Union(
  levels.map((level) => Type.Literal(level)),
  { description: `One of: ${levels.join(', ')}.` },
)

/**
 * One log entry of an ingest call. An entry without a `service`, a `level` or a `message` (or with an empty one) is
 * skipped and counted in `skipped`, as the original gateway does.
 */
export const LogEntry = Type.Object(
  {
    service: Type.Optional(Type.String({ maxLength: 128, description: 'Name of the emitting service.' })),
    level: Type.Optional(Level),
    message: Type.Optional(
      Type.String({
        maxLength: maxMessageLength,
        description: `The message, at most ${maxMessageLength} characters.`,
      }),
    ),
    timestamp: Type.Optional(
      Type.String({
        pattern: isoPattern,
        description: 'When it happened, ISO 8601 with a zone. Default: the time of ingest.',
      }),
    ),
    // Unknown here, checked as an object by the route before validation: the framework's normalization would
    // reshape an array or a string into an object to fit an object schema.
    fields: Type.Optional(Type.Unknown({ description: `A JSON object of structured fields, at most ${maxFields}.` })),
    data: Type.Optional(
      Type.Unknown({ description: "The original gateway's name of `fields` (send one of the two, not both)." }),
    ),
  },
  { additionalProperties: false },
)
/** One log entry of an ingest call. */
export type LogEntry = Static<typeof LogEntry>

/** Body of `POST /api/v1/logs/ingest`. */
export const IngestBody = Type.Object(
  {
    entries: Type.Array(LogEntry, {
      minItems: 1,
      maxItems: maxEntries,
      description: `1 to ${maxEntries} entries; the whole body is also bounded by the gateway's body limit.`,
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/logs/ingest`. */
export type IngestBody = Static<typeof IngestBody>

/** Query of `GET /api/v1/logs/query`. */
export const QueryQuery = Type.Object({
  service: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only logs of this service.' })),
  level: Type.Optional(Level),
  since: Type.Optional(
    Type.String({ pattern: isoPattern, description: 'Only logs whose timestamp is at or after this time.' }),
  ),
  limit: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,9}$',
      description: `Most logs to return, up to ${maxQueryLimit}: more is taken as ${maxQueryLimit}, and 0 as the default, as the original gateway does. Default: ${defaultQueryLimit}.`,
    }),
  ),
})
/** Query of `GET /api/v1/logs/query`. */
export type QueryQuery = Static<typeof QueryQuery>
