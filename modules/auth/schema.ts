import { type Static, Type } from '@sinclair/typebox'
import * as Session from '../../core/Session.js'

/** Body of `POST /api/v1/auth/session`. */
export const SessionBody = Type.Object(
  {
    address: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description: 'EVM address the session is for; must be the payer of this call (compared case-insensitively).',
    }),
    permissions: Type.Optional(
      Type.Array(Type.Union(Session.permissions.map((permission) => Type.Literal(permission))), {
        uniqueItems: true,
        maxItems: Session.permissions.length,
        description: `Granted permissions, each one of: ${Session.permissions.join(', ')}. Default: ${Session.defaultPermissions.join(', ')}.`,
      }),
    ),
    ttlSeconds: Type.Optional(
      Type.Integer({
        minimum: Session.minTtlSeconds,
        maximum: Session.maxTtlSeconds,
        description: `Lifetime in whole seconds, ${Session.minTtlSeconds} to ${Session.maxTtlSeconds}. Default: ${Session.defaultTtlSeconds}.`,
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
  token: Type.String({ minLength: 1, maxLength: 2048, description: 'A session token from POST /api/v1/auth/session.' }),
})
/** Query of `GET /api/v1/auth/verify`. */
export type VerifyQuery = Static<typeof VerifyQuery>
