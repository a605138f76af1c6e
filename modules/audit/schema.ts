import { type Static, Type } from '@sinclair/typebox'
import { isoPattern } from '../../core/Time.js'

/** Largest `details` of one entry, in bytes of its JSON in UTF-8 (8 KiB). */
export const maxDetailsBytes = 8192

/** Body of `POST /api/v1/audit/log`. */
export const LogBody = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 128, description: 'What was done, e.g. `invoice.cancel`.' }),
    actor: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        'Who did it: the payer of this call (compared case-insensitively); an entry is only ever recorded for its payer.',
    }),
    resource: Type.String({ minLength: 1, maxLength: 512, description: 'What it was done to, e.g. `invoice:42`.' }),
    // Unknown here, checked as an object by the route before validation: the framework's normalization would
    // reshape an array or a string into an object to fit an object schema.
    details: Type.Optional(Type.Unknown({ description: `Any JSON object, at most ${maxDetailsBytes} bytes as JSON.` })),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/audit/log`. */
export type LogBody = Static<typeof LogBody>

/** Query of `GET /api/v1/audit/query`. */
export const QueryQuery = Type.Object({
  actor: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description: 'Must be the payer: a trail is readable by its actor only.',
    }),
  ),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only entries with this action.' })),
  since: Type.Optional(
    Type.String({ pattern: isoPattern, description: 'Only entries recorded at or after this ISO 8601 time.' }),
  ),
  limit: Type.Optional(
    Type.String({
      pattern: '^(?:[1-9][0-9]{0,2}|1000)$',
      description: 'Most recent matching entries to return, 1 to 1000. Default: 100.',
    }),
  ),
})
/** Query of `GET /api/v1/audit/query`. */
export type QueryQuery = Static<typeof QueryQuery>
