import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import {
  buildSIWxSchema,
  type EVMMessageVerifier,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
  type SIWxPayload,
  validateSIWxMessage,
  verifySIWxSignature,
} from '@x402/extensions/sign-in-with-x'
import { type Address, getAddress, isAddress, isAddressEqual } from 'viem'
import * as Catalog from '../../core/Catalog.js'
import type { Refusal } from '../../core/Errors.js'
import type { Target } from '../../core/Module.js'
import * as Price from '../../core/Price.js'
import type { Store } from '../../core/Store.js'
import { describeError, type Logger } from '../log.js'
import type { Scheme } from './scheme.js'

/** Name of the x402 extension, and of the request header that carries the signed message. */
export const signInWithX = SIGN_IN_WITH_X

/** Store collection of granted re-reads: one record per payer and {@link Scope}. */
export const entitlementsCollection = 'siwx_entitlements'

/** Store collection of used sign-in nonces: an insert that finds one taken is a replay, in every process. */
export const noncesCollection = 'siwx_nonces'

/**
 * What one payment entitles its payer to re-read: the same method on the same resource (path and query, sorted), at
 * the same price version (the entry's price when it was paid; a new price starts new entitlements).
 */
export type Scope = {
  /** HTTP method, e.g. `GET`. */
  method: string
  /** Path and sorted query of the resource, e.g. `/api/v1/invoice?id=inv_1`. */
  resource: string
  /** The entry's price when it was paid, e.g. `$0.01`. */
  priceVersion: string
}

/** A sign-in that passed every check but its entitlement and its nonce, which depend on the route. */
export type SignedIn = {
  /** The signer: checksummed for EVM, Base58 for Solana. */
  address: string
  /** The nonce, spent by {@link siwx.ReturnType.spend}. */
  nonce: string
}

/**
 * Sign-in-with-X (CAIP-122) re-access: the challenge each 402 of an opted-in entry carries, the check of a signed
 * `SIGN-IN-WITH-X` header (domain, URI, times, our nonce, the signature: EIP-191, ERC-1271 and ERC-6492 through the
 * settlement chain, Ed25519 for Solana), the entitlements settled payments grant, and single-use nonces, all in the
 * store so every process agrees. A nonce is ours when its second half is our HMAC of its first half, the URI and
 * the times: nothing is stored until it is spent.
 */
export function siwx(parameters: siwx.Parameters): siwx.ReturnType {
  const { store, secret, networks, verifyMessage, challengeSeconds = 300 } = parameters

  const tag = (random: string, info: Pick<SIWxPayload, 'uri' | 'issuedAt' | 'expirationTime'>) =>
    createHmac('sha256', secret)
      .update(JSON.stringify(['sign-in-with-x', random, info.uri, info.issuedAt, info.expirationTime ?? null]))
      .digest('hex')
      .slice(0, 32)

  function isOurs(payload: SIWxPayload): boolean {
    if (!/^[0-9a-f]{64}$/.test(payload.nonce)) return false
    const expected = Buffer.from(tag(payload.nonce.slice(0, 32), payload), 'hex')
    return timingSafeEqual(expected, Buffer.from(payload.nonce.slice(32), 'hex'))
  }

  function refused(reason: Refusal, message: string) {
    return { ok: false as const, reason, message }
  }

  return {
    challenge({ uri, now }) {
      const issuedAt = now.toISOString()
      const expirationTime = new Date(now.getTime() + challengeSeconds * 1000).toISOString()
      const random = randomBytes(16).toString('hex')
      const info = {
        domain: new URL(uri).host,
        uri,
        statement: 'Sign in to re-read what you paid for or own, without paying again.',
        version: '1',
        nonce: random + tag(random, { uri, issuedAt, expirationTime }),
        issuedAt,
        expirationTime,
        resources: [uri],
      }
      const supportedChains = networks.map((chainId) =>
        chainId.startsWith('solana:')
          ? { chainId, type: 'ed25519' as const, signatureScheme: 'siws' as const }
          : { chainId, type: 'eip191' as const },
      )
      return { info, supportedChains, schema: buildSIWxSchema() }
    },

    async verify({ header, uri }) {
      let payload: SIWxPayload
      try {
        payload = parseSIWxHeader(header)
      } catch (error) {
        return refused('malformed_payment', (error as Error).message)
      }
      if (!networks.includes(payload.chainId))
        return refused('wrong_network', `Sign in on one of ${networks.join(', ')}, not ${payload.chainId}.`)
      const validated = await validateSIWxMessage(payload, new URL(uri), { maxAge: challengeSeconds * 1000 })
      if (!validated.isValid)
        return refused(
          validated.invalidReason === 'invalid_siwx_expired' ||
            validated.invalidReason === 'invalid_siwx_issued_at_too_old'
            ? 'expired'
            : validated.invalidReason === 'invalid_siwx_not_yet_valid' ||
                validated.invalidReason === 'invalid_siwx_issued_at_in_future'
              ? 'not_yet_valid'
              : 'challenge_mismatch',
          validated.invalidMessage,
        )
      // The library checks the origin only; a signature is good for the one resource it was challenged for.
      if (payload.uri !== uri)
        return refused('challenge_mismatch', `The message signs in to ${payload.uri}, not ${uri}.`)
      if (!isOurs(payload))
        return refused('challenge_mismatch', 'The nonce, URI or times are not those of a challenge of this gateway.')
      const verified = await verifySIWxSignature(payload, verifyMessage ? { evmVerifier: verifyMessage } : {})
      if (!verified.isValid) return refused('invalid_signature', verified.invalidMessage)
      const address = isAddress(verified.payer) ? getAddress(verified.payer) : verified.payer
      return { ok: true, signedIn: { address, nonce: payload.nonce } }
    },

    async spend({ signedIn, uri, now }) {
      const spent = await store.insert({
        collection: noncesCollection,
        id: signedIn.nonce,
        owners: ownersOf(signedIn.address),
        value: { address: signedIn.address, uri, spentAt: now.toISOString() },
        createdAt: now,
      })
      return spent.ok
    },

    async entitled({ address, scope }) {
      return (await store.get(entitlementsCollection, idOf(address, scope))) !== undefined
    },

    async grant({ address, scope, transaction, now }) {
      await store.insert({
        collection: entitlementsCollection,
        id: idOf(address, scope),
        owners: ownersOf(address),
        value: { address, ...scope, transaction, grantedAt: now.toISOString() },
        createdAt: now,
      })
    },
  }
}

export declare namespace siwx {
  type Parameters = {
    /** Where entitlements and spent nonces are kept, shared by every process. */
    store: Store
    /** HMAC key that makes nonces ours (the MPP challenge secret). */
    secret: string
    /** CAIP-2 chains a signature may name: the settlement chain's `eip155:<id>`, and `solana:<genesis>` ones. */
    networks: readonly string[]
    /** Verifies an EVM message on the settlement chain (viem `verifyMessage`: EOAs, ERC-1271, ERC-6492). @default EOAs only, offline */
    verifyMessage?: EVMMessageVerifier | undefined
    /** How long a challenge can be signed and used, in seconds. @default 300 */
    challengeSeconds?: number | undefined
  }
  type Verified =
    | {
        ok: true
        /** Who signed in. */
        signedIn: SignedIn
      }
    | {
        ok: false
        /** Why the sign-in is refused. */
        reason: Refusal
        /** One sentence for people. */
        message: string
      }
  type ReturnType = {
    /** The `sign-in-with-x` extension of a 402 for the resource at `uri`: a new challenge, valid `challengeSeconds`. */
    challenge: (parameters: { uri: string; now: Date }) => SIWxExtension
    /** Checks a `SIGN-IN-WITH-X` header against the resource at `uri`, short of its entitlement and nonce. */
    verify: (parameters: { header: string; uri: string }) => Promise<Verified>
    /** Spends a sign-in's nonce, atomically: `false` when it was spent already (a replay). */
    spend: (parameters: { signedIn: SignedIn; uri: string; now: Date }) => Promise<boolean>
    /** Whether `address` paid for `scope`. */
    entitled: (parameters: { address: string; scope: Scope }) => Promise<boolean>
    /** Records that `address` paid for `scope` (settled in `transaction`); once per payer and scope. */
    grant: (parameters: { address: string; scope: Scope; transaction: string; now: Date }) => Promise<void>
  }
}

/** The scope of a call: its method (HEAD as GET), path and sorted query, at the price version given. */
export function scopeOf(parameters: { request: Request; priceVersion: string }): Scope {
  const { request, priceVersion } = parameters
  const url = new URL(request.url)
  const query = new URLSearchParams([...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const search = query.size > 0 ? `?${query}` : ''
  return {
    method: request.method === 'HEAD' ? 'GET' : request.method,
    resource: `${url.pathname}${search}`,
    priceVersion,
  }
}

function idOf(address: string, scope: Scope): string {
  return createHash('sha256')
    .update(JSON.stringify([address, scope.method, scope.resource, scope.priceVersion]))
    .digest('hex')
}

function ownersOf(address: string) {
  return isAddress(address) ? [getAddress(address)] : []
}

/**
 * Re-access by signing in (x402 `sign-in-with-x`) as a scheme, for the entries that offer it: every 402 of such an
 * entry carries a challenge, and a request that carries `SIGN-IN-WITH-X` is served unpaid when the signer paid for
 * this very call's scope or owns what it names, and the nonce was never spent. A refused sign-in declines, so a
 * payment beside it still pays; with none, the 402 says why. A settled call of such an entry entitles its payer.
 */
export function signIn(parameters: signIn.Parameters): signIn.ReturnType {
  const { reaccessOf, resourceUrl, logger } = parameters
  const signing = siwx(parameters)

  /** The URI a sign-in for this call must name: the resource's absolute URL with the query as sent. */
  const uriOf = (request: Request) => `${resourceUrl(request)}${new URL(request.url).search}`

  return {
    name: signInWithX,

    challenge: (request, entry, now) =>
      reaccessOf(entry) ? { [signInWithX]: signing.challenge({ uri: uriOf(request), now }) } : undefined,

    carries(request, entry) {
      const owners = reaccessOf(entry)
      const header = request.headers.get(signInWithX)
      return owners && header !== null ? { header, owners } : undefined
    },

    async before({ header, owners }, { request, entry, input }) {
      const uri = uriOf(request)
      const verified = await signing.verify({ header, uri })
      if (!verified.ok) return { declined: { refused: { reason: verified.reason, message: verified.message } } }
      const { address } = verified.signedIn
      const scope = scopeOf({ request, priceVersion: Price.toText(entry.price) })
      const { params = {}, query = {} } = input as { params?: Target['params']; query?: Target['query'] }
      const owns =
        isAddress(address) &&
        (await owners({ params, query })).some((owner) => isAddressEqual(owner as Address, address))
      if (!owns && !(await signing.entitled({ address, scope })))
        return {
          declined: {
            note: `${address} signed in, and neither paid for ${scope.method} ${scope.resource} at ${scope.priceVersion} nor owns it.`,
          },
        }
      if (!(await signing.spend({ signedIn: verified.signedIn, uri, now: new Date() })))
        return {
          declined: {
            refused: { reason: 'replayed', message: 'This sign-in was used already; sign the challenge of a new 402.' },
          },
        }
      return { address }
    },

    // A re-read: nothing to settle, release or take back.
    after: async () => ({ headers: {} }),
    release: async () => {},
    payer: ({ address }) => address as Address,
    holding: () => undefined,

    async entitle(request, entry, payer, transaction) {
      if (!reaccessOf(entry)) return
      const scope = scopeOf({ request, priceVersion: Price.toText(entry.price) })
      await signing.grant({ address: payer, scope, transaction, now: new Date() }).catch((error: unknown) =>
        logger.log('warn', 'reaccess_not_recorded', {
          endpoint: Catalog.key(entry),
          payer,
          transaction,
          error: describeError(error),
        }),
      )
    },
  }
}

export declare namespace signIn {
  /** The owners of what a call names, for an entry re-read by signing in. */
  type Owners = (target: Target) => Promise<readonly string[]>
  type Parameters = siwx.Parameters & {
    /** The owners of what a call to an entry names, for the entries that offer re-access; `undefined` for the others. */
    reaccessOf: (entry: Catalog.Entry) => Owners | undefined
    /** Absolute URL of the requested resource, as offers name it. */
    resourceUrl: (request: Request) => string
    /** Where events go. */
    logger: Logger
  }
  type ReturnType = Scheme<{ header: string; owners: Owners }, { address: string }> & {
    /**
     * Records, for an entry that offers re-access, that the payer of a settled call may re-read it by signing in. The
     * call is paid whatever happens here: a store that fails costs the payer its re-access, never its answer.
     */
    entitle: (request: Request, entry: Catalog.Entry, payer: Address, transaction: string) => Promise<void>
  }
}
