import { Challenge, evm, PaymentRequest } from 'mppx'
import { formatUnits } from 'viem'
import { chainIdOf, type PaymentTerms } from '../../core/PaymentTerms.js'

/** An MPP `evm` charge request in canonical form: atomic amount, checksummed addresses, `methodDetails`. */
export type ChargeRequest = ReturnType<typeof evm.charge.schema.request.parse>

/** An MPP challenge of this gateway: method `evm`, intent `charge`. */
export type ChargeChallenge = Challenge.Challenge<ChargeRequest, 'charge', 'evm'>

// mppx's server reserves this `meta` key for route scope; reusing it keeps our challenges readable by mppx tooling.
/** Key of the route scope in a challenge's `meta` (on the wire: `opaque`). */
export const scopeKey = '_mppx_scope'

/** The realm of a resource: its host name, as mppx's server derives it by default. */
export function realmOf(resource: string): string {
  return new URL(resource).hostname
}

/** The route a challenge is bound to: `"<METHOD> <path>"`. */
export function scopeOf(parameters: scopeOf.Parameters): string {
  return `${parameters.method.toUpperCase()} ${new URL(parameters.resource).pathname}`
}

export declare namespace scopeOf {
  type Parameters = {
    /** HTTP method of the paid call. */
    method: string
    /** Absolute URL of the resource. */
    resource: string
  }
}

/** Key of a challenge's random salt in its `meta`. */
export const saltKey = 'salt'

/**
 * The route scope an echoed challenge's `opaque` names, or `undefined` when it names none. The HMAC of the
 * challenge id covers `opaque`, so a verified challenge's scope is the one this gateway issued.
 */
export function scopeFromOpaque(opaque: string | undefined): string | undefined {
  if (opaque === undefined) return undefined
  try {
    const meta = PaymentRequest.deserialize(opaque) as Record<string, unknown>
    return typeof meta[scopeKey] === 'string' ? meta[scopeKey] : undefined
  } catch {
    return undefined
  }
}

/** The `evm` charge request of one offer, in the input form mppx's method schema takes. */
function input(parameters: request.Parameters) {
  const { terms, amount } = parameters
  return {
    // mppx takes display units and converts back with parseUnits; formatUnits round-trips a bigint exactly.
    amount: formatUnits(amount, terms.asset.decimals),
    chainId: chainIdOf(terms.network),
    currency: terms.asset.address,
    credentialTypes: ['authorization' as const],
    decimals: terms.asset.decimals,
    recipient: terms.payTo,
  }
}

/** The canonical `evm` charge request of one offer, as it appears (base64url JCS) in the challenge. */
export function request(parameters: request.Parameters): ChargeRequest {
  return PaymentRequest.fromMethod(evm.charge, input(parameters))
}

export declare namespace request {
  type Parameters = {
    /** Network, asset and payee. */
    terms: PaymentTerms
    /** Price in atomic units. */
    amount: bigint
  }
}

/**
 * The challenge of one offer, built the way mppx's server builds it: the id is HMAC-SHA256 under `secret` over
 * realm, method, intent, request, expires and opaque, so an edit to any of them in the echo breaks the id.
 */
export function challenge(parameters: challenge.Parameters): ChargeChallenge {
  const { terms, amount, resource, method, description, secret, now } = parameters
  // Whole seconds: the mppx client signs the expiry, in seconds, as the authorization's `validBefore`.
  const expires = new Date((Math.floor(now.getTime() / 1000) + terms.maxTimeoutSeconds) * 1000)
  return Challenge.fromMethod(evm.charge, {
    secretKey: secret,
    realm: realmOf(resource),
    request: input({ terms, amount }),
    expires,
    // The evm method derives the authorization's nonce from the challenge, so every challenge must be new: without
    // the salt, two offers of one route within one second would be the same challenge and the second payment a replay.
    meta: { [scopeKey]: scopeOf({ method, resource }), [saltKey]: crypto.randomUUID() },
    // A quoted auth-param cannot hold a line break (mppx throws on one).
    ...(description ? { description: description.replace(/[\r\n]+/g, ' ') } : {}),
  }) as ChargeChallenge
}

export declare namespace challenge {
  type Parameters = request.Parameters &
    scopeOf.Parameters & {
      /** What the payment buys, shown to the payer (not bound by the id). */
      description?: string | undefined
      /** HMAC key that binds challenge ids (mppx's `secretKey`). */
      secret: string
      /** Current time; the challenge expires `terms.maxTimeoutSeconds` later. */
      now: Date
    }
}
