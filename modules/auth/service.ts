import { type Address, getAddress } from 'viem'
import { ForbiddenError, ValidationError } from '../../core/Errors.js'
import * as Session from '../../core/Session.js'
import type { Store } from '../../core/Store.js'
import { maxMetadataBytes, type SessionBody, type VerifyQuery } from './schema.js'

/** What the auth module needs from outside. */
export type Deps = {
  /** Where each address's revocation generation is kept (tokens themselves are never stored). */
  store: Store
  /** HS256 key of session tokens, at least 32 bytes; never logged or echoed. */
  secret: string
  /** The clock. @default () => new Date() */
  now?: () => Date
}

/** Collection of revocation records, one per address (id: the checksummed address). */
export const revocations = 'session_revocations'

/** A revocation record: tokens of an earlier generation are revoked. */
export type Revocation = {
  /** Increases by one with every revocation; tokens carry the generation they were issued in. */
  generation: number
  /** When the latest revocation happened, ISO 8601. */
  revokedBefore: string
}

/** Refuses `metadata` whose JSON is larger than {@link maxMetadataBytes}: it is signed into the token. */
export function assertMetadata(metadata: unknown): void {
  if (metadata !== undefined && new TextEncoder().encode(JSON.stringify(metadata)).length > maxMetadataBytes)
    throw new ValidationError({ field: 'metadata', message: `must be at most ${maxMetadataBytes} bytes as JSON` })
}

/**
 * Issues a session token for the caller's own address. With `revokeOthers`, first revokes every earlier token
 * of the address (atomically, in the store), and the new token belongs to the new generation.
 */
export async function session(deps: Deps, input: session.Input) {
  const { caller, address, permissions = [Session.everyPermission], metadata } = input
  // The original gateway's reading: 0 or none is the default, then clamped into the allowed range.
  const ttlSeconds = Math.min(
    Math.max(Math.floor(input.ttlSeconds || Session.defaultTtlSeconds), Session.minTtlSeconds),
    Session.maxTtlSeconds,
  )
  assertMetadata(metadata)
  if (address.toLowerCase() !== caller.toLowerCase())
    throw new ForbiddenError('A session can only be issued for the address that pays for it.', {
      details: { field: 'address' },
    })
  const now = (deps.now ?? (() => new Date()))()
  const subject = getAddress(caller)
  const generation = input.revokeOthers
    ? await revoke(deps.store, subject, now)
    : await generationOf(deps.store, subject)
  const issuedAt = Math.floor(now.getTime() / 1000)
  const claims: Session.Claims = {
    iss: Session.issuer,
    sub: subject,
    perms: permissions.includes(Session.everyPermission)
      ? [...Session.originalPermissions]
      : (permissions as Session.Permission[]),
    iat: issuedAt,
    exp: issuedAt + ttlSeconds,
    jti: crypto.randomUUID(),
    gen: generation,
    ...(metadata === undefined ? {} : { meta: metadata }),
  }
  return {
    sessionId: claims.jti,
    token: Session.sign({ claims, secret: deps.secret }),
    expiresAt: new Date(claims.exp * 1000).toISOString(),
    ttlSeconds,
    address: subject,
    permissions: claims.perms,
    revokedOthers: input.revokeOthers === true,
  }
}

export declare namespace session {
  type Input = SessionBody & {
    /** The verified payer. */
    caller: Address
  }
}

/** The original gateway's words for why a token is not valid, beside our stable `reason`. */
const errors: Record<Session.Reason, string> = {
  malformed: 'Invalid or expired token',
  tampered: 'Invalid or expired token',
  expired: 'Token expired',
  revoked: 'Invalid or expired token',
}

/**
 * Verifies a token offline (signature, expiry) and then against the address's revocation generation. Any payer
 * may verify any token it holds: that is what a relying party does. Permissions are empty unless valid. An invalid
 * token is a 200 with `valid: false` (the spec's boolean answer), where the original gateway answered 401.
 */
export async function verify(deps: Deps, input: VerifyQuery) {
  const now = (deps.now ?? (() => new Date()))()
  const result = Session.verify({ token: input.token, secret: deps.secret, now })
  if (!result.valid && result.reason !== 'expired')
    return {
      valid: false,
      permissions: [],
      address: null,
      expiresAt: null,
      sessionId: null,
      reason: result.reason,
      error: errors[result.reason],
    }
  const { claims } = result
  const stated = {
    address: claims.sub,
    expiresAt: new Date(claims.exp * 1000).toISOString(),
    sessionId: claims.jti,
  }
  if (!result.valid)
    return { valid: false, permissions: [], ...stated, reason: 'expired' as const, error: errors.expired }
  if (Session.isRevoked({ claims, generation: await generationOf(deps.store, claims.sub) }))
    return { valid: false, permissions: [], ...stated, reason: 'revoked' as const, error: errors.revoked }
  return {
    valid: true,
    permissions: claims.perms,
    ...stated,
    issuedAt: new Date(claims.iat * 1000).toISOString(),
    metadata: claims.meta ?? {},
  }
}

async function generationOf(store: Store, address: Address): Promise<number> {
  return (await store.get<Revocation>(revocations, address))?.value.generation ?? 0
}

/** Moves the address to the next generation and returns it; a first revocation inserts the record. */
async function revoke(store: Store, address: Address, now: Date): Promise<number> {
  const revokedBefore = now.toISOString()
  for (;;) {
    const updated = await store.update<Revocation>(revocations, address, (current) => ({
      generation: current.value.generation + 1,
      revokedBefore,
    }))
    if (updated.ok) return updated.record.value.generation
    const inserted = await store.insert<Revocation>({
      collection: revocations,
      id: address,
      owners: [address],
      value: { generation: 1, revokedBefore },
      createdAt: now,
    })
    if (inserted.ok) return 1
    // Another process inserted the first record meanwhile: update it instead.
  }
}
