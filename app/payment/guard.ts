import { encodePaymentResponseHeader } from '@x402/core/http'
import type { EVMMessageVerifier } from '@x402/extensions/sign-in-with-x'
import { type Address, getAddress, type Hash, type Hex, isAddress, isAddressEqual } from 'viem'
import { type RecoverPublicKey, serialize } from '../../core/Authorization.js'
import * as Catalog from '../../core/Catalog.js'
import {
  type BaseError,
  ForbiddenError,
  IdempotencyConflictError,
  InvalidTransitionError,
  PaymentInProgressError,
  PaymentRefusedError,
  PaymentRequiredError,
  Permit2AllowanceRequiredError,
  RateLimitedError,
  type Refusal,
  ResponseNotRetainedError,
  SettlementPendingError,
  ValidationError,
} from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import type { Facilitator } from '../../core/Facilitator.js'
import * as Ledger from '../../core/Ledger.js'
import { asEvm, type Protocol } from '../../core/Ledger.js'
import type { Meter } from '../../core/Meter.js'
import type { Target } from '../../core/Module.js'
import { type PaymentTerms, toDomain } from '../../core/PaymentTerms.js'
import * as Permit2 from '../../core/Permit2.js'
import * as Price from '../../core/Price.js'
import type { Store } from '../../core/Store.js'
import type { UptoChain, Permit as UptoPermit } from '../../core/Upto.js'
import * as Cors from '../cors.js'
import { retryAfterSeconds } from '../limits.js'
import { describeError, type Logger } from '../log.js'
import * as Problem from '../problem.js'
import * as RequestId from '../request-id.js'
import type { Held as ChannelHeld, channels as Channels } from './channel.js'
import { decode } from './decode.js'
import * as Effects from './effects.js'
import * as Idempotency from './idempotency.js'
import { answer, type Compiled, compile, type offer } from './offer.js'
import { receipt, type receiptSigner } from './receipt.js'
import { type Claimed, settlement } from './settlement.js'
import { scopeOf, signInWithX, siwx } from './siwx.js'
import type { solana as Solana, Answers as SolanaAnswers, Held as SolanaHeld } from './solana.js'
import * as Upto from './upto.js'
import { v1NetworkOf } from './x402.js'

/** A catalog entry with the exact amount one call to it costs. */
type Priced = {
  /** The entry called. */
  entry: Catalog.Entry
  /** The amount quoted for this call, in atomic units. */
  amount: bigint
  /** The call's validated input. */
  input: Price.Input
  /** The most this call may cost when it is also offered priced by usage (`upto`), in atomic units. */
  max?: bigint | undefined
}

/** A call paid with an `upto` permit, between its claim and its settlement. */
type UptoCall = {
  /** Ledger key: the permit's owner and its Permit2 nonce. */
  key: Claimed['key']
  /** The entry, its price and the authorized maximum. */
  priced: Priced & { max: bigint }
  /** The call's validated input, which its meter reads again with the answer. */
  input: Price.Input
  /** The payer's permit. */
  permit: UptoPermit
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
    solana,
    reaccessOf = () => undefined,
    describe = (): guard.Described => ({}),
    upto,
    meterOf = () => undefined,
    receipts,
    failures,
  } = parameters
  const claims = new WeakMap<Request, { claimed: Claimed; priced: Priced }>()
  // Calls paid with an `upto` permit: their claim, between `before` and `after`.
  const uptoCalls = new WeakMap<Request, UptoCall>()
  // Calls whose handler started an asynchronous job: their claim is handed to the job instead of settled.
  const deferrals = new WeakMap<Request, string>()
  /** The terms of an entry's offers: a longer validity window for entries settled when their job ends. */
  const termsOf = (entry: Catalog.Entry): PaymentTerms => {
    const window = windowOf(entry)
    return window === undefined ? terms : { ...terms, maxTimeoutSeconds: window }
  }
  // Calls paid over a payment channel (`batch-settlement`): their reservation, between `before` and `after`.
  const channelCalls = new WeakMap<Request, { held: ChannelHeld; priced: Priced }>()
  // Calls paid with a Solana transaction (x402 `exact` on `solana:`): their claim, between `before` and `after`.
  const solanaCalls = new WeakMap<Request, { held: SolanaHeld; priced: Priced }>()
  const scopes = new WeakMap<Request, Effects.Scope>()
  // Calls re-read by signing in (x402 `sign-in-with-x`): the signer, who pays nothing.
  const signedIn = new WeakMap<Request, string>()
  // Sign-in needs the store for its entitlements and spent nonces; without one, nothing is offered.
  const signIn =
    store &&
    siwx({
      store,
      secret,
      networks: [terms.network],
      ...(parameters.verifyMessage ? { verifyMessage: parameters.verifyMessage } : {}),
    })
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
  // `upto` settlements go through the same machinery, sent by the proxy's named facilitator (the relayer) itself.
  const uptoSettlements =
    upto &&
    settlement({
      ledger,
      facilitator: Upto.facilitatorOf({
        chain: upto,
        entryOf: async (key) => {
          const entry = await ledger.get(key)
          return entry && Upto.isUpto(entry.authorization)
            ? { permit: Upto.deserialize(entry.authorization), amount: entry.amount }
            : undefined
        },
      }),
      domain,
      lease,
      store,
      events,
      logger,
      timeoutMs: settlementTimeoutMs,
    })

  // What the 402s of one call URL say of it for indexes, built once (bounded; the oldest go first).
  const descriptions = new Map<string, guard.Described>()
  function describedOf(request: Request, entry: Catalog.Entry): guard.Described {
    const key = `${Catalog.key(entry)} ${request.url}`
    const known = descriptions.get(key)
    if (known) return known
    const described = describe(request.url, entry)
    if (descriptions.size >= 4_096) descriptions.delete(descriptions.keys().next().value!)
    descriptions.set(key, described)
    return described
  }

  // The same, with what an `upto` offer needs beside it (EIP-2612 gas sponsoring), one object per description.
  const meteredExtensions = new WeakMap<guard.Described, Record<string, unknown>>()
  function meteredExtensionsOf(described: guard.Described): Record<string, unknown> {
    const known = meteredExtensions.get(described)
    if (known) return known
    const extensions = { ...described.extensions, ...Upto.extensions() }
    meteredExtensions.set(described, extensions)
    return extensions
  }

  /**
   * The 402 of a call: the offer of its exact amount, and why a payment that came with it was refused, if one did;
   * `note` says more of a call that came with no payment (a good sign-in that entitles to nothing).
   */
  function refuse(
    request: Request,
    priced: Priced,
    refusal?: { reason: Refusal; message: string },
    note?: string,
  ): Response {
    const { entry, amount } = priced
    const described = describedOf(request, entry)
    const now = new Date()
    const metered = meteredOf(priced)
    const extensions = metered ? meteredExtensionsOf(described) : described.extensions
    // Metrics count this event: 402s by reason.
    logger.log('debug', 'payment_refused', {
      endpoint: Catalog.key(entry),
      reason: refusal?.reason ?? 'payment_required',
    })
    const offered = offeredOf(request, priced, described)
    const signingIn = signIn && reaccessOf(entry)
    if (!refusal && !note && !signingIn) {
      // The plain 402, the first answer of every paid call: serialized once per offer, a fresh challenge each time.
      const { headers, body } = answer(offered.compiled, { now, extensions })
      const { 'WWW-Authenticate': challenge, ...fixed } = headers
      const plain =
        offered.plain?.paymentRequired === fixed['PAYMENT-REQUIRED']
          ? offered.plain
          : {
              problem:
                offered.plain?.problem ??
                Problem.template(
                  new PaymentRequiredError(required(entry, amount), { details: { ...body, ...described.hints } }),
                ),
              paymentRequired: fixed['PAYMENT-REQUIRED'],
              headers: Problem.fixedHeaders({ ...fixed, ...Cors.headers }),
            }
      offered.plain = plain
      const { problem, headers: answered } = plain
      const requestId = RequestId.of(request)
      return new Response(problem.render(Problem.instanceOf(request), requestId), {
        status: problem.status,
        headers: answered.with({
          'www-authenticate': challenge,
          ...(requestId === undefined ? {} : { [RequestId.header]: requestId }),
        }),
      })
    }
    const { headers, body } = answer(offered.compiled, {
      now,
      // The same object for the same call (its 402 header is kept with it); a sign-in challenge is new every time.
      extensions: signingIn
        ? { ...extensions, [signInWithX]: signIn.challenge({ uri: signInUri(request), now }) }
        : extensions,
      ...(refusal ? { refusal } : {}),
    })
    // One body serves both readers: RFC 9457 fields for people and tools, x402 v1 fields (the details) for v1 clients.
    const details = { ...body, ...described.hints }
    const error = refusal
      ? new PaymentRefusedError(refusal, { details })
      : new PaymentRequiredError(`${required(entry, amount)}${note ? ` ${note}` : ''}`, { details })
    return problem(request, error, headers)
  }

  /** What a 402 says when nothing was paid. */
  function required(entry: Catalog.Entry, amount: bigint): string {
    return `${Catalog.key(entry)} costs $${Price.fromAtomic(amount)} in USDC; pay with x402 or MPP.`
  }

  /** Whether a call is offered metered (`upto`, up to a maximum its input sets) beside `exact`. */
  function meteredOf({ max }: Priced): boolean {
    return upto !== undefined && max !== undefined && max > 0n
  }

  // What every 402 of one offer shares, by everything it depends on (the route and resource URL, the amount, a metered
  // maximum; not the query, which the resource leaves out), and the serialized plain 402 once one was answered; built
  // on first use, a bounded few.
  type Offered = {
    compiled: Compiled
    /** The plain 402's body, and its headers but the challenge and request id, for the `PAYMENT-REQUIRED` they carry. */
    plain?: {
      problem: ReturnType<typeof Problem.template>
      paymentRequired: string
      headers: ReturnType<typeof Problem.fixedHeaders>
    }
  }
  const offers = new Map<string, Offered>()
  function offeredOf(request: Request, priced: Priced, described: guard.Described): Offered {
    const { entry, amount, max } = priced
    const metered = meteredOf(priced)
    const resource = parameters.resourceUrl(request)
    const key = `${Catalog.key(entry)} ${resource} ${amount} ${metered ? max : ''}`
    const known = offers.get(key)
    if (known) return known
    const offered: Offered = {
      compiled: compile({
        terms: termsOf(entry),
        amount,
        resource,
        description: entry.purpose,
        mimeType: 'application/json',
        method: entry.method,
        secret,
        ...(described.resource ? { service: described.resource } : {}),
        also: [
          ...(channels ? [channels.accept(amount)] : []),
          ...(solana ? [solana.accept(amount)] : []),
          ...(metered && upto ? [Upto.requirements({ terms, max: max!, facilitator: upto.facilitator })] : []),
        ],
      }),
    }
    if (offers.size >= 4_096) offers.delete(offers.keys().next().value!)
    offers.set(key, offered)
    return offered
  }

  function problem(request: Request, error: BaseError, headers: Record<string, string> = {}): Response {
    return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), {
      ...headers,
      ...RequestId.headersOf(request),
    })
  }

  /** How a Solana payment of this call is answered: as every other payment is. */
  const answersOf = (request: Request, priced: Priced): SolanaAnswers => ({
    refuse: (refused) => refuse(request, priced, refused),
    problem: (error, headers) => problem(request, error, headers),
  })

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
      'The payment was signed for the chain and its outcome is not known yet, so it may be charged. Retry this same ' +
        'request with the same payment (or the same idempotency key) after Retry-After seconds: you get the response, ' +
        'charged once. A transaction that never reached the chain is sent only by such a retry; unretried, it expires ' +
        'unused and nothing is charged.',
      transaction ? { details: { transaction } } : {},
    )
    return problem(request, error, { 'Retry-After': '5', ...header })
  }

  /** The URI a sign-in for this call must name: the resource's absolute URL with the query as sent. */
  function signInUri(request: Request): string {
    return `${parameters.resourceUrl(request)}${new URL(request.url).search}`
  }

  /**
   * Re-access by signing in, for an entry that offers it and a request that carries `SIGN-IN-WITH-X`: granted when the
   * signer paid for this very call's scope or owns what it names, and the nonce was never spent; else why not.
   */
  async function signInOf(
    request: Request,
    priced: Priced,
  ): Promise<
    { granted: true } | { granted: false; refusal?: { reason: Refusal; message: string }; note?: string } | undefined
  > {
    const owners = reaccessOf(priced.entry)
    const header = request.headers.get(signInWithX)
    if (!signIn || !owners || header === null) return undefined
    const uri = signInUri(request)
    const verified = await signIn.verify({ header, uri })
    if (!verified.ok) return { granted: false, refusal: verified }
    const { address } = verified.signedIn
    const scope = scopeOf({ request, priceVersion: Price.toText(priced.entry.price) })
    const { params = {}, query = {} } = priced.input as { params?: Target['params']; query?: Target['query'] }
    const owns =
      isAddress(address) && (await owners({ params, query })).some((owner) => isAddressEqual(owner as Address, address))
    if (!owns && !(await signIn.entitled({ address, scope })))
      return {
        granted: false,
        note: `${address} signed in, and neither paid for ${scope.method} ${scope.resource} at ${scope.priceVersion} nor owns it.`,
      }
    if (!(await signIn.spend({ signedIn: verified.signedIn, uri, now: new Date() })))
      return {
        granted: false,
        refusal: { reason: 'replayed', message: 'This sign-in was used already; sign the challenge of a new 402.' },
      }
    signedIn.set(request, address)
    return { granted: true }
  }

  /**
   * Records, for an entry that offers re-access, that the payer of a settled call may re-read it by signing in. The
   * call is paid whatever happens here: a store that fails costs the payer its re-access, never its answer.
   */
  async function entitle(request: Request, entry: Catalog.Entry, payer: Address, transaction: string): Promise<void> {
    if (!signIn || !reaccessOf(entry)) return
    const scope = scopeOf({ request, priceVersion: Price.toText(entry.price) })
    await signIn.grant({ address: payer, scope, transaction, now: new Date() }).catch((error: unknown) =>
      logger.log('warn', 'reaccess_not_recorded', {
        endpoint: Catalog.key(entry),
        payer,
        transaction,
        error: describeError(error),
      }),
    )
  }

  /**
   * The success header of a settled payment (`receipt`), with the gateway's signed `offer-receipt` receipt in an
   * x402 v2 one when a receipt key is set. A receipt that cannot be signed is left out; the payment stands.
   */
  async function settledHeaders(
    request: Request,
    paid: Omit<Parameters<typeof receipt>[0], 'network' | 'signed' | 'now'>,
  ): Promise<Record<string, string>> {
    const signed =
      receipts && paid.protocol === 'x402-v2'
        ? await receipts
            .sign({
              resource: parameters.resourceUrl(request),
              payer: paid.payer,
              network: terms.network,
              transaction: paid.transaction,
            })
            .catch((error: unknown) => {
              logger.log('warn', 'receipt_not_signed', { error: error instanceof Error ? error.name : 'unknown' })
              return undefined
            })
        : undefined
    return receipt({ ...paid, network: terms.network, now: new Date(), ...(signed ? { signed } : {}) })
  }

  /** The kept response of a settled call with its receipt; 410 when it was not kept. */
  async function stored(request: Request, entry: Ledger.EvmEntry): Promise<Response> {
    const headers = await settledHeaders(request, {
      protocol: entry.protocol,
      transaction: entry.transaction!,
      payer: entry.payer,
      ...(Upto.isUpto(entry.authorization) ? { amount: entry.amount } : {}),
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

  /** A settled call's kept response; its payer's re-access is recorded again, in case the first answer never got to it. */
  async function kept(request: Request, held: Ledger.EvmEntry, priced: Priced): Promise<Response> {
    await entitle(request, priced.entry, held.payer, held.transaction!)
    return stored(request, held)
  }

  /**
   * The answer to a retry of a paid call the ledger already holds: its kept response once settled, 503 while
   * undecided, 402 once failed. `retake` when the claim was held by a dead process and is now released.
   */
  async function replay(request: Request, entry: Ledger.Entry, priced: Priced): Promise<Response | 'retake'> {
    const held = asEvm(entry)
    const key = { payer: held.payer, nonce: held.nonce }
    switch (held.state) {
      case 'settled':
        return kept(request, held, priced)
      case 'settling': {
        const onChain = await facilitator
          .status({ ...key, domain, ...(held.transaction ? { transaction: held.transaction } : {}) })
          .catch(() => undefined)
        if (onChain?.state === 'settled' && onChain.transaction) {
          const confirmed = await ledger
            .apply(key, { type: 'confirmed', transaction: onChain.transaction })
            .catch(() => ledger.get(key))
          if (confirmed?.state === 'settled') return kept(request, asEvm(confirmed), priced)
        }
        // Still undecided: whoever holds it is on it, or nobody is and this process finishes it. Sending the same
        // authorization again is safe: the token takes each nonce once, so at most one transfer lands.
        if (held.lease !== undefined && (await lease.isLive(held.lease)))
          return pending(request, held, held.transaction)
        const settled = await settlements.finish(held)
        if (settled?.ok) return kept(request, asEvm((await ledger.get(key))!), priced)
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

  /**
   * An `upto` payment: checked without the chain, then on it (nonce, allowance or EIP-2612 approval, balance, a
   * simulation of the whole maximum), then claimed in the ledger for the maximum within the payer's balance.
   */
  async function uptoBefore(
    request: Request,
    priced: Priced,
    input: Price.Input,
    chain: UptoChain,
  ): Promise<Response | undefined> {
    const { max } = priced
    if (max === undefined || max === 0n)
      return refuse(request, priced, {
        reason: 'malformed_payment',
        message: 'This call is not offered priced by usage; pay it with exact.',
      })
    const now = new Date()
    const decoded = await Upto.decode({
      header: request.headers.get('payment-signature')!,
      terms,
      max,
      facilitator: chain.facilitator,
      now,
    })
    if (!decoded.ok) return refuse(request, priced, decoded)
    const { permit } = decoded
    const key = { payer: permit.owner, nonce: Upto.nonceOf(permit) }
    const fingerprint = Idempotency.fingerprint({ request, body: input.body })
    const held = async (existing: Ledger.Entry): Promise<Response> => {
      if (existing.fingerprint !== fingerprint || !Upto.isUpto(existing.authorization))
        return refuse(request, priced, replayed)
      if (existing.state === 'settled') return stored(request, asEvm(existing))
      if (existing.state === 'failed')
        return refuse(request, priced, {
          reason: 'settlement_failed',
          message: existing.reason ?? 'The settlement failed; nothing was charged.',
        })
      return problem(
        request,
        new PaymentInProgressError('This paid call is being served right now; retry shortly to get its answer.'),
        { 'Retry-After': '1' },
      )
    }
    const existing = await ledger.get(key)
    if (existing && existing.state !== 'released') return held(existing)

    const balanceAt = new Date()
    const checked = await chain.check(permit)
    if (!checked.ok) {
      const { reason, message } = checked
      if (reason === 'allowance_required')
        return problem(
          request,
          new Permit2AllowanceRequiredError(message, {
            details: { error: 'PERMIT2_ALLOWANCE_REQUIRED', token: permit.token, spender: Permit2.address },
          }),
        )
      return refuse(request, priced, { reason, message })
    }
    const claim = await ledger.claim({
      ...key,
      amount: max,
      endpoint: Catalog.key(priced.entry),
      protocol: 'x402-v2',
      authorization: Upto.serialize(permit),
      fingerprint,
      lease: lease.id,
      balance: checked.balance,
      balanceAt,
      claimedAt: now,
    })
    if (!claim.ok) {
      if (claim.reason === 'insufficient_funds')
        return refuse(request, priced, {
          reason: 'insufficient_funds',
          message: `${key.payer} holds ${checked.balance} atomic units; its calls in progress take ${claim.outstanding}, and this one may take ${max} more.`,
        })
      return held(claim.existing)
    }
    const scope = scopes.get(request)
    if (scope) scope.record = async (effect) => void (await ledger.apply(key, { type: 'effect', effect }))
    uptoCalls.set(request, { key, priced: { ...priced, max }, input, permit })
    return undefined
  }

  /**
   * Settles an `upto` call for what its answer used (its meter), never more than the authorized maximum; the maximum
   * when the answer does not say. Nothing used: no transaction, and the claim is released.
   */
  async function uptoAfter(
    request: Request,
    call: UptoCall,
    status: number,
    response: unknown,
  ): Promise<{ headers: Record<string, string> } | { withheld: Response }> {
    const { key, priced, input, permit } = call
    const endpoint = Catalog.key(priced.entry)
    const scope = scopes.get(request)
    if (scope) scope.record = undefined
    if (status >= 400) {
      await release(key, `handler answered ${status}`)
      return { headers: {} }
    }
    const used = meterOf(priced.entry)?.cost(response, input)
    if (used === undefined) logger.log('warn', 'usage_unreported', { endpoint })
    else if (used > priced.max) logger.log('warn', 'usage_over_maximum', { endpoint, used: used.toString() })
    const amount = used === undefined || used > priced.max ? priced.max : used
    const charged = { protocol: 'x402-v2' as const, payer: key.payer, amount }
    if (amount === 0n) {
      await release(key, 'nothing was used, so nothing is charged')
      return { headers: await settledHeaders(request, { ...charged, transaction: '' }) }
    }
    await move(key, { type: 'settle', response: await keep(response, status), amount })
    const settled = await uptoSettlements!.settle({
      key,
      protocol: 'x402-v2',
      authorization: {
        from: key.payer,
        to: permit.to,
        value: amount,
        validAfter: permit.validAfter,
        validBefore: permit.deadline,
        nonce: key.nonce,
        signature: permit.signature,
      },
      endpoint,
      challengeId: undefined,
    })
    if (settled.ok) return { headers: await settledHeaders(request, { ...charged, transaction: settled.transaction }) }
    if (settled.reason === 'settlement_pending')
      return { withheld: pending(request, { protocol: 'x402-v2', payer: key.payer }, settled.submitted) }
    return { withheld: refuse(request, priced, { reason: 'settlement_failed', message: settled.message }) }
  }

  return {
    open(request) {
      scopes.set(request, Effects.open())
    },

    async before(request, entry, input) {
      // Before anything else, so that every answer (the 402, a refusal) offers this call's exact amount.
      const amount = Price.quote({ price: entry.price, rule: ruleOf(entry), input })
      const priced = { entry, amount, input, max: upto ? meterOf(entry)?.max(input) : undefined }
      // HEAD is never served paid: it gets the offer, headers only, whatever it carries.
      if (request.method === 'HEAD') return refuse(request, priced)
      // Whoever paid for this or owns it re-reads it by signing in; a refused sign-in still lets a payment through.
      const signedInAs = await signInOf(request, priced)
      if (signedInAs?.granted) return undefined
      // A payment channel's voucher is checked against the channel's state, with no chain round trip.
      const channelPayment = channels?.carries(request.headers)
      if (channels && channelPayment !== undefined) {
        const fingerprint = Idempotency.fingerprint({ request, body: input.body })
        const held = await channels.before(channelPayment, { amount, fingerprint }, (refused) =>
          refuse(request, priced, refused),
        )
        if (held instanceof Response) return held
        const scope = scopes.get(request)
        if (scope) scope.record = (effect) => channels.record(held, effect)
        channelCalls.set(request, { held, priced })
        return undefined
      }
      const solanaPayment = solana?.carries(request.headers)
      if (solana && solanaPayment !== undefined) {
        const fingerprint = Idempotency.fingerprint({ request, body: input.body })
        const endpoint = Catalog.key(entry)
        const held = await solana.before(solanaPayment, { amount, endpoint, fingerprint }, answersOf(request, priced))
        if (held instanceof Response) return held
        const scope = scopes.get(request)
        if (scope) scope.record = async (effect) => void (await ledger.apply(held.key, { type: 'effect', effect }))
        solanaCalls.set(request, { held, priced })
        return undefined
      }
      if (upto && Upto.carries(request.headers)) return uptoBefore(request, priced, input, upto)
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
      if (!decoded.payment)
        return signedInAs?.granted === false
          ? refuse(request, priced, signedInAs.refusal, signedInAs.note)
          : refuse(request, priced)
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

      // A client whose payments keep failing on chain (unfunded keys) is refused before the chain is read again.
      const blockedUntil = failures?.blockedUntil(request)
      if (blockedUntil !== undefined) {
        const retryAfter = retryAfterSeconds(blockedUntil, Date.now())
        const error = new RateLimitedError({
          retryAfterSeconds: retryAfter,
          what: 'the payment check with payments that failed it (unfunded keys, used nonces) from this client',
        })
        return problem(request, error, { 'retry-after': String(retryAfter) })
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
          return refuse(request, priced, verified)
        }
        if (existing.fingerprint !== fingerprint) return refuse(request, priced, replayed)
        const answer = await replay(request, existing, priced)
        return answer === 'retake' ? refuse(request, priced, verified) : answer
      }
      // A retry of a call in progress finds its entry here; one its dead process left is released, and claimed again.
      for (let attempt = 1; ; attempt++) {
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
        if (claim.ok) break
        if (claim.reason === 'insufficient_funds')
          return refuse(request, priced, {
            reason: 'insufficient_funds',
            message: `${payer} holds ${verified.balance} atomic units; its calls in progress take ${claim.outstanding}, and this one needs ${amount} more.`,
          })
        if (claim.existing.fingerprint !== fingerprint) return refuse(request, priced, replayed)
        const answer =
          claim.reason === 'duplicate' ? await duplicate(claim.existing) : await replay(request, claim.existing, priced)
        if (answer !== 'retake') return answer
        // Lost a race twice over (the holder died meanwhile): the caller retries and finds it free.
        if (attempt === 2) return problem(request, new PaymentInProgressError('Retry shortly.'), { 'Retry-After': '1' })
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
      // A re-read by signing in: nothing to settle.
      if (signedIn.delete(request)) return { headers: {} }
      const channelCall = channelCalls.get(request)
      if (channels && channelCall) {
        channelCalls.delete(request)
        const scope = scopes.get(request)
        if (scope) scope.record = undefined
        const ok = status < 400
        return channels.after(
          channelCall.held,
          { ok, kept: ok ? await keep(response, status) : undefined },
          (refused) => refuse(request, channelCall.priced, refused),
        )
      }
      const solanaCall = solanaCalls.get(request)
      if (solana && solanaCall) {
        solanaCalls.delete(request)
        const scope = scopes.get(request)
        if (scope) scope.record = undefined
        const ok = status < 400
        const kept = ok ? await keep(response, status) : undefined
        return solana.after(solanaCall.held, { ok, status, kept }, answersOf(request, solanaCall.priced))
      }
      const uptoCall = uptoCalls.get(request)
      if (uptoCall) {
        uptoCalls.delete(request)
        return uptoAfter(request, uptoCall, status, response)
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
      if (settled.ok) {
        await entitle(request, priced.entry, key.payer, settled.transaction)
        return {
          headers: await settledHeaders(request, {
            protocol: claimed.protocol,
            transaction: settled.transaction,
            payer: key.payer,
            ...(claimed.challengeId ? { challengeId: claimed.challengeId } : {}),
          }),
        }
      }
      if (settled.reason === 'settlement_pending')
        return { withheld: pending(request, { protocol: claimed.protocol, payer: key.payer }, settled.submitted) }
      return { withheld: refuse(request, priced, { reason: 'settlement_failed', message: settled.message }) }
    },

    async release(request, reason) {
      if (signedIn.delete(request)) return
      const channelCall = channelCalls.get(request)
      if (channels && channelCall) {
        channelCalls.delete(request)
        const scope = scopes.get(request)
        if (scope) scope.record = undefined
        await channels.after(channelCall.held, { ok: false }, (refused) => refuse(request, channelCall.priced, refused))
        return
      }
      const solanaCall = solanaCalls.get(request)
      if (solana && solanaCall) {
        solanaCalls.delete(request)
        const scope = scopes.get(request)
        if (scope) scope.record = undefined
        await solana.release(solanaCall.held, reason)
        return
      }
      const uptoCall = uptoCalls.get(request)
      if (uptoCall) {
        uptoCalls.delete(request)
        const scope = scopes.get(request)
        if (scope) scope.record = undefined
        await release(uptoCall.key, reason)
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

    holding(request) {
      if (signedIn.has(request)) return undefined
      const channelCall = channelCalls.get(request)
      if (channelCall) {
        const { payer, channelId, ceiling, amount } = channelCall.held
        return { type: 'channel', payer, channelId, ceiling: ceiling.toString(), amount: amount.toString() }
      }
      const key = solanaCalls.get(request)?.held.key ?? uptoCalls.get(request)?.key ?? claims.get(request)?.claimed.key
      return key && { type: 'ledger', payer: key.payer, nonce: key.nonce }
    },

    payer(request) {
      const signer = signedIn.get(request)
      if (signer !== undefined) return signer as Address
      const channelCall = channelCalls.get(request)
      if (channelCall) return channelCall.held.payer
      const uptoCall = uptoCalls.get(request)
      if (uptoCall) return uptoCall.key.payer
      // The caller is an EVM address wherever a module records what it owns; a Solana payer has none, so a route
      // that reads it refuses the call (403, released: the transaction is never co-signed, nothing is charged).
      if (solanaCalls.has(request))
        throw new ForbiddenError(
          'This endpoint records what you own by your EVM address, so it cannot be paid from Solana: pay it with x402 or MPP on an EVM network.',
        )
      const held = claims.get(request)
      if (!held) throw new Error('No verified payer on this request: the route is not behind the payment guard.')
      return held.claimed.key.payer
    },
  }
}

export declare namespace guard {
  /**
   * The payment of one call, by where its outcome is recorded (JSON, amounts as decimal strings): an entry of the
   * payment ledger (an authorization, an `upto` permit, a Solana transaction), or a voucher on a payment channel.
   */
  type Holding =
    | {
        /** Recorded in the payment ledger. */
        type: 'ledger'
        /** Ledger key: the payer (an EVM address, or a Solana account CAIP-10 style)... */
        payer: Ledger.Payer
        /** ...and the nonce. */
        nonce: Hex
      }
    | {
        /** A voucher on a payment channel, charged when the call is served. */
        type: 'channel'
        /** The channel's payer. */
        payer: Address
        /** The channel. */
        channelId: Hex
        /** The voucher's ceiling, in atomic units: the call is charged once the channel's charged amount reaches it. */
        ceiling: string
        /** The call's price, in atomic units. */
        amount: string
      }
  /** What a 402 says of a call for indexes. */
  type Described = {
    /** Service metadata of the offer's `resource` (x402 `ResourceInfo`). */
    resource?: offer.Service | undefined
    /** x402 extensions of the 402 (the bazaar's discovery info). */
    extensions?: Record<string, unknown> | undefined
    /** Members the 402's body carries beside the x402 v1 and problem ones, to help a caller call again. */
    hints?: Record<string, unknown> | undefined
  }
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
    /** x402 `exact` on Solana, offered beside the EVM offers when given. */
    solana?: Solana.ReturnType | undefined
    /**
     * The owners of what a call to an entry names, for the entries that offer re-access by signing in (x402
     * `sign-in-with-x`); `undefined` for the others. Needs `store`. @default none offers it
     */
    reaccessOf?: ((entry: Catalog.Entry) => ((target: Target) => Promise<readonly string[]>) | undefined) | undefined
    /** Verifies EVM sign-in messages on the settlement chain (ERC-1271, ERC-6492). @default EOAs only, offline */
    verifyMessage?: EVMMessageVerifier | undefined
    /** What the 402 of a call says of it for indexes: service metadata of its `resource`, and extensions (bazaar). */
    describe?: ((url: string, entry: Catalog.Entry) => Described) | undefined
    /** The `upto` contracts through the relayer: calls with a meter are offered priced by usage too, when given. */
    upto?: UptoChain | undefined
    /** The meter of an entry priced by usage (`upto`). @default none */
    meterOf?: ((entry: Catalog.Entry) => Meter | undefined) | undefined
    /** Signs the `offer-receipt` receipt of every settled x402 v2 payment, when given. */
    receipts?: receiptSigner.ReturnType | undefined
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
    /** The payment that pays for a paid request, until its `after`; `undefined` for a re-read by signing in. */
    holding: (request: Request) => Holding | undefined
    /**
     * Hands the claimed payment of a paid request to an asynchronous job: once the handler answers (below 400) the
     * claim is left to the job, unsettled, for `deferred` to settle or release. The payment's key and amount;
     * `undefined` when the call was paid over a channel, which cannot wait.
     */
    defer: (request: Request, job: string) => (Claimed['key'] & { amount: bigint }) | undefined
  }
}
