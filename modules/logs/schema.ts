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

/** Severity levels, least severe first. */
export const levels = ['debug', 'info', 'warn', 'error'] as const

/** One severity level. */
export type Level = (typeof levels)[number]

const Level = Type.Union(
  levels.map((level) => Type.Literal(level)),
  { description: `One of: ${levels.join(', ')}.` },
)

/** One log entry of an ingest call. */
export const LogEntry = Type.Object(
  {
    service: Type.String({ minLength: 1, maxLength: 128, description: 'Name of the emitting service.' }),
    level: Level,
    message: Type.String({
      maxLength: maxMessageLength,
      description: `The message, at most ${maxMessageLength} characters.`,
    }),
    timestamp: Type.Optional(
      Type.String({
        pattern: isoPattern,
        description: 'When it happened, ISO 8601 with a zone. Default: the time of ingest.',
      }),
    ),
    // Unknown here, checked as an object by the route before validation: the framework's normalization would
    // reshape an array or a string into an object to fit an object schema.
    fields: Type.Optional(Type.Unknown({ description: `A JSON object of structured fields, at most ${maxFields}.` })),
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
      pattern: '^(?:[1-9][0-9]{0,2}|1000)$',
      description: 'Most logs to return, 1 to 1000. Default: 100.',
    }),
  ),
})
/** Query of `GET /api/v1/logs/query`. */
export type QueryQuery = Static<typeof QueryQuery>
