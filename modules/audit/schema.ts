import { type Static, Type } from '@sinclair/typebox'
import { isoPattern } from '../../core/Time.js'

/** Largest `details` of one entry, in bytes of its JSON in UTF-8 (8 KiB). */
export const maxDetailsBytes = 8192

/** Most entries one query returns; a larger `limit` is clamped to it. */
export const maxQueryLimit = 1000

/** Entries a query returns without a `limit` (the original gateway's default). */
export const defaultQueryLimit = 50

/** Body of `POST /api/v1/audit/log`. */
export const LogBody = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 128, description: 'What was done, e.g. `invoice.cancel`.' }),
    actor: Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        "Who did it: the payer of this call (an address is compared case-insensitively and must be the payer), or a label of yours such as `payroll-bot` (not an address), kept as given; the entry is recorded in the payer's own trail either way.",
    }),
    resource: Type.String({ minLength: 1, maxLength: 512, description: 'What it was done to, e.g. `invoice:42`.' }),
    // Unknown here, checked as an object by the route before validation: the framework's normalization would
    // reshape an array or a string into an object to fit an object schema.
    details: Type.Optional(Type.Unknown({ description: `Any JSON object, at most ${maxDetailsBytes} bytes as JSON.` })),
    txHash: Type.Optional(
      Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'A transaction the entry is about, 0x and 64 hex.' }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/audit/log`. */
export type LogBody = Static<typeof LogBody>

/** Query of `GET /api/v1/audit/query`. */
export const QueryQuery = Type.Object({
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        "An address must be the payer (a trail is readable by its payer only); a label selects the payer's entries recorded with it.",
    }),
  ),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only entries with this action.' })),
  resource: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'Only entries about this resource.' }),
  ),
  since: Type.Optional(
    Type.String({ pattern: isoPattern, description: 'Only entries recorded at or after this ISO 8601 time.' }),
  ),
  until: Type.Optional(
    Type.String({ pattern: isoPattern, description: 'Only entries recorded at or before this ISO 8601 time.' }),
  ),
  limit: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,9}$',
      description: `Most recent matching entries to return, up to ${maxQueryLimit}: more is taken as ${maxQueryLimit}, and 0 as the default, as the original gateway does. Default: ${defaultQueryLimit}.`,
    }),
  ),
})
/** Query of `GET /api/v1/audit/query`. */
export type QueryQuery = Static<typeof QueryQuery>
