import { hmac } from '@noble/hashes/hmac'
import { sha256 } from '@noble/hashes/sha2'
import type { Address } from 'viem'
import { ConfigError } from './Errors.js'

/**
 * Session tokens: compact JWS (RFC 7515) with HS256 over base64url JSON header and claims, signed with a server
 * secret. Verification needs only the secret (no table of tokens); revocation is a per-address generation the
 * verifier compares with the token's `gen` claim.
 */

/**
 * What a session lets its holder do for the address. The gateway itself authorizes by payment; these names are
 * for the systems the holder presents the token to, which learn them from `GET /api/v1/auth/verify`.
 *
 * - `read`: read the address's records (invoices, escrows, logs, audit entries).
 * - `write`: create and change records for the address (invoices, logs, audit entries).
 * - `pay`: prepare payments and transactions for the address to sign (batches, escrow funding and release).
 * - `admin`: everything above, and manage the address's sessions.
 */
export const ownPermissions = ['read', 'write', 'pay', 'admin'] as const

/**
 * The original gateway's permissions (`<family>:<verb>` scopes), granted as scopes of the same names: like ours, they
 * are for the systems the holder presents the token to.
 */
export const originalPermissions = [
  'batch:execute',
  'batch:estimate',
  'swap:execute',
  'swap:quote',
  'bridge:quote',
  'payroll:execute',
  'invoice:create',
  'invoice:read',
  'escrow:create',
  'escrow:manage',
  'analytics:read',
  'oracle:read',
  'notify:send',
  'webhook:manage',
  'cron:manage',
  'storage:write',
  'storage:read',
  'rpc:call',
  'logs:write',
  'logs:read',
  'kyc:verify',
  'audit:read',
  'tax:read',
] as const

/** Every permission a session may carry: ours, then the original gateway's scopes. */
export const permissions = [...ownPermissions, ...originalPermissions] as const

/** One permission of a session. */
export type Permission = (typeof permissions)[number]

/** What `*` in a request grants, as the original gateway expands it: every one of its scopes. */
export const everyPermission = '*'

/** Permissions of a session that names none: `*`, as the original gateway defaults. */
export const defaultPermissions = originalPermissions

/** Shortest lifetime of a session, in seconds. */
export const minTtlSeconds = 60

/** Longest lifetime of a session, in seconds (one day). */
export const maxTtlSeconds = 86_400

/** Lifetime of a session that names none, in seconds. */
export const defaultTtlSeconds = 3_600

/** Shortest accepted secret, in UTF-8 bytes: HS256 keys shorter than the hash output weaken it (RFC 7518 3.2). */
export const minSecretBytes = 32

/** `iss` of every token this gateway signs. */
export const issuer = 'agent-pay-gateway'

/** The signed claims of a session token. */
export type Claims = {
  /** Issuer; always {@link issuer}. */
  iss: string
  /** Checksummed address the session is for. */
  sub: Address
  /** Granted permissions, without duplicates. */
  perms: Permission[]
  /** Issued at, in seconds since the epoch. */
  iat: number
  /** Expires at, in seconds since the epoch (exclusive). */
  exp: number
  /** Unique token id. */
  jti: string
  /** Revocation generation of the address when the token was issued; a later generation revokes it. */
  gen: number
  /** The requester's own JSON, signed into the token and shown by verification. */
  meta?: { [key: string]: unknown } | undefined
}

/** Why a token is not valid. Reasons never change once published. */
export type Reason = 'malformed' | 'tampered' | 'expired' | 'revoked'

/** Fails fast, at boot, when the secret is too short to sign with. Never prints the secret. */
export function assertSecret(secret: string): void {
  if (new TextEncoder().encode(secret).length < minSecretBytes)
    throw new ConfigError(
      `The session secret must be at least ${minSecretBytes} bytes; pass a longer \`secret\` (for example 32 random bytes, hex encoded).`,
    )
}

/** Signs claims into a compact JWS: `base64url(header).base64url(claims).base64url(HMAC-SHA256)`. */
export function sign(parameters: sign.Parameters): string {
  const { claims, secret } = parameters
  assertSecret(secret)
  const signingInput = `${encodeJson(header)}.${encodeJson(claims)}`
  return `${signingInput}.${base64UrlEncode(mac(secret, signingInput))}`
}

export declare namespace sign {
  type Parameters = {
    /** What the token states. */
    claims: Claims
    /** Server secret; never logged or echoed. */
    secret: string
  }
}

/**
 * Checks a token: its form (`malformed`), its signature in constant time (`tampered`), then its expiry
 * (`expired`, with the claims, which are authentic). Revocation needs state and is {@link isRevoked}.
 */
export function verify(parameters: verify.Parameters): verify.ReturnType {
  const { token, secret, now } = parameters
  assertSecret(secret)
  const parts = token.split('.')
  if (parts.length !== 3) return { valid: false, reason: 'malformed' }
  const [encodedHeader, encodedClaims, encodedSignature] = parts as [string, string, string]
  const signature = base64UrlDecode(encodedSignature)
  if (signature === undefined || base64UrlDecode(encodedClaims) === undefined || !isHeader(decodeJson(encodedHeader)))
    return { valid: false, reason: 'malformed' }
  // Any change to header or claims that still decodes lands here, so an altered token reads as tampered.
  if (!equal(signature, mac(secret, `${encodedHeader}.${encodedClaims}`))) return { valid: false, reason: 'tampered' }
  // Authentic from here on; a shape we would not sign means another issuer shares the secret.
  const decodedClaims = decodeJson(encodedClaims)
  if (!isClaims(decodedClaims)) return { valid: false, reason: 'malformed' }
  if (now.getTime() >= decodedClaims.exp * 1000) return { valid: false, reason: 'expired', claims: decodedClaims }
  return { valid: true, claims: decodedClaims }
}

export declare namespace verify {
  type Parameters = {
    /** The compact JWS as presented. */
    token: string
    /** Server secret; never logged or echoed. */
    secret: string
    /** The current time. */
    now: Date
  }
  type ReturnType =
    | { valid: true; claims: Claims }
    | { valid: false; reason: 'malformed' | 'tampered' }
    | {
        valid: false
        reason: 'expired'
        /** The authentic claims of the expired token. */
        claims: Claims
      }
}

/** Whether a later revocation (a higher generation of the address) has revoked the token. */
export function isRevoked(parameters: isRevoked.Parameters): boolean {
  return parameters.claims.gen < parameters.generation
}

export declare namespace isRevoked {
  type Parameters = {
    /** The token's authentic claims. */
    claims: Claims
    /** The address's current revocation generation; 0 when it never revoked. */
    generation: number
  }
}

/** The one header this gateway signs and accepts (no `alg` negotiation, so `none` and RS/HS confusion cannot occur). */
const header = { alg: 'HS256', typ: 'JWT' } as const

function isHeader(value: unknown): boolean {
  if (!isObject(value)) return false
  return value.alg === header.alg && (value.typ === undefined || value.typ === header.typ)
}

function isClaims(value: unknown): value is Claims {
  if (!isObject(value)) return false
  const { iss, sub, perms, iat, exp, jti, gen } = value
  return (
    iss === issuer &&
    typeof sub === 'string' &&
    /^0x[0-9a-fA-F]{40}$/.test(sub) &&
    Array.isArray(perms) &&
    perms.every((permission) => (permissions as readonly unknown[]).includes(permission)) &&
    new Set(perms).size === perms.length &&
    Number.isSafeInteger(iat) &&
    Number.isSafeInteger(exp) &&
    (exp as number) > (iat as number) &&
    typeof jti === 'string' &&
    jti.length > 0 &&
    Number.isSafeInteger(gen) &&
    (gen as number) >= 0 &&
    (value.meta === undefined || isObject(value.meta))
  )
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function mac(secret: string, signingInput: string): Uint8Array {
  const encoder = new TextEncoder()
  return hmac(sha256, encoder.encode(secret), encoder.encode(signingInput))
}

/** Compares in time independent of where the bytes differ, so the signature cannot be guessed byte by byte. */
function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!
  return difference === 0
}

function encodeJson(value: unknown): string {
  return base64UrlEncode(new TextEncoder().encode(JSON.stringify(value)))
}

function decodeJson(text: string): unknown {
  const bytes = base64UrlDecode(text)
  if (bytes === undefined) return undefined
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    return undefined
  }
}

function base64UrlEncode(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/** Decodes unpadded base64url; undefined unless the text is the canonical encoding of its bytes (no malleability). */
function base64UrlDecode(text: string): Uint8Array | undefined {
  if (text.length === 0 || !/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return undefined
  const binary = atob(
    text
      .replaceAll('-', '+')
      .replaceAll('_', '/')
      .padEnd(Math.ceil(text.length / 4) * 4, '='),
  )
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0))
  return base64UrlEncode(bytes) === text ? bytes : undefined
}
