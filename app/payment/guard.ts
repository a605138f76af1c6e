import { type Address, getAddress } from 'viem'
import type { RecoverPublicKey, Signed } from '../../core/Authorization.js'
import * as Catalog from '../../core/Catalog.js'
import type { Facilitator, Refusal } from '../../core/Facilitator.js'
import type { Ledger, Protocol } from '../../core/Ledger.js'
import * as Price from '../../core/Price.js'
import type { PaymentTerms } from '../discovery/terms.js'
import type { Logger } from '../log.js'
import { decode } from './decode.js'
import { offer } from './offer.js'
import { receipt } from './receipt.js'
import { domainOf } from './x402.js'

/** A payment claimed for one request, waiting for the handler's outcome. */
type Claimed = {
  /** Protocol it arrived in. */
  protocol: Protocol
  /** The signed authorization. */
  authorization: Signed
  /** Catalog entry paid for. */
  entry: Catalog.Entry
  /** MPP challenge the credential answered, echoed in the receipt. */
  challengeId: string | undefined
}

/** The message of every replay refusal. */
const replayed = { reason: 'replayed', message: 'This payment authorization was already used.' } as const

/**
 * The paid-call flow around a handler: offer (402) -> decode and check -> verify on chain -> claim in the
 * ledger -> handler -> settle only on success -> receipt. A failed handler releases the claim; a failed
 * settlement withholds the resource.
 */
export function guard(parameters: guard.Parameters): guard.ReturnType {
  const { terms, ledger, facilitator, secret, logger } = parameters
  const claims = new WeakMap<Request, Claimed>()
  const domain = domainOf(terms)

  function refuse(request: Request, entry: Catalog.Entry, refusal?: { reason: Refusal; message: string }): Response {
    const { status, headers, body } = offer({
      terms,
      amount: amountOf(entry),
      resource: parameters.resourceUrl(request),
      description: entry.purpose,
      mimeType: 'application/json',
      method: entry.method,
      secret,
      now: new Date(),
      ...(refusal ? { refusal } : {}),
    })
    // One body serves both readers: RFC 9457 fields for people and tools, x402 v1 fields for v1 clients.
    const problem = {
      type: `https://errors.agent-gateway.dev/${refusal?.reason ?? 'payment_required'}`,
      title: refusal ? 'Payment refused' : 'Payment required',
      status,
      detail: refusal?.message ?? `${Catalog.key(entry)} costs ${Price.toText(entry.price)} in USDC; pay with x402 or MPP.`,
      code: refusal?.reason ?? 'payment_required',
      instance: new URL(request.url).pathname,
      ...body,
    }
    return new Response(JSON.stringify(problem), {
      status,
      headers: { ...headers, 'content-type': 'application/problem+json' },
    })
  }

  function keyOf(claimed: Claimed) {
    return { payer: getAddress(claimed.authorization.from), nonce: claimed.authorization.nonce }
  }

  return {
    async before(request, entry) {
      const amount = amountOf(entry)
      const now = new Date()
      const decoded = await decode({
        headers: request.headers,
        terms,
        amount,
        resource: parameters.resourceUrl(request),
        method: entry.method,
        secret,
        now,
        recoverPublicKey: parameters.recoverPublicKey,
      })
      if (!decoded.ok) return refuse(request, entry, decoded)
      if (!decoded.payment) return refuse(request, entry)
      const { protocol, authorization, challengeId } = decoded.payment
      const payer = getAddress(authorization.from)
      // A window longer than offered would let a crashed settlement stay undecided for that long.
      if (authorization.validBefore > BigInt(Math.floor(now.getTime() / 1000) + terms.maxTimeoutSeconds + 60))
        return refuse(request, entry, {
          reason: 'malformed_payment',
          message: `validBefore is more than maxTimeoutSeconds (${terms.maxTimeoutSeconds}) ahead.`,
        })

      // A known authorization is refused before the chain is asked; the claim below is what makes it atomic.
      const existing = await ledger.get({ payer, nonce: authorization.nonce })
      if (existing && existing.state !== 'released') return refuse(request, entry, replayed)
      const verified = await facilitator.verify({ authorization, domain })
      if (!verified.ok) return refuse(request, entry, verified)

      const claim = await ledger.claim({
        payer,
        nonce: authorization.nonce,
        amount,
        endpoint: Catalog.key(entry),
        protocol,
        authorization: serialize(authorization),
        claimedAt: now,
      })
      if (!claim.ok) return refuse(request, entry, replayed)
      claims.set(request, { protocol, authorization, entry, challengeId })
      return undefined
    },

    async after(request, status) {
      const claimed = claims.get(request)
      if (!claimed) return { headers: {} }
      claims.delete(request)
      const key = keyOf(claimed)
      if (status >= 400) {
        await ledger.apply(key, { type: 'release', reason: `handler answered ${status}` })
        return { headers: {} }
      }
      await ledger.apply(key, { type: 'settle' })
      const settled = await facilitator.settle({ authorization: claimed.authorization, domain })
      if (!settled.ok) {
        await ledger.apply(key, { type: 'fail', reason: `${settled.reason}: ${settled.message}` })
        logger.log('warn', 'settlement_failed', { endpoint: Catalog.key(claimed.entry), reason: settled.reason })
        return { withheld: refuse(request, claimed.entry, { reason: 'settlement_failed', message: settled.message }) }
      }
      await ledger.apply(key, { type: 'confirmed', transaction: settled.transaction })
      logger.log('info', 'payment_settled', {
        endpoint: Catalog.key(claimed.entry),
        payer: key.payer,
        protocol: claimed.protocol,
        transaction: settled.transaction,
      })
      return {
        headers: receipt({
          protocol: claimed.protocol,
          transaction: settled.transaction,
          network: terms.network,
          payer: key.payer,
          ...(claimed.challengeId ? { challengeId: claimed.challengeId } : {}),
          now: new Date(),
        }),
      }
    },

    async release(request, reason) {
      const claimed = claims.get(request)
      if (!claimed) return
      claims.delete(request)
      await ledger.apply(keyOf(claimed), { type: 'release', reason })
    },

    payer(request) {
      const claimed = claims.get(request)
      if (!claimed) throw new Error('No verified payer on this request: the route is not behind the payment guard.')
      return getAddress(claimed.authorization.from)
    },
  }
}

export declare namespace guard {
  type Parameters = {
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** Where claims are recorded. */
    ledger: Ledger
    /** Verifies on chain and settles. */
    facilitator: Facilitator
    /** Key that binds MPP challenge ids (HMAC). */
    secret: string
    /** secp256k1 public-key recovery for payment signatures (native where installed). @default the pure-JS one */
    recoverPublicKey?: RecoverPublicKey | undefined
    /** Absolute URL of the requested resource, as offers name it. */
    resourceUrl: (request: Request) => string
    /** Where events go. */
    logger: Logger
  }
  type ReturnType = {
    /** Before the handler: a 402 response to send, or `undefined` once the payment is claimed. */
    before: (request: Request, entry: Catalog.Entry) => Promise<Response | undefined>
    /** After the handler: settles on success (headers to add) or withholds the resource; releases on failure. */
    after: (request: Request, status: number) => Promise<{ headers: Record<string, string> } | { withheld: Response }>
    /** Releases the claim of a request whose handler threw. */
    release: (request: Request, reason: string) => Promise<void>
    /** The verified payer of a paid request: the caller. */
    payer: (request: Request) => Address
  }
}

/** The atomic amount an entry charges; entries without a fixed price are never mounted behind the guard. */
export function amountOf(entry: Catalog.Entry): bigint {
  if (entry.price.type !== 'fixed') throw new Error(`${Catalog.key(entry)} has no fixed price to charge.`)
  return Price.toAtomic(entry.price.amount)
}

/** The authorization as stored in the ledger (bigints as decimal strings). */
export function serialize(authorization: Signed): string {
  return JSON.stringify(authorization, (_, value) => (typeof value === 'bigint' ? value.toString() : value))
}

/** Reads back an authorization stored by {@link serialize}. */
export function deserialize(text: string): Signed {
  const parsed = JSON.parse(text) as Record<string, string>
  return {
    from: parsed.from as Address,
    to: parsed.to as Address,
    value: BigInt(parsed.value!),
    validAfter: BigInt(parsed.validAfter!),
    validBefore: BigInt(parsed.validBefore!),
    nonce: parsed.nonce as Signed['nonce'],
    signature: parsed.signature as Signed['signature'],
  }
}
