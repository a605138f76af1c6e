import { type Static, Type } from '@sinclair/typebox'
import * as Session from '../../core/Session.js'

/** Largest `metadata` of a session, in bytes of its JSON in UTF-8: it travels inside the token. */
export const maxMetadataBytes = 1024

/** Body of `POST /api/v1/auth/session`. */
export const SessionBody = Type.Object(
  {
    address: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description: 'EVM address the session is for; must be the payer of this call (compared case-insensitively).',
    }),
    permissions: Type.Optional(
      Type.Array(
        Type.Union([Session.everyPermission, ...Session.permissions].map((permission) => Type.Literal(permission))),
        {
          uniqueItems: true,
          maxItems: Session.permissions.length + 1,
          description: `Granted permissions: ours (${Session.ownPermissions.join(', ')}), the original gateway's scopes (${Session.originalPermissions.join(', ')}), or \`*\` for every one of the original's scopes, as it expands it. Default: \`*\`.`,
        },
      ),
    ),
    ttlSeconds: Type.Optional(
      Type.Number({
        description: `Lifetime in seconds, taken into ${Session.minTtlSeconds} to ${Session.maxTtlSeconds} as the original gateway does (less is ${Session.minTtlSeconds}, more is ${Session.maxTtlSeconds}, fractions are dropped); 0 is the default. Default: ${Session.defaultTtlSeconds}.`,
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: `Any JSON object of yours, at most ${maxMetadataBytes} bytes as JSON: signed into the token (readable by whoever holds it) and shown by auth/verify.`,
      }),
    ),
    revokeOthers: Type.Optional(
      Type.Boolean({ description: 'Revoke every token issued to this address before this one. Default: false.' }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/auth/session`. */
export type SessionBody = Static<typeof SessionBody>

/** Query of `GET /api/v1/auth/verify`. */
export const VerifyQuery = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 4096, description: 'A session token from POST /api/v1/auth/session.' }),
})
/** Query of `GET /api/v1/auth/verify`. */
export type VerifyQuery = Static<typeof VerifyQuery>
