import type { PaymentRequirements } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type * as Catalog from '../../core/Catalog.js'
import { type BaseError, PaymentInProgressError, type Refusal } from '../../core/Errors.js'
import type * as Ledger from '../../core/Ledger.js'
import type { Holding } from '../../core/Module.js'
import type * as Price from '../../core/Price.js'
import type { Effect } from '../../core/Store.js'

/** A refusal as a 402 carries it: a stable reason and one sentence for people. */
export type Refused = { reason: Refusal; message: string }

/** A catalog entry with the exact amount one call to it costs. */
export type Priced = {
  /** The entry called. */
  entry: Catalog.Entry
  /** The amount quoted for this call, in atomic units. */
  amount: bigint
  /** The call's validated input. */
  input: Price.Input
  /** The most this call may cost when it is also offered priced by usage (`upto`), in atomic units. */
  max?: bigint | undefined
}

/** One paid call as a scheme sees it: its request and price, and how the guard answers it. */
export type Call = Priced & {
  /** The request. */
  request: Request
  /** `"METHOD path"` of the entry. */
  endpoint: string
  /** A hash of what the call asks for: a retry must carry the same request to get the kept answer. */
  fingerprint: string
  /** The call's 402: every scheme's offer, and why its payment was refused; `note` says more of a call paid nothing. */
  refuse: (refused?: Refused, note?: string) => Response
  /** A problem document answering the call. */
  problem: (error: BaseError, headers?: Record<string, string>) => Response
}

/** The handler's answer, as a scheme settles its payment. */
export type Handled = {
  /** Whether the handler succeeded (status below 400): only then is anything charged. */
  ok: boolean
  /** HTTP status of the answer. */
  status: number
  /** What the handler returned. */
  response: unknown
  /** The answer as the ledger keeps it for retries, read on demand; `undefined` for streams and bodies over the limit. */
  keep: () => Promise<Ledger.StoredResponse | undefined>
}

/** What a call's payment comes to after its handler: headers to add to the answer, or the answer withheld. */
export type Outcome = { headers: Record<string, string> } | { withheld: Response }

/** A request a scheme carries and lets through to the next one, with what a 402 says of it should nothing pay. */
export type Declined = { declined: { refused?: Refused | undefined; note?: string | undefined } }

/**
 * A payment scheme, as x402's scheme servers and mppx's methods are: what a request carries of it, its offer, and the
 * life of the payment it holds for one call (checked and held before the handler, settled or released after it). The
 * guard asks each scheme of its list in turn; the first that carries the request's payment holds it.
 */
export type Scheme<carried, held> = {
  /** The scheme's name, as offers name it (`exact`, `batch-settlement`, `upto`) or the extension's (`sign-in-with-x`). */
  name: string
  /** Its x402 v2 offer of a call, beside `exact` on EVM; `undefined` when it makes none for the call. */
  offer?: ((priced: Priced) => PaymentRequirements | undefined) | undefined
  /** The x402 extensions a 402 carries when this scheme offers the call: the same object every time. */
  extensions?: Record<string, unknown> | undefined
  /** An x402 extension new in every 402 of an entry it serves (a sign-in challenge); `undefined` for other entries. */
  challenge?: ((request: Request, entry: Catalog.Entry, now: Date) => Record<string, unknown> | undefined) | undefined
  /** The payment of this scheme the request carries, as far as it is decoded here; `undefined` when it carries none. */
  carries: (request: Request, entry: Catalog.Entry) => carried | undefined
  /**
   * Checks the payment and holds it for the call; a response answers the call instead (a refusal, the kept answer of a
   * retry); `declined` lets the next scheme try.
   */
  before: (carried: carried, call: Call) => Promise<held | Response | Declined>
  /** After the handler: settles a success (headers to add) or withholds its answer; releases the payment of a failure. */
  after: (held: held, handled: Handled, call: Call) => Promise<Outcome>
  /** Releases the payment of a call whose handler threw, and takes back the call's writes. */
  release: (held: held, reason: string) => Promise<void>
  /** The verified payer of the payment: the caller. */
  payer: (held: held) => Address
  /** Where the payment is recorded; `undefined` when nothing is paid. */
  holding: (held: held) => Holding | undefined
  /** Records one write of the call's handler with the payment, to take back should it not be paid; absent, none is. */
  record?: ((held: held, effect: Effect) => Promise<void>) | undefined
  /**
   * Hands the payment to an asynchronous job: once the handler answers (below 400) it is left to the job, unsettled.
   * The payment's ledger key and amount; absent when the scheme cannot wait (a voucher is redeemed with its call).
   */
  defer?: ((held: held, job: string) => { payer: Address; nonce: Hex; amount: bigint }) | undefined
}

/** Any scheme, whatever it carries and holds. */
// biome-ignore lint/suspicious/noExplicitAny: a list of schemes holds schemes of every shape.
export type AnyScheme = Scheme<any, any>

/** Whether `before` let the request through to the next scheme. */
export function isDeclined(result: unknown): result is Declined {
  return typeof result === 'object' && result !== null && 'declined' in result
}

/** The answer to a retry of a call that a live process is serving: retry shortly. */
export function serving(call: Pick<Call, 'problem'>): Response {
  return call.problem(
    new PaymentInProgressError('This paid call is being served right now; retry shortly to get its answer.'),
    { 'Retry-After': '1' },
  )
}

/** The 402 of a retry of a call whose settlement failed, with why (the ledger's reason): nothing was charged. */
export function settlementFailed(call: Pick<Call, 'refuse'>, reason: string | undefined): Response {
  return call.refuse({ reason: 'settlement_failed', message: reason ?? 'The settlement failed; nothing was charged.' })
}
