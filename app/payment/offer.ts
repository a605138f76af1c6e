import { encodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { Challenge } from 'mppx'
import type { Refusal } from '../../core/Errors.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { paymentIdentifier, paymentIdentifierDeclaration } from './idempotency.js'
import * as Mpp from './mpp.js'
import { type RequirementsV1, requirements, requirementsV1 } from './x402.js'

/**
 * The 402 of a paid call, every protocol at once: x402 v2 in `PAYMENT-REQUIRED`, MPP in `WWW-Authenticate`, and a
 * body x402 v1 clients read. With a `refusal`, its reason is the `error` of both x402 versions.
 */
export function offer(parameters: offer.Parameters): offer.ReturnType {
  const {
    terms,
    amount,
    resource,
    description,
    mimeType,
    method,
    secret,
    now,
    refusal,
    also = [],
    extensions,
  } = parameters
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    // The wording of the x402 v2 HTTP transport spec when nothing was paid.
    error: refusal?.reason ?? 'PAYMENT-SIGNATURE header is required',
    resource: { url: resource, description, mimeType },
    accepts: [requirements({ terms, amount }), ...also],
    // Retries of one paid call may name it by an id, answered from the ledger and charged once.
    extensions: { [paymentIdentifier]: paymentIdentifierDeclaration, ...extensions },
  }
  const v1 = requirementsV1({ terms, amount, resource, description, mimeType, method })
  const challenge = Mpp.challenge({ terms, amount, resource, method, description, secret, now })
  return {
    status: 402,
    headers: {
      'PAYMENT-REQUIRED': encodePaymentRequiredHeader(paymentRequired),
      'WWW-Authenticate': Challenge.serialize(challenge),
      'Cache-Control': 'no-store',
    },
    body: {
      x402Version: 1,
      // The wording of the reference v1 middleware when nothing was paid.
      error: refusal?.reason ?? 'X-PAYMENT header is required',
      accepts: v1 ? [v1] : [],
    },
    challengeId: challenge.id,
  }
}

export declare namespace offer {
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
    /** Further x402 v2 offers beside `exact` (the payment channel's `batch-settlement`, metered `upto`). */
    also?: PaymentRequirements[] | undefined
    /** Further x402 v2 extensions those offers need (`upto`'s EIP-2612 gas sponsoring). */
    extensions?: Record<string, unknown> | undefined
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
    headers: Record<string, string>
    /** The x402 v1 body (JSON). */
    body: Body
    /** Id of the MPP challenge, for a problem document's `challengeId`. */
    challengeId: string
  }
}
