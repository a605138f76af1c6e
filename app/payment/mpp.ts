import type { Challenge } from 'mppx'
import { evm, PaymentRequest } from 'mppx'
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
 * The challenges of one offer, built the way mppx's server builds them (`Challenge.fromMethod` then `serialize`):
 * the id is HMAC-SHA256 under `secret` over realm, method, intent, request, expires and opaque, so an edit to any of
 * them in the echo breaks the id. What does not change between two 402s of the offer (the canonical request, the
 * realm, the escaped description, the scope) is computed once here; each challenge then costs a random salt, one
 * native HMAC and a string join. `Challenge.deserialize` + `Challenge.verify` read them as mppx's own.
 */
export function challenges(parameters: challenges.Parameters): (now: Date) => { header: string; id: string } {
  const { terms, amount, resource, method, description, secret } = parameters
  const realm = realmOf(resource)
  const { name, intent } = evm.charge
  const serialized = PaymentRequest.serialize(request({ terms, amount }))
  // JCS of `{ _mppx_scope, salt }`: the keys in code-point order, the salt (a UUID) appended per challenge.
  const metaPrefix = `{${JSON.stringify(scopeKey)}:${JSON.stringify(scopeOf({ method, resource }))},${JSON.stringify(saltKey)}:"`
  const head = `${authParam('realm', realm)}, ${authParam('method', name)}, ${authParam('intent', intent)}, ${authParam('request', serialized)}`
  // A quoted auth-param cannot hold a line break (mppx throws on one).
  const described = description ? `, ${authParam('description', description.replace(/[\r\n]+/g, ' '))}` : ''
  const bound = `${realm}|${name}|${intent}|${serialized}|`
  return (now) => {
    // Whole seconds: the mppx client signs the expiry, in seconds, as the authorization's `validBefore`.
    const expires = new Date((Math.floor(now.getTime() / 1000) + terms.maxTimeoutSeconds) * 1000).toISOString()
    // The evm method derives the authorization's nonce from the challenge, so every challenge must be new: without
    // the salt, two offers of one route within one second would be the same challenge and the second payment a replay.
    const opaque = Buffer.from(`${metaPrefix}${crypto.randomUUID()}"}`).toString('base64url')
    const id = new Bun.CryptoHasher('sha256', secret).update(`${bound}${expires}||${opaque}`).digest('base64url')
    return {
      id,
      // The id and opaque are base64url and the expiry ISO 8601: nothing in them to escape.
      header: `Payment id="${id}", ${head}${described}, expires="${expires}", opaque="${opaque}"`,
    }
  }
}

/** An auth-param as mppx writes it: quoted, with backslashes and quotes escaped and non-Latin-1 as `\uXXXX`. */
function authParam(name: string, value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[\u0100-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return `${name}="${escaped}"`
}

export declare namespace challenges {
  type Parameters = request.Parameters &
    scopeOf.Parameters & {
      /** What the payment buys, shown to the payer (not bound by the id). */
      description?: string | undefined
      /** HMAC key that binds challenge ids (mppx's `secretKey`). */
      secret: string
    }
}
