import { encodePaymentResponseHeader } from '@x402/core/http'
import { type Address, getAddress, type Hash } from 'viem'
import { type RecoverPublicKey, serialize } from '../../core/Authorization.js'
import * as Catalog from '../../core/Catalog.js'
import {
  type BaseError,
  IdempotencyConflictError,
  InvalidTransitionError,
  PaymentInProgressError,
  PaymentRefusedError,
  PaymentRequiredError,
  type Refusal,
  ResponseNotRetainedError,
  SettlementPendingError,
  ValidationError,
} from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import type { Facilitator } from '../../core/Facilitator.js'
import type { Protocol } from '../../core/Ledger.js'
import * as Ledger from '../../core/Ledger.js'
import { type PaymentTerms, toDomain } from '../../core/PaymentTerms.js'
import * as Price from '../../core/Price.js'
import type { Store } from '../../core/Store.js'
import type { Logger } from '../log.js'
import * as Problem from '../problem.js'
import * as RequestId from '../request-id.js'
import type { Held as ChannelHeld, channels as Channels } from './channel.js'
import { decode } from './decode.js'
import * as Effects from './effects.js'
import * as Idempotency from './idempotency.js'
import { offer } from './offer.js'
import { receipt } from './receipt.js'
import { type Claimed, settlement } from './settlement.js'
import { v1NetworkOf } from './x402.js'

/** A catalog entry with the exact amount one call to it costs. */
type Priced = {
  /** The entry called. */
  entry: Catalog.Entry
  /** The amount quoted for this call, in atomic units. */
  amount: bigint
}

/** The message of every replay refusal. */
const replayed = {
  reason: 'replayed',
  message: 'This payment authorization was already used for another request.',
} as const

/**
 * The paid-call flow around a handler: offer (402) -> decode and check -> verify on chain -> claim in the ledger,
 * within the payer's balance -> handler (its writes journaled) -> settle only on success -> receipt. A failed
 * handler releases the claim and undoes its writes; a failed settlement withholds the resource and undoes them.
 * A settlement whose outcome is unknown is never reported as nothing charged: the caller gets 503
 * `settlement_pending`, and a retry of the same request (same authorization, or same idempotency key) gets the
 * kept response once the chain has decided, charged once.
 */
export function guard(parameters: guard.Parameters): guard.ReturnType {
  const {
    terms,
    ledger,
    facilitator,
    secret,
    logger,
    lease,
    store,
    events,
    ruleOf = () => undefined,
    windowOf = () => undefined,
    settlementTimeoutMs = 15_000,
    responseLimitBytes = 256 * 1024,
    channels,
  } = parameters
  const claims = new WeakMap<Request, { claimed: Claimed; priced: Priced }>()
  // Calls whose handler started an asynchronous job: their claim is handed to the job instead of settled.
  const deferrals = new WeakMap<Request, string>()
  /** The terms of an entry's offers: a longer validity window for entries settled when their job ends. */
  const termsOf = (entry: Catalog.Entry): PaymentTerms => {
    const window = windowOf(entry)
    return window === undefined ? terms : { ...terms, maxTimeoutSeconds: window }
  }
  // Calls paid over a payment channel (`batch-settlement`): their reservation, between `before` and `after`.
  const channelCalls = new WeakMap<Request, ChannelHeld>()
  const scopes = new WeakMap<Request, Effects.Scope>()
  const domain = toDomain(terms)
  const settlements = settlement({
    ledger,
    facilitator,
    domain,
    lease,
    store,
    events,
    logger,
    timeoutMs: settlementTimeoutMs,
  })

  /** The 402 of a call: the offer of its exact amount, and why a payment that came with it was refused, if one did. */
  function refuse(request: Request, priced: Priced, refusal?: { reason: Refusal; message: string }): Response {
    const { entry, amount } = priced
    // Metrics count this event: 402s by reason.
    logger.log('debug', 'payment_refused', {
      endpoint: Catalog.key(entry),
      reason: refusal?.reason ?? 'payment_required',
    })
    const { headers, body } = offer({
      terms: termsOf(entry),
      amount,
      resource: parameters.resourceUrl(request),
      description: entry.purpose,
      mimeType: 'application/json',
      method: entry.method,
      secret,
      now: new Date(),
      ...(refusal ? { refusal } : {}),
      ...(channels ? { also: [channels.accept(amount)] } : {}),
    })
    // One body serves both readers: RFC 9457 fields for people and tools, x402 v1 fields (the details) for v1 clients.
    const error = refusal
      ? new PaymentRefusedError(refusal, { details: body })
      : new PaymentRequiredError(
          `${Catalog.key(entry)} costs $${Price.fromAtomic(amount)} in USDC; pay with x402 or MPP.`,
          { details: body },
        )
    return problem(request, error, headers)
  }

  function problem(request: Request, error: BaseError, headers: Record<string, string> = {}): Response {
    return Problem.toResponse(Problem.fromError(error, new URL(request.url).pathname, RequestId.of(request)), headers)
  }

  /** 503 while the chain has not decided: the hash when known, and x402's own `settlement_pending` response. */
  function pending(
    request: Request,
    paid: { protocol: Protocol; payer: Address },
    transaction: Hash | undefined,
  ): Response {
    const settleResponse = {
      success: false,
      errorReason: 'settlement_pending',
      transaction: transaction ?? '',
      network: terms.network,
      payer: paid.payer,
    }
    const header: Record<string, string> =
      paid.protocol === 'x402-v2'
        ? { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settleResponse) }
        : paid.protocol === 'x402-v1'
          ? {
              'X-PAYMENT-RESPONSE': encodePaymentResponseHeader({
                ...settleResponse,
                network: v1NetworkOf(terms.network) ?? terms.network,
              } as never),
            }
          : {}
    const error = new SettlementPendingError(
      'The payment was sent to the chain and its outcome is not known yet, so it may be charged. Retry this same request ' +
        'with the same payment (or the same idempotency key) after Retry-After seconds: you get the response, charged once.',
      transaction ? { details: { transaction } } : {},
    )
    return problem(request, error, { 'Retry-After': '5', ...header })
  }

  /** The kept response of a settled call with its receipt; 410 when it was not kept. */
  function stored(request: Request, entry: Ledger.Entry): Response {
    const headers = receipt({
      protocol: entry.protocol,
      transaction: entry.transaction!,
      network: terms.network,
      payer: entry.payer,
      now: new Date(),
    })
    if (!entry.response)
      return problem(
        request,
        new ResponseNotRetainedError(
          `This call was paid (transaction ${entry.transaction}) and answered, but its response was streamed, too large or past retention.`,
          { details: { transaction: entry.transaction } },
        ),
        headers,
      )
    const { status, contentType, body } = entry.response
    return new Response(Buffer.from(body, 'base64'), { status, headers: { ...headers, 'content-type': contentType } })
  }

  /**
   * The answer to a retry of a paid call the ledger already holds: its kept response once settled, 503 while
   * undecided, 402 once failed. `retake` when the claim was held by a dead process and is now released.
   */
  async function replay(request: Request, held: Ledger.Entry, priced: Priced): Promise<Response | 'retake'> {
    const key = { payer: held.payer, nonce: held.nonce }
    switch (held.state) {
      case 'settled':
        return stored(request, held)
      case 'settling': {
        const onChain = await facilitator
          .status({ ...key, domain, ...(held.transaction ? { transaction: held.transaction } : {}) })
          .catch(() => undefined)
        if (onChain?.state === 'settled' && onChain.transaction) {
          const confirmed = await ledger
            .apply(key, { type: 'confirmed', transaction: onChain.transaction })
            .catch(() => ledger.get(key))
          if (confirmed?.state === 'settled') return stored(request, confirmed)
        }
        // Still undecided: whoever holds it is on it, or nobody is and this process finishes it. Sending the same
        // authorization again is safe: the token takes each nonce once, so at most one transfer lands.
        if (held.lease !== undefined && (await lease.isLive(held.lease)))
          return pending(request, held, held.transaction)
        const settled = await settlements.finish(held)
        if (settled?.ok) return stored(request, (await ledger.get(key))!)
        if (!settled || settled.reason === 'settlement_pending')
          return pending(request, held, settled?.submitted ?? held.transaction)
        return refuse(request, priced, { reason: 'settlement_failed', message: settled.message })
      }
      case 'claimed':
        if (Ledger.isDeferred(held))
          return problem(
            request,
            new PaymentInProgressError(
              'This payment holds an asynchronous job; it is settled when the job succeeds. Poll the job for its status.',
            ),
            { 'Retry-After': '5' },
          )
        if (held.lease !== undefined && (await lease.isLive(held.lease)))
          return problem(
            request,
            new PaymentInProgressError('This paid call is being served right now; retry shortly to get its answer.'),
            { 'Retry-After': '1' },
          )
        await release(key, 'its process died before answering').catch(() => undefined)
        return 'retake'
      case 'failed':
        return refuse(request, priced, {
          reason: 'settlement_failed',
          message: held.reason ?? 'The settlement failed; nothing was charged.',
        })
      case 'released':
        return 'retake'
    }
  }

  /** Releases a claim and takes back the writes of its call. */
  /**
   * Applies the guard's own move to a claim. The ledger refusing it is a fault of the gateway, not a conflict of the
   * caller's: it becomes a plain fault (500), never the 409 an `InvalidTransitionError` would be at the edge.
   */
  async function move(key: Claimed['key'], event: Ledger.Event): Promise<Ledger.Entry> {
    try {
      return await ledger.apply(key, event)
    } catch (error) {
      throw error instanceof InvalidTransitionError
        ? new Error(`The payment ledger refused ${event.type}.`, { cause: error })
        : error
    }
  }

  async function release(key: Claimed['key'], reason: string): Promise<void> {
    const released = await move(key, { type: 'release', reason })
    await takeBack(released)
  }

  const takeBack = (entry: Ledger.Entry) => Effects.takeBack({ store, entry, logger })

  /** The response as the ledger keeps it for retries; `undefined` for streams and bodies over the limit. */
  async function keep(response: unknown, status: number): Promise<Ledger.StoredResponse | undefined> {
    let contentType: string
    let bytes: Uint8Array
    if (response instanceof Response) {
      contentType = response.headers.get('content-type') ?? 'application/octet-stream'
      if (
        contentType.includes('text/event-stream') ||
        Number(response.headers.get('content-length') ?? 0) > responseLimitBytes
      )
        return undefined
      bytes = new Uint8Array(await response.clone().arrayBuffer())
    } else if (typeof response === 'string') {
      contentType = 'text/plain;charset=utf-8'
      bytes = new TextEncoder().encode(response)
    } else {
      contentType = 'application/json'
      bytes = new TextEncoder().encode(JSON.stringify(response ?? null))
    }
    if (bytes.byteLength > responseLimitBytes) return undefined
    return { status, contentType, body: Buffer.from(bytes).toString('base64') }
  }

  return {
    open(request) {
      scopes.set(request, Effects.open())
    },

    async before(request, entry, input) {
      // Before anything else, so that every answer (the 402, a refusal) offers this call's exact amount.
      const amount = Price.quote({ price: entry.price, rule: ruleOf(entry), input })
      const priced = { entry, amount }
      // HEAD is never served paid: it gets the offer, headers only, whatever it carries.
      if (request.method === 'HEAD') return refuse(request, priced)
      // A payment channel's voucher is checked against the channel's state, with no chain round trip.
      const channelPayment = channels?.carries(request.headers)
      if (channels && channelPayment !== undefined) {
        const held = await channels.before(channelPayment, amount, (refused) => refuse(request, priced, refused))
        if (held instanceof Response) return held
        channelCalls.set(request, held)
        return undefined
      }
      const now = new Date()
      const offered = termsOf(entry)
      const decoded = await decode({
        headers: request.headers,
        terms: offered,
        amount,
        resource: parameters.resourceUrl(request),
        method: entry.method,
        secret,
        now,
        recoverPublicKey: parameters.recoverPublicKey,
      })
      if (!decoded.ok) return refuse(request, priced, decoded)
      if (!decoded.payment) return refuse(request, priced)
      const { protocol, authorization, challengeId } = decoded.payment
      const payer = getAddress(authorization.from)
      // A window longer than offered would let a crashed settlement stay undecided for that long.
      if (authorization.validBefore > BigInt(Math.floor(now.getTime() / 1000) + offered.maxTimeoutSeconds + 60))
        return refuse(request, priced, {
          reason: 'malformed_payment',
          message: `validBefore is more than maxTimeoutSeconds (${offered.maxTimeoutSeconds}) ahead.`,
        })
      const idempotency = Idempotency.keyOf({ headers: request.headers, payment: decoded.payment })
      if (!idempotency.ok)
        return problem(request, new ValidationError({ field: idempotency.field, message: idempotency.message }))
      const fingerprint = Idempotency.fingerprint({ request, body: input.body })
      const key = { payer, nonce: authorization.nonce }

      // A retry of a call the ledger holds is answered from the ledger, before the chain is asked.
      const existing = await ledger.get(key)
      if (existing && existing.state !== 'released') {
        if (existing.fingerprint !== fingerprint) return refuse(request, priced, replayed)
        const answer = await replay(request, existing, priced)
        if (answer !== 'retake') return answer
      }
      const duplicate = async (prior: Ledger.Entry) => {
        if (prior.fingerprint !== fingerprint)
          return problem(
            request,
            new IdempotencyConflictError(`Idempotency key ${idempotency.key} was used for another request.`),
          )
        return replay(request, prior, priced)
      }
      if (idempotency.key !== undefined) {
        const prior = await ledger.find({ payer, idempotencyKey: idempotency.key })
        const answer = prior && (await duplicate(prior))
        if (answer && answer !== 'retake') return answer
      }

      // Before the chain is read: whatever settles from here on may be missing from the balance it answers.
      const balanceAt = new Date()
      const verified = await facilitator.verify({ authorization, domain })
      if (!verified.ok) return refuse(request, priced, verified)
      const claim = await ledger.claim({
        payer,
        nonce: authorization.nonce,
        amount,
        endpoint: Catalog.key(entry),
        protocol,
        authorization: serialize(authorization),
        fingerprint,
        idempotencyKey: idempotency.key,
        lease: lease.id,
        balance: verified.balance,
        balanceAt,
        claimedAt: now,
      })
      if (!claim.ok) {
        if (claim.reason === 'insufficient_funds')
          return refuse(request, priced, {
            reason: 'insufficient_funds',
            message: `${payer} holds ${verified.balance} atomic units; its calls in progress take ${claim.outstanding}, and this one needs ${amount} more.`,
          })
        if (claim.existing.fingerprint !== fingerprint) return refuse(request, priced, replayed)
        const answer =
          claim.reason === 'duplicate' ? await duplicate(claim.existing) : await replay(request, claim.existing, priced)
        // Lost a race twice over (the holder died meanwhile): the caller retries and finds it free.
        return answer === 'retake'
          ? problem(request, new PaymentInProgressError('Retry shortly.'), { 'Retry-After': '1' })
          : answer
      }
      const scope = scopes.get(request)
      if (scope) scope.record = async (effect) => void (await ledger.apply(key, { type: 'effect', effect }))
      claims.set(request, {
        claimed: { key, protocol, authorization, endpoint: Catalog.key(entry), challengeId },
        priced,
      })
      return undefined
    },

    async after(request, { status, response }) {
      const channelCall = channelCalls.get(request)
      if (channels && channelCall) {
        channelCalls.delete(request)
        return { headers: await channels.after(channelCall, status < 400) }
      }
      const held = claims.get(request)
      if (!held) return { headers: {} }
      claims.delete(request)
      const { claimed, priced } = held
      const scope = scopes.get(request)
      if (scope) scope.record = undefined
      const { key } = claimed
      if (status >= 400) {
        deferrals.delete(request)
        await release(key, `handler answered ${status}`)
        return { headers: {} }
      }
      const job = deferrals.get(request)
      if (job !== undefined) {
        deferrals.delete(request)
        await move(key, { type: 'defer', job })
        return { headers: {} }
      }
      await move(key, { type: 'settle', response: await keep(response, status) })
      const settled = await settlements.settle(claimed)
      if (settled.ok)
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
      if (settled.reason === 'settlement_pending')
        return { withheld: pending(request, { protocol: claimed.protocol, payer: key.payer }, settled.submitted) }
      return { withheld: refuse(request, priced, { reason: 'settlement_failed', message: settled.message }) }
    },

    async release(request, reason) {
      const channelCall = channelCalls.get(request)
      if (channels && channelCall) {
        channelCalls.delete(request)
        await channels.after(channelCall, false)
        return
      }
      const held = claims.get(request)
      if (!held) return
      claims.delete(request)
      const scope = scopes.get(request)
      if (scope) scope.record = undefined
      await release(held.claimed.key, reason)
    },

    defer(request, job) {
      const held = claims.get(request)
      // A channel voucher is redeemed with the call; only an authorization can wait for the job's end.
      if (!held) return undefined
      deferrals.set(request, job)
      return { ...held.claimed.key, amount: held.priced.amount }
    },

    payer(request) {
      const channelCall = channelCalls.get(request)
      if (channelCall) return channelCall.payer
      const held = claims.get(request)
      if (!held) throw new Error('No verified payer on this request: the route is not behind the payment guard.')
      return held.claimed.key.payer
    },
  }
}

export declare namespace guard {
  type Parameters = {
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** Where claims are recorded. */
    ledger: Ledger.Ledger
    /** Verifies on chain and settles. */
    facilitator: Facilitator
    /** This process's lease: carried by its claims, and asked whether another claim's process still lives. */
    lease: { readonly id: string; isLive: (id: string) => Promise<boolean> }
    /** The records paid calls write; what a call that is never paid wrote is taken back from it. */
    store?: Store | undefined
    /** The events outbox: a settled payment is the payer's `payment.settled`. */
    events?: Events | undefined
    /** Key that binds MPP challenge ids (HMAC). */
    secret: string
    /** secp256k1 public-key recovery for payment signatures (native where installed). @default the pure-JS one */
    recoverPublicKey?: RecoverPublicKey | undefined
    /** Absolute URL of the requested resource, as offers name it. */
    resourceUrl: (request: Request) => string
    /** The price rule of an entry priced per request (a range or `varies`). @default none: fixed prices only */
    ruleOf?: ((entry: Catalog.Entry) => Price.Rule | undefined) | undefined
    /** The validity window of an entry's offers, in seconds, when not the terms'. @default the terms' for every entry */
    windowOf?: ((entry: Catalog.Entry) => number | undefined) | undefined
    /** How long a caller waits for its settlement before it is told `settlement_pending`, in ms. @default 15_000 */
    settlementTimeoutMs?: number | undefined
    /** Largest response kept for retries, in bytes; larger ones are served once. @default 262_144 */
    responseLimitBytes?: number | undefined
    /** Where events go. */
    logger: Logger
    /** Payment channels (x402 `batch-settlement`), offered beside `exact` when given. */
    channels?: Channels.ReturnType | undefined
  }
  type ReturnType = {
    /** Where the request enters, synchronously: opens the scope its handler's writes are journaled in. */
    open: (request: Request) => void
    /**
     * Before the handler, with the call's validated input: a response to send (402, or the answer of a retry), or
     * `undefined` once the payment (of the amount quoted for this input) is claimed.
     */
    before: (request: Request, entry: Catalog.Entry, input: Price.Input) => Promise<Response | undefined>
    /** After the handler: settles on success (headers to add) or withholds the resource; releases on failure. */
    after: (
      request: Request,
      handled: {
        /** HTTP status of the handler's answer. */
        status: number
        /** What the handler returned. */
        response: unknown
      },
    ) => Promise<{ headers: Record<string, string> } | { withheld: Response }>
    /** Releases the claim of a request whose handler threw, and takes back its writes. */
    release: (request: Request, reason: string) => Promise<void>
    /** The verified payer of a paid request: the caller. */
    payer: (request: Request) => Address
    /**
     * Hands the claimed payment of a paid request to an asynchronous job: once the handler answers (below 400) the
     * claim is left to the job, unsettled, for `deferred` to settle or release. The payment's key and amount;
     * `undefined` when the call was paid over a channel, which cannot wait.
     */
    defer: (request: Request, job: string) => (Claimed['key'] & { amount: bigint }) | undefined
  }
}
