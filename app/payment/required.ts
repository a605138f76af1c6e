import * as Catalog from '../../core/Catalog.js'
import { PaymentRefusedError, PaymentRequiredError } from '../../core/Errors.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import * as Price from '../../core/Price.js'
import * as Cors from '../cors.js'
import type { Logger } from '../log.js'
import * as Problem from '../problem.js'
import * as RequestId from '../request-id.js'
import { problem } from './answers.js'
import { answer, type Compiled, compile, type offer } from './offer.js'
import type { AnyScheme, Priced, Refused } from './scheme.js'

/** Most offers and descriptions kept built; the oldest go first. */
const kept = 4_096

/**
 * The 402 of a paid call: `exact`'s offer and every other scheme's of its exact amount, and why a payment that came
 * with it was refused, if one did; `note` says more of a call that came with no payment (a good sign-in that entitles
 * to nothing). What is the same for every 402 of one offer is built once; the plain 402, every paid call's first
 * answer, is serialized once per offer, with a fresh challenge each time.
 */
export function required(parameters: required.Parameters): required.ReturnType {
  const { termsOf, secret, logger, resourceUrl, schemes, describe = () => ({}) } = parameters

  // What the 402s of one call URL say of it for indexes, built once.
  const descriptions = new Map<string, required.Described>()
  function describedOf(request: Request, entry: Catalog.Entry): required.Described {
    const key = `${Catalog.key(entry)} ${request.url}`
    const known = descriptions.get(key)
    if (known) return known
    const described = describe(request.url, entry)
    if (descriptions.size >= kept) descriptions.delete(descriptions.keys().next().value!)
    descriptions.set(key, described)
    return described
  }

  // A description's extensions with those of the schemes an offer names (EIP-2612 gas sponsoring), one object per pair.
  const extended = new WeakMap<Record<string, unknown>, WeakMap<required.Described, Record<string, unknown>>>()
  function extensionsOf(described: required.Described, offered: Offered): Record<string, unknown> | undefined {
    if (!offered.extensions) return described.extensions
    const byDescription = extended.get(offered.extensions) ?? new WeakMap()
    extended.set(offered.extensions, byDescription)
    const known = byDescription.get(described)
    if (known) return known
    const extensions = { ...described.extensions, ...offered.extensions }
    byDescription.set(described, extensions)
    return extensions
  }

  // What every 402 of one offer shares, by everything it depends on (the route and resource URL, the amount, a metered
  // maximum; not the query, which the resource leaves out), and the serialized plain 402 once one was answered.
  type Offered = {
    compiled: Compiled
    /** The extensions of the schemes that make an offer of it; `undefined` when none has any. */
    extensions: Record<string, unknown> | undefined
    /** The plain 402's body, and its headers but the challenge and request id, for the `PAYMENT-REQUIRED` they carry. */
    plain?: {
      problem: ReturnType<typeof Problem.template>
      paymentRequired: string
      headers: ReturnType<typeof Problem.fixedHeaders>
    }
  }
  const offers = new Map<string, Offered>()
  function offeredOf(request: Request, priced: Priced, described: required.Described): Offered {
    const { entry, amount, max } = priced
    const resource = resourceUrl(request)
    const key = `${Catalog.key(entry)} ${resource} ${amount} ${max ?? ''}`
    const known = offers.get(key)
    if (known) return known
    const offering = schemes.flatMap((scheme) => {
      const made = scheme.offer?.(priced)
      return made ? [{ made, extensions: scheme.extensions }] : []
    })
    const extensions = offering.some((scheme) => scheme.extensions)
      ? Object.assign({}, ...offering.map((scheme) => scheme.extensions))
      : undefined
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
        also: offering.map((scheme) => scheme.made),
      }),
      extensions,
    }
    if (offers.size >= kept) offers.delete(offers.keys().next().value!)
    offers.set(key, offered)
    return offered
  }

  /** What a 402 says when nothing was paid. */
  function requiredOf(entry: Catalog.Entry, amount: bigint): string {
    return `${Catalog.key(entry)} costs $${Price.fromAtomic(amount)} in USDC; pay with x402 or MPP.`
  }

  return (request, priced, refused, note) => {
    const { entry, amount } = priced
    const described = describedOf(request, entry)
    const now = new Date()
    // Metrics count this event: 402s by reason.
    logger.log('debug', 'payment_refused', {
      endpoint: Catalog.key(entry),
      reason: refused?.reason ?? 'payment_required',
    })
    const offered = offeredOf(request, priced, described)
    const extensions = extensionsOf(described, offered)
    const challenges = schemes.flatMap((scheme) => {
      const challenge = scheme.challenge?.(request, entry, now)
      return challenge ? [challenge] : []
    })
    if (!refused && !note && challenges.length === 0) {
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
                  new PaymentRequiredError(requiredOf(entry, amount), { details: { ...body, ...described.hints } }),
                ),
              paymentRequired: fixed['PAYMENT-REQUIRED'],
              headers: Problem.fixedHeaders({ ...fixed, ...Cors.headers }),
            }
      offered.plain = plain
      const requestId = RequestId.of(request)
      return new Response(plain.problem.render(Problem.instanceOf(request), requestId), {
        status: plain.problem.status,
        headers: plain.headers.with({
          'www-authenticate': challenge,
          ...(requestId === undefined ? {} : { [RequestId.header]: requestId }),
        }),
      })
    }
    const { headers, body } = answer(offered.compiled, {
      now,
      // The same object for the same call (its 402 header is kept with it); a challenge is new every time.
      extensions: challenges.length === 0 ? extensions : Object.assign({ ...extensions }, ...challenges),
      ...(refused ? { refusal: refused } : {}),
    })
    // One body serves both readers: RFC 9457 fields for people and tools, x402 v1 fields (the details) for v1 clients.
    const details = { ...body, ...described.hints }
    const error = refused
      ? new PaymentRefusedError(refused, { details })
      : new PaymentRequiredError(`${requiredOf(entry, amount)}${note ? ` ${note}` : ''}`, { details })
    return problem(request, error, headers)
  }
}

export declare namespace required {
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
    /** The terms of an entry's `exact` offer: the validity window is the entry's own where it has one. */
    termsOf: (entry: Catalog.Entry) => PaymentTerms
    /** Key that binds MPP challenge ids (HMAC). */
    secret: string
    /** Where events go. */
    logger: Logger
    /** Absolute URL of the requested resource, as offers name it. */
    resourceUrl: (request: Request) => string
    /** The schemes beside `exact`, whose offers and extensions the 402 carries in this order. */
    schemes: readonly AnyScheme[]
    /** What the 402 of a call says of it for indexes: service metadata of its `resource`, and extensions (bazaar). */
    describe?: ((url: string, entry: Catalog.Entry) => Described) | undefined
  }
  /** The 402 of `request`, priced, with why its payment was refused if one was, and `note` if nothing was paid. */
  type ReturnType = (request: Request, priced: Priced, refused?: Refused, note?: string) => Response
}
