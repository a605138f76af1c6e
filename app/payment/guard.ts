import type { EVMMessageVerifier } from '@x402/extensions/sign-in-with-x'
import type { RecoverPublicKey } from '../../core/Authorization.js'
import * as Catalog from '../../core/Catalog.js'
import type * as Ledger from '../../core/Ledger.js'
import type { Meter } from '../../core/Meter.js'
import type { Paid } from '../../core/Module.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import * as Price from '../../core/Price.js'
import type { Store } from '../../core/Store.js'
import type { UptoChain } from '../../core/Upto.js'
import type { Logger } from '../log.js'
import { answers, keep, problem } from './answers.js'
import type { channels as Channels } from './channel.js'
import * as Effects from './effects.js'
import { exact } from './exact.js'
import * as Idempotency from './idempotency.js'
import type { receiptSigner } from './receipt.js'
import { required } from './required.js'
import { type AnyScheme, type Call, type Declined, isDeclined, type Priced } from './scheme.js'
import type { settlement } from './settlement.js'
import { signIn } from './siwx.js'
import type { solana as Solana } from './solana.js'
import { upto } from './upto.js'

/**
 * The paid-call flow around a handler, over a list of payment schemes: offer (402, every scheme's offer at once) ->
 * the first scheme that carries the request's payment checks it and holds it (an `exact` authorization claimed in
 * the ledger within the payer's balance, a channel voucher reserved, ...) -> handler (its writes journaled with the
 * payment) -> the scheme settles on success or releases; a failed handler charges nothing and its writes are taken
 * back, a failed settlement withholds the resource. A settlement whose outcome is unknown is never reported as
 * nothing charged: the caller gets 503 `settlement_pending`, and a retry of the same request gets the kept response
 * once the chain has decided, charged once.
 */
export function guard(parameters: guard.Parameters): guard.ReturnType {
  const {
    terms,
    settlements,
    ledger = settlements.ledger,
    logger,
    resourceUrl,
    ruleOf = () => undefined,
    windowOf = () => undefined,
    responseLimitBytes = 256 * 1024,
    reaccessOf = () => undefined,
    meterOf = () => undefined,
  } = parameters
  /** The terms of an entry's offers: a longer validity window for entries settled when their job ends. */
  const termsOf = (entry: Catalog.Entry): PaymentTerms => {
    const window = windowOf(entry)
    return window === undefined ? terms : { ...terms, maxTimeoutSeconds: window }
  }
  const answered = answers({ terms, receipts: parameters.receipts, resourceUrl, logger })
  // Sign-in needs the store for its entitlements and spent nonces; without one, nothing is offered.
  const signedIn =
    settlements.store &&
    signIn({
      store: settlements.store,
      secret: parameters.secret,
      networks: [terms.network],
      verifyMessage: parameters.verifyMessage,
      reaccessOf,
      resourceUrl,
      logger,
    })
  const metered =
    parameters.upto && upto({ terms, chain: parameters.upto, ledger, settlements, answers: answered, meterOf, logger })
  // In the order a request's payment is looked for: whoever paid for this or owns it re-reads it by signing in (a
  // refused sign-in lets a payment through); then the schemes an x402 v2 payload names (a channel's voucher, checked
  // with no chain round trip, `exact` on Solana, `upto`); and `exact` on the EVM chain, in any of its protocols.
  const schemes: readonly AnyScheme[] = [
    signedIn,
    parameters.channels,
    parameters.solana,
    metered,
    exact({
      termsOf,
      ledger,
      settlements,
      secret: parameters.secret,
      recoverPublicKey: parameters.recoverPublicKey,
      resourceUrl,
      answers: answered,
      entitle: signedIn?.entitle,
      failures: parameters.failures,
    }),
  ].filter((scheme) => scheme !== undefined)
  const refuse = required({
    termsOf,
    secret: parameters.secret,
    logger,
    resourceUrl,
    schemes,
    describe: parameters.describe,
  })

  // The payment each request holds, with its scheme, its call and where its handler's writes are recorded, between
  // `before` and `after` (or `release`).
  const held = new WeakMap<Request, { scheme: AnyScheme; payment: unknown; call: Call; scope: Effects.Scope }>()

  /** The held payment of a request, taken out: its handler's writes are no longer recorded with it. */
  function take(request: Request) {
    const holding = held.get(request)
    if (!holding) return undefined
    held.delete(request)
    holding.scope.record = undefined
    return holding
  }

  /** The paid call its handler gets: the payer read when asked (a Solana payer refuses), the journal on the store. */
  function paidOf(scheme: AnyScheme, payment: unknown, scope: Effects.Scope): Paid {
    const { store } = settlements
    let journal: Store | undefined
    return {
      get payer() {
        return scheme.payer(payment)
      },
      held: scheme.holding(payment),
      get journal() {
        if (!store) throw new Error('No store is configured, so no paid call has a journal.')
        journal ??= Effects.journaled(store, scope)
        return journal
      },
      defer: (job) => scheme.defer?.(payment, job),
    }
  }

  function callOf(request: Request, priced: Priced): Call {
    return {
      ...priced,
      request,
      endpoint: Catalog.key(priced.entry),
      fingerprint: Idempotency.fingerprint({ request, body: priced.input.body }),
      refuse: (refused, note) => refuse(request, priced, refused, note),
      problem: (error, headers) => problem(request, error, headers),
    }
  }

  return {
    async before(request, entry, input) {
      // Before anything else, so that every answer (the 402, a refusal) offers this call's exact amount.
      const amount = Price.quote({ price: entry.price, rule: ruleOf(entry), input })
      const priced = { entry, amount, input, max: metered ? meterOf(entry)?.max(input) : undefined }
      // HEAD is never served paid: it gets the offer, headers only, whatever it carries.
      if (request.method === 'HEAD') return refuse(request, priced)
      let call: Call | undefined
      let declined: Declined['declined'] | undefined
      for (const scheme of schemes) {
        const carried = scheme.carries(request, entry)
        if (carried === undefined) continue
        call ??= callOf(request, priced)
        const payment = await scheme.before(carried, call)
        if (payment instanceof Response) return payment
        if (isDeclined(payment)) {
          declined = payment.declined
          continue
        }
        const { record } = scheme
        const scope: Effects.Scope = { record: record && ((effect) => record(payment, effect)) }
        held.set(request, { scheme, payment, call, scope })
        return paidOf(scheme, payment, scope)
      }
      return refuse(request, priced, declined?.refused, declined?.note)
    },

    async after(request, { status, response }) {
      const holding = take(request)
      if (!holding) return { headers: {} }
      const { scheme, payment, call } = holding
      const handled = { ok: status < 400, status, response, keep: () => keep(response, status, responseLimitBytes) }
      return scheme.after(payment, handled, call)
    },

    async release(request, reason) {
      const holding = take(request)
      if (holding) await holding.scheme.release(holding.payment, reason)
    },
  }
}

export declare namespace guard {
  /** What a 402 says of a call for indexes. */
  type Described = required.Described
  type Parameters = {
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** The settlement service: the books (ledger, facilitator, lease, store, events) and the moves that end a claim. */
    settlements: settlement.ReturnType
    /** Where claims are recorded, when not straight in the settlement service's ledger (timed for metrics). */
    ledger?: Ledger.Ledger | undefined
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
     * `sign-in-with-x`); `undefined` for the others. Needs the settlement service's store. @default none offers it
     */
    reaccessOf?: ((entry: Catalog.Entry) => signIn.Owners | undefined) | undefined
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
    failures?: exact.Parameters['failures']
  }
  type ReturnType = {
    /**
     * Before the handler, with the call's validated input: a response to send (402, or the answer of a retry), or
     * the paid call its handler gets once the payment (of the amount quoted for this input) is held.
     */
    before: (request: Request, entry: Catalog.Entry, input: Price.Input) => Promise<Response | Paid>
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
    /** Releases the payment of a request whose handler threw, and takes back its writes. */
    release: (request: Request, reason: string) => Promise<void>
  }
}
