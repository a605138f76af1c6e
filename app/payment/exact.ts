import { Credential } from 'mppx'
import { type Address, getAddress } from 'viem'
import { type RecoverPublicKey, serialize } from '../../core/Authorization.js'
import type * as Catalog from '../../core/Catalog.js'
import {
  IdempotencyConflictError,
  PaymentInProgressError,
  RateLimitedError,
  ValidationError,
} from '../../core/Errors.js'
import * as Ledger from '../../core/Ledger.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { retryAfterSeconds } from '../limits.js'
import type { answers } from './answers.js'
import { decode } from './decode.js'
import * as Idempotency from './idempotency.js'
import { type Call, type Scheme, serving, settlementFailed } from './scheme.js'
import type { Claimed, settlement } from './settlement.js'

/** The message of every replay refusal. */
export const replayed = {
  reason: 'replayed',
  message: 'This payment authorization was already used for another request.',
} as const

/**
 * x402 `exact` on the EVM chain, in each protocol that carries an EIP-3009 authorization (x402 v2, x402 v1, MPP):
 * checked without the chain, then on it (balance, nonce, simulation), then claimed in the ledger within the payer's
 * balance; settled once the handler succeeds, or handed to the call's asynchronous job. A retry (the same
 * authorization, or the same idempotency key) is answered from the ledger: its kept response once settled, 503 while
 * undecided, charged once.
 */
export function exact(parameters: exact.Parameters): Scheme<true, exact.Held> {
  const { termsOf, ledger, settlements, secret, resourceUrl, answers, failures, entitle } = parameters
  const { facilitator, domain, lease } = settlements

  /** A settled call's kept response; its payer's re-access is recorded again, in case the first answer never got it. */
  async function kept(request: Request, held: Ledger.EvmEntry, entry: Catalog.Entry): Promise<Response> {
    await entitle?.(request, entry, held.payer, held.transaction!)
    return answers.stored(request, held)
  }

  /**
   * The answer to a retry of a paid call the ledger already holds: its kept response once settled, 503 while
   * undecided, 402 once failed. `retake` when the claim was held by a dead process and is now released.
   */
  async function replay(call: Call, entry: Ledger.Entry): Promise<Response | 'retake'> {
    const { request } = call
    const held = Ledger.asEvm(entry)
    const key = { payer: held.payer, nonce: held.nonce }
    switch (held.state) {
      case 'settled':
        return kept(request, held, call.entry)
      case 'settling': {
        const onChain = await facilitator
          .status({ ...key, domain, ...(held.transaction ? { transaction: held.transaction } : {}) })
          .catch(() => undefined)
        if (onChain?.state === 'settled' && onChain.transaction) {
          const confirmed = await ledger
            .apply(key, { type: 'confirmed', transaction: onChain.transaction })
            .catch(() => ledger.get(key))
          if (confirmed?.state === 'settled') return kept(request, Ledger.asEvm(confirmed), call.entry)
        }
        // Still undecided: whoever holds it is on it, or nobody is and this process finishes it. Sending the same
        // authorization again is safe: the token takes each nonce once, so at most one transfer lands.
        if (held.lease !== undefined && (await lease.isLive(held.lease)))
          return answers.pending(request, held, held.transaction)
        const settled = await settlements.finish(held)
        if (settled?.ok) return kept(request, Ledger.asEvm((await ledger.get(key))!), call.entry)
        if (!settled || settled.reason === 'settlement_pending')
          return answers.pending(request, held, settled?.submitted ?? held.transaction)
        return call.refuse({ reason: 'settlement_failed', message: settled.message })
      }
      case 'claimed':
        if (Ledger.isDeferred(held))
          return call.problem(
            new PaymentInProgressError(
              'This payment holds an asynchronous job; it is settled when the job succeeds. Poll the job for its status.',
            ),
            { 'Retry-After': '5' },
          )
        if (held.lease !== undefined && (await lease.isLive(held.lease))) return serving(call)
        await settlements.release(key, 'its process died before answering').catch(() => undefined)
        return 'retake'
      case 'failed':
        return settlementFailed(call, held.reason)
      case 'released':
        return 'retake'
    }
  }

  return {
    name: 'exact',

    carries({ headers }) {
      const authorization = headers.get('authorization')
      const mpp = authorization !== null && Credential.extractPaymentScheme(authorization) !== null
      return headers.has('payment-signature') || headers.has('x-payment') || mpp ? true : undefined
    },

    async before(_, call) {
      const { request, entry, amount, fingerprint } = call
      const now = new Date()
      const offered = termsOf(entry)
      const decoded = await decode({
        headers: request.headers,
        terms: offered,
        amount,
        resource: resourceUrl(request),
        method: entry.method,
        secret,
        now,
        recoverPublicKey: parameters.recoverPublicKey,
      })
      if (!decoded.ok) return call.refuse(decoded)
      if (!decoded.payment) return call.refuse()
      const { protocol, authorization, challengeId } = decoded.payment
      const payer = getAddress(authorization.from)
      // A window longer than offered would let a crashed settlement stay undecided for that long.
      if (authorization.validBefore > BigInt(Math.floor(now.getTime() / 1000) + offered.maxTimeoutSeconds + 60))
        return call.refuse({
          reason: 'malformed_payment',
          message: `validBefore is more than maxTimeoutSeconds (${offered.maxTimeoutSeconds}) ahead.`,
        })
      const idempotency = Idempotency.keyOf({ headers: request.headers, payment: decoded.payment })
      if (!idempotency.ok)
        return call.problem(new ValidationError({ field: idempotency.field, message: idempotency.message }))
      const key = { payer, nonce: authorization.nonce }

      const duplicate = async (prior: Ledger.Entry) => {
        if (prior.fingerprint !== fingerprint)
          return call.problem(
            new IdempotencyConflictError(`Idempotency key ${idempotency.key} was used for another request.`),
          )
        return replay(call, prior)
      }
      if (idempotency.key !== undefined) {
        const prior = await ledger.find({ payer, idempotencyKey: idempotency.key })
        const answer = prior && (await duplicate(prior))
        if (answer && answer !== 'retake') return answer
      }

      // A client whose payments keep failing on chain (unfunded keys) is refused before the chain is read again.
      const blockedUntil = failures?.blockedUntil(request)
      if (blockedUntil !== undefined) {
        const retryAfter = retryAfterSeconds(blockedUntil, Date.now())
        const error = new RateLimitedError({
          retryAfterSeconds: retryAfter,
          what: 'the payment check with payments that failed it (unfunded keys, used nonces) from this client',
        })
        return call.problem(error, { 'retry-after': String(retryAfter) })
      }
      // Before the chain is read: whatever settles from here on may be missing from the balance it answers.
      const balanceAt = new Date()
      const verified = await facilitator.verify({ authorization, domain })
      if (!verified.ok) {
        // A retry of a call the ledger holds (its nonce now used on chain, say) is answered from the ledger; a new
        // payment has no entry, and its claim below finds a retry of a call still in progress.
        const existing = await ledger.get(key)
        if (!existing || existing.state === 'released') {
          await failures?.record(request)
          return call.refuse(verified)
        }
        if (existing.fingerprint !== fingerprint) return call.refuse(replayed)
        const answer = await replay(call, existing)
        return answer === 'retake' ? call.refuse(verified) : answer
      }
      // A retry of a call in progress finds its entry here; one its dead process left is released, and claimed again.
      for (let attempt = 1; ; attempt++) {
        const claim = await ledger.claim({
          payer,
          nonce: authorization.nonce,
          amount,
          endpoint: call.endpoint,
          protocol,
          authorization: serialize(authorization),
          fingerprint,
          idempotencyKey: idempotency.key,
          lease: lease.id,
          balance: verified.balance,
          balanceAt,
          claimedAt: now,
        })
        if (claim.ok) break
        if (claim.reason === 'insufficient_funds')
          return call.refuse({
            reason: 'insufficient_funds',
            message: `${payer} holds ${verified.balance} atomic units; its calls in progress take ${claim.outstanding}, and this one needs ${amount} more.`,
          })
        if (claim.existing.fingerprint !== fingerprint) return call.refuse(replayed)
        const answer =
          claim.reason === 'duplicate' ? await duplicate(claim.existing) : await replay(call, claim.existing)
        if (answer !== 'retake') return answer
        // Lost a race twice over (the holder died meanwhile): the caller retries and finds it free.
        if (attempt === 2) return call.problem(new PaymentInProgressError('Retry shortly.'), { 'Retry-After': '1' })
      }
      return { claimed: { key, protocol, authorization, endpoint: call.endpoint, challengeId }, amount }
    },

    async after(held, handled, call) {
      const { claimed } = held
      const { key } = claimed
      if (!handled.ok) {
        await settlements.release(key, `handler answered ${handled.status}`)
        return { headers: {} }
      }
      if (held.job !== undefined) {
        await settlements.move(key, { type: 'defer', job: held.job })
        return { headers: {} }
      }
      await settlements.move(key, { type: 'settle', response: await handled.keep() })
      const settled = await settlements.settle(claimed)
      if (settled.ok) {
        await entitle?.(call.request, call.entry, key.payer, settled.transaction)
        return {
          headers: await answers.settled(call.request, {
            protocol: claimed.protocol,
            transaction: settled.transaction,
            payer: key.payer,
            ...(claimed.challengeId ? { challengeId: claimed.challengeId } : {}),
          }),
        }
      }
      if (settled.reason === 'settlement_pending')
        return {
          withheld: answers.pending(call.request, { protocol: claimed.protocol, payer: key.payer }, settled.submitted),
        }
      return { withheld: call.refuse({ reason: 'settlement_failed', message: settled.message }) }
    },

    release: (held, reason) => settlements.release(held.claimed.key, reason),
    payer: (held) => held.claimed.key.payer,
    holding: ({ claimed: { key } }) => ({ type: 'ledger', payer: key.payer, nonce: key.nonce }),
    record: async ({ claimed: { key } }, effect) => void (await ledger.apply(key, { type: 'effect', effect })),

    defer(held, job) {
      held.job = job
      return { ...held.claimed.key, amount: held.amount }
    },
  }
}

export declare namespace exact {
  /** A claimed authorization, between its claim and its settlement. */
  type Held = {
    /** The claim, as the settlement service settles it. */
    claimed: Claimed
    /** The call's price, in atomic units. */
    amount: bigint
    /** The asynchronous job the claim is handed to once the handler answers, when its handler started one. */
    job?: string | undefined
  }
  type Parameters = {
    /** The terms of an entry's offer: the validity window is the entry's own where it has one. */
    termsOf: (entry: Catalog.Entry) => PaymentTerms
    /** Where claims are recorded. */
    ledger: Ledger.Ledger
    /** Settles, releases and finishes claims, through the facilitator that verifies them on chain. */
    settlements: settlement.ReturnType
    /** Key that binds MPP challenge ids (HMAC). */
    secret: string
    /** secp256k1 public-key recovery for payment signatures (native where installed). @default the pure-JS one */
    recoverPublicKey?: RecoverPublicKey | undefined
    /** Absolute URL of the requested resource, as offers name it. */
    resourceUrl: (request: Request) => string
    /** How a decided payment is answered: its receipt, its kept response, 503 while undecided. */
    answers: answers.ReturnType
    /** Records that the payer of a settled call may re-read it by signing in, for the entries that offer it. */
    entitle?:
      | ((request: Request, entry: Catalog.Entry, payer: Address, transaction: string) => Promise<void>)
      | undefined
    /** The per-client limit on payments that fail their on-chain check; absent, none. */
    failures?:
      | {
          /** Epoch ms until which the request's client is refused before the chain is read, if it is now. */
          blockedUntil: (request: Request) => number | undefined
          /** Counts a failed on-chain check of a payment of the request's client. */
          record: (request: Request) => Promise<void>
        }
      | undefined
  }
}
