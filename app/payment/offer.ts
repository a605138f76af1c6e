import { encodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import type { Refusal } from '../../core/Errors.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { paymentIdentifier, paymentIdentifierDeclaration } from './idempotency.js'
import * as Mpp from './mpp.js'
import { type RequirementsV1, requirements, requirementsV1 } from './x402.js'

/**
 * The 402 of a paid call, every protocol at once: x402 v2 in `PAYMENT-REQUIRED`, MPP in `WWW-Authenticate`, and a
 * body x402 v1 clients read. With a `refusal`, its reason is the `error` of both x402 versions. What is the same
 * for every 402 of one offer (route, amount, terms) is built by {@link compile}; a caller that answers the same offer
 * again keeps that and calls {@link answer}, so each 402 then costs one fresh MPP challenge.
 */
export function offer(parameters: offer.Parameters): offer.ReturnType {
  return answer(compile(parameters), parameters)
}

/** The 402 of a compiled offer: a fresh MPP challenge, and the refusal's reason as the x402 `error` when one is given. */
export function answer(
  offered: Compiled,
  parameters: Pick<offer.Parameters, 'now' | 'refusal' | 'extensions'>,
): offer.ReturnType {
  const { now, refusal, extensions } = parameters
  const challenge = offered.challenge(now)
  return {
    status: 402,
    headers: {
      'PAYMENT-REQUIRED': refusal
        ? encodePaymentRequiredHeader(offered.paymentRequired(refusal.reason, extensions))
        : offered.header(extensions),
      'WWW-Authenticate': challenge.header,
      'Cache-Control': 'no-store',
    },
    body: {
      x402Version: 1,
      // The wording of the reference v1 middleware when nothing was paid.
      error: refusal?.reason ?? 'X-PAYMENT header is required',
      accepts: offered.v1,
    },
    challengeId: challenge.id,
  }
}

/** What every 402 of one offer shares. */
export type Compiled = {
  /** The x402 v2 offer with `error` set and the extensions beside the payment identifier's. */
  paymentRequired: (error: string, extensions: Record<string, unknown> | undefined) => PaymentRequired
  /** `PAYMENT-REQUIRED` when nothing was paid, with these extensions (kept per extensions object). */
  header: (extensions: Record<string, unknown> | undefined) => string
  /** The x402 v1 offer, if v1 names the network. */
  v1: RequirementsV1[]
  /** A fresh MPP challenge. */
  challenge: (now: Date) => { header: string; id: string }
}

/** The part of an offer that is the same for every 402 of it. */
export function compile(parameters: Omit<offer.Parameters, 'now' | 'refusal' | 'extensions'>): Compiled {
  const { terms, amount, resource, description, mimeType, method, secret, also = [], service = {} } = parameters
  const paymentRequired = (error: string, extensions: Record<string, unknown> | undefined): PaymentRequired => ({
    x402Version: 2,
    error,
    resource: { url: resource, description, mimeType, ...service },
    accepts: [requirements({ terms, amount }), ...also],
    // Retries of one paid call may name it by an id, answered from the ledger and charged once.
    extensions: { [paymentIdentifier]: paymentIdentifierDeclaration, ...extensions },
  })
  const v1 = requirementsV1({ terms, amount, resource, description, mimeType, method })
  // The wording of the x402 v2 HTTP transport spec when nothing was paid.
  const required = 'PAYMENT-SIGNATURE header is required'
  const plain = encodePaymentRequiredHeader(paymentRequired(required, undefined))
  const headers = new WeakMap<object, string>()
  return {
    paymentRequired,
    header(extensions) {
      if (!extensions) return plain
      const known = headers.get(extensions)
      if (known) return known
      const header = encodePaymentRequiredHeader(paymentRequired(required, extensions))
      headers.set(extensions, header)
      return header
    },
    v1: v1 ? [v1] : [],
    challenge: Mpp.challenges({ terms, amount, resource, method, description, secret }),
  }
}

export declare namespace offer {
  /** How indexes name and show the service selling the resource (x402 `ResourceInfo`). */
  type Service = {
    /** Name of the service, at most 32 printable ASCII characters. */
    serviceName?: string | undefined
    /** At most 5 tags of at most 32 characters. */
    tags?: string[] | undefined
    /** Absolute https URL of the service's icon. */
    iconUrl?: string | undefined
  }
  type Parameters = {
    /** Network, asset and payee. */
    terms: PaymentTerms
    /** Price in atomic units. */
    amount: bigint
    /** Absolute URL of the resource. */
    resource: string
    /** What the payment buys. */
    description: string
    /** Media type of the paid response. */
    mimeType: string
    /** HTTP method of the paid call; binds the MPP challenge to the route and names the v1 input shape. */
    method: string
    /** HMAC key that binds MPP challenge ids. */
    secret: string
    /** Current time; MPP challenges expire `terms.maxTimeoutSeconds` later. */
    now: Date
    /** Service metadata of the x402 v2 `resource`. */
    service?: Service | undefined
    /**
     * Further x402 v2 extensions: the bazaar's discovery info, the sign-in challenge, what `upto` needs (EIP-2612 gas
     * sponsoring). The header is kept per extensions object, so pass the same object for the same extensions (a fresh
     * one for a per-call challenge).
     */
    extensions?: Record<string, unknown> | undefined
    /**
     * Further x402 v2 offers beside `exact` on EVM (the payment channel's `batch-settlement`, `exact` on Solana,
     * metered `upto`).
     */
    also?: PaymentRequirements[] | undefined
    /** Why a payment that came with the request was refused, when one was. */
    refusal?:
      | {
          /** Stable reason. */
          reason: Refusal
          /** One sentence for people. */
          message: string
        }
      | undefined
  }
  /** The x402 v1 402 body. */
  type Body = {
    /** Always 1. */
    x402Version: 1
    /** `X-PAYMENT header is required`, or the refusal reason. */
    error: string
    /** The v1 offer; empty when v1 has no name for the network. */
    accepts: RequirementsV1[]
  }
  type ReturnType = {
    /** Always 402. */
    status: 402
    /** `PAYMENT-REQUIRED`, `WWW-Authenticate` and `Cache-Control`. */
    headers: { 'PAYMENT-REQUIRED': string; 'WWW-Authenticate': string; 'Cache-Control': string }
    /** The x402 v1 body (JSON). */
    body: Body
    /** Id of the MPP challenge, for a problem document's `challengeId`. */
    challengeId: string
  }
}
