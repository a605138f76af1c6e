import { Challenge, Credential, evm, PaymentRequest } from 'mppx'
import { getAddress, type Hex, isAddress, size } from 'viem'
import { type RecoverPublicKey, recover, type Signed } from '../../core/Authorization.js'
import type { Refusal } from '../../core/Errors.js'
import { echo } from '../../core/internal/echo.js'
import type { Protocol } from '../../core/Ledger.js'
import { chainIdOf, type PaymentTerms, toDomain } from '../../core/PaymentTerms.js'
import * as Mpp from './mpp.js'
import * as Payload from './payload.js'
import { v1NetworkOf } from './x402.js'

// Matches the x402 facilitators: an authorization must outlive the settlement transaction by a few seconds.
/** Seconds an authorization must still be valid for after now. */
const settlementMarginSeconds = 6n

/**
 * Reads the payment a request carries (`PAYMENT-SIGNATURE`, `X-PAYMENT` or `Authorization: Payment`, in that order)
 * and checks everything that needs no chain: shape, scheme, network, asset, payee, exact amount, validity window,
 * MPP challenge binding and the EIP-712 signature. `payment` is `undefined` when the request carries none.
 */
export async function decode(parameters: decode.Parameters): Promise<decode.ReturnType> {
  const { headers } = parameters
  const v2 = headers.get('payment-signature')
  if (v2 !== null) return fromV2(v2, parameters)
  const v1 = headers.get('x-payment')
  if (v1 !== null) return fromV1(v1, parameters)
  const authorization = headers.get('authorization')
  const credential = authorization === null ? null : Credential.extractPaymentScheme(authorization)
  if (credential !== null) return fromMpp(credential, parameters)
  return { ok: true, payment: undefined }
}

export declare namespace decode {
  type Parameters = {
    /** Request headers. */
    headers: Headers
    /** Network, asset and payee of the offer. */
    terms: PaymentTerms
    /** Exact price in atomic units. */
    amount: bigint
    /** Absolute URL of the resource, as the offer named it. */
    resource: string
    /** HTTP method of the paid call. */
    method: string
    /** HMAC key that binds MPP challenge ids. */
    secret: string
    /** Current time. */
    now: Date
    /** secp256k1 public-key recovery (native where installed). @default the pure-JS one */
    recoverPublicKey?: RecoverPublicKey | undefined
  }
  /** A payment that passed every check made without the chain. */
  type Payment = {
    /** Protocol it arrived in. */
    protocol: Protocol
    /** The signed authorization: addresses checksummed, nonce lower-case. */
    authorization: Signed
    /** Whether the signature was recovered here; `false` for smart-wallet signatures left to the chain. */
    signatureChecked: boolean
    /** Id of the answered MPP challenge (MPP only). */
    challengeId?: string | undefined
    /** The decoded header: x402 PaymentPayload or MPP credential. */
    raw: unknown
  }
  type ReturnType =
    | {
        /** Checks passed. */
        ok: true
        /** The payment. */
        payment: Payment
      }
    | {
        /** Nothing to check. */
        ok: true
        /** No payment header. */
        payment: undefined
      }
    | {
        /** Refused. */
        ok: false
        /** Stable reason. */
        reason: Refusal
        /** One sentence for people. */
        message: string
      }
}

/** A refusal. Every caller string a message quotes goes through `echo`, so none is repeated at length. */
function refuse(reason: Refusal, message: string) {
  return { ok: false as const, reason, message }
}

/** Whether `value` is an address equal to `expected`, in any letter case. */
function sameAddress(value: string, expected: string): boolean {
  return isAddress(value, { strict: false }) && value.toLowerCase() === expected.toLowerCase()
}

/** The EIP-3009 fields and signature every protocol carries, as strings on the wire. */
type Wire = Record<'from' | 'to' | 'value' | 'validAfter' | 'validBefore' | 'nonce' | 'signature', string>

/** Checks an authorization against the offer; the common ground of the three protocols. */
async function check(
  wire: Wire,
  parameters: decode.Parameters,
  payment: Omit<decode.Payment, 'authorization' | 'signatureChecked'>,
): Promise<decode.ReturnType> {
  const { terms, amount, now } = parameters
  const authorization = toSigned(wire)
  if (!authorization)
    return refuse('malformed_payment', 'The authorization has a field that is not an address, integer or hex value.')
  if (!sameAddress(authorization.to, terms.payTo))
    return refuse(
      'wrong_payee',
      `The authorization pays ${echo(authorization.to)}; this offer pays ${getAddress(terms.payTo)}.`,
    )
  if (authorization.value !== amount)
    return refuse(
      'amount_mismatch',
      `The authorization is for ${echo(String(authorization.value))} atomic units; this call costs exactly ${amount}.`,
    )
  const seconds = BigInt(Math.floor(now.getTime() / 1000))
  if (authorization.validAfter > seconds)
    return refuse(
      'not_yet_valid',
      `The authorization is valid only after ${echo(String(authorization.validAfter))} (unix seconds).`,
    )
  if (authorization.validBefore < seconds + settlementMarginSeconds)
    return refuse('expired', `The authorization expired at ${echo(String(authorization.validBefore))} (unix seconds).`)
  // A 65-byte signature is an EOA's and recovers here; anything else (EIP-1271, EIP-6492) is for the chain to judge.
  if (size(authorization.signature) !== 65)
    return { ok: true, payment: { ...payment, authorization, signatureChecked: false } }
  const signer = await recover(authorization, toDomain(terms), { recoverPublicKey: parameters.recoverPublicKey })
  if (signer === undefined || !sameAddress(signer, authorization.from))
    return refuse(
      'invalid_signature',
      `The signature does not recover to ${echo(authorization.from)} under the token's EIP-712 domain.`,
    )
  return { ok: true, payment: { ...payment, authorization, signatureChecked: true } }
}

/** The wire authorization with typed fields, or `undefined` when a field does not parse. */
function toSigned(wire: Wire): Signed | undefined {
  const integer = /^\d{1,78}$/
  if (![wire.value, wire.validAfter, wire.validBefore].every((value) => integer.test(value))) return undefined
  if (!isAddress(wire.from, { strict: false }) || !isAddress(wire.to, { strict: false })) return undefined
  if (!/^0x[0-9a-fA-F]{64}$/.test(wire.nonce) || !/^0x([0-9a-fA-F]{2})+$/.test(wire.signature)) return undefined
  return {
    from: getAddress(wire.from),
    to: getAddress(wire.to),
    value: BigInt(wire.value),
    validAfter: BigInt(wire.validAfter),
    validBefore: BigInt(wire.validBefore),
    // One bytes32 on chain, so one ledger key: the letter case of the hex must not make a second authorization.
    nonce: wire.nonce.toLowerCase() as Hex,
    signature: wire.signature as Hex,
  }
}

/** An x402 v2 `PAYMENT-SIGNATURE` read as a payment payload, whatever its scheme, or why it is none. */
export function readV2(header: string): { ok: true; data: Payload.V2 } | ReturnType<typeof refuse> {
  const raw = Payload.fromBase64Json(header)
  if (raw === undefined) return refuse('malformed_payment', 'PAYMENT-SIGNATURE is not base64-encoded JSON.')
  if (!Payload.v2(raw)) return refuse('malformed_payment', 'PAYMENT-SIGNATURE is not an x402 v2 PaymentPayload.')
  return { ok: true, data: raw }
}

/** Reads an x402 v2 `PAYMENT-SIGNATURE`. */
async function fromV2(header: string, parameters: decode.Parameters): Promise<decode.ReturnType> {
  const { terms } = parameters
  const read = readV2(header)
  if (!read.ok) return read
  const raw = read.data
  const { accepted, payload } = raw
  if (accepted.scheme !== 'exact')
    return refuse('malformed_payment', `Scheme ${echo(accepted.scheme)} is not offered; pay with exact.`)
  if (accepted.network !== terms.network)
    return refuse('wrong_network', `The payment is for ${echo(accepted.network)}; this offer is on ${terms.network}.`)
  if (!sameAddress(accepted.asset, terms.asset.address))
    return refuse(
      'wrong_asset',
      `The payment is in ${echo(accepted.asset)}; this offer is in ${getAddress(terms.asset.address)}.`,
    )
  if (!Payload.exactEip3009(payload))
    return refuse('malformed_payment', 'The payload is not an EIP-3009 authorization with its signature.')
  return check({ ...payload.authorization, signature: payload.signature }, parameters, {
    protocol: 'x402-v2',
    raw,
  })
}

/** Reads an x402 v1 `X-PAYMENT`. */
async function fromV1(header: string, parameters: decode.Parameters): Promise<decode.ReturnType> {
  const { terms } = parameters
  // v1 uses the same encoding as v2 (standard base64 of JSON).
  const raw = Payload.fromBase64Json(header)
  if (raw === undefined) return refuse('malformed_payment', 'X-PAYMENT is not base64-encoded JSON.')
  if (!Payload.v1(raw)) return refuse('malformed_payment', 'X-PAYMENT is not an x402 v1 PaymentPayload.')
  const { scheme, network, payload } = raw
  if (scheme !== 'exact') return refuse('malformed_payment', `Scheme ${echo(scheme)} is not offered; pay with exact.`)
  const expected = v1NetworkOf(terms.network)
  if (expected === undefined)
    return refuse('wrong_network', `x402 v1 has no name for ${terms.network}; pay with x402 v2 or MPP.`)
  if (network !== expected)
    return refuse('wrong_network', `The payment is for ${echo(network)}; this offer is on ${expected}.`)
  if (!Payload.exactEip3009(payload))
    return refuse('malformed_payment', 'The payload is not an EIP-3009 authorization with its signature.')
  return check({ ...payload.authorization, signature: payload.signature }, parameters, {
    protocol: 'x402-v1',
    raw,
  })
}

/** Reads an MPP `Authorization: Payment` credential and checks that it answers a live challenge of this route. */
async function fromMpp(header: string, parameters: decode.Parameters): Promise<decode.ReturnType> {
  const { terms, amount, resource, method, secret, now } = parameters
  let credential: ReturnType<typeof Credential.deserialize>
  try {
    credential = Credential.deserialize(header)
  } catch {
    return refuse('malformed_payment', 'The Payment credential is not base64url JSON of a credential.')
  }
  const { challenge } = credential
  if (!Challenge.verify(challenge, { secretKey: secret }))
    return refuse('challenge_mismatch', 'The challenge was not issued by this gateway, or was altered.')
  if (challenge.method !== evm.charge.name || challenge.intent !== evm.charge.intent)
    return refuse(
      'challenge_mismatch',
      `The challenge is for ${echo(challenge.method)}/${echo(challenge.intent)}; this offer is evm/charge.`,
    )
  if (challenge.realm !== Mpp.realmOf(resource))
    return refuse('challenge_mismatch', `The challenge is for realm ${echo(challenge.realm)}.`)
  if (Mpp.scopeFromOpaque(challenge.opaque) !== Mpp.scopeOf({ method, resource }))
    return refuse(
      'challenge_mismatch',
      `The challenge was issued for another route than ${Mpp.scopeOf({ method, resource })}.`,
    )
  const mismatch = requestMismatch(challenge.request, Mpp.request({ terms, amount }))
  if (mismatch !== undefined) return refuse('challenge_mismatch', mismatch)
  // Fail closed, as mppx's server does: a challenge without an expiry is not one of ours.
  if (challenge.expires === undefined) return refuse('challenge_mismatch', 'The challenge has no expiry.')
  if (new Date(challenge.expires).getTime() <= now.getTime())
    return refuse('expired', `The challenge expired at ${echo(challenge.expires)}; ask for a new one.`)

  const payload = credential.payload
  if (!Payload.mppAuthorization(payload))
    return refuse('malformed_payment', 'The credential payload is not an EIP-3009 authorization.')
  const { type: _, ...wire } = payload
  // The evm method spec binds the signature to the challenge through the nonce: keccak256(id || realm).
  if (wire.nonce.toLowerCase() !== evm.challengeHash(challenge).toLowerCase())
    return refuse('challenge_mismatch', 'The authorization nonce is not the hash of the challenge it answers.')
  if (
    credential.source !== undefined &&
    credential.source !== evm.toSource({ address: getAddress(wire.from), chainId: chainIdOf(terms.network) })
  )
    return refuse('malformed_payment', `The credential source ${echo(credential.source)} is not the payer.`)
  return check(wire, parameters, { protocol: 'mpp', challengeId: challenge.id, raw: credential })
}

/** The first economic field where an echoed request differs from this offer's, as a sentence; `undefined` if none. */
function requestMismatch(echoed: Record<string, unknown>, expected: Mpp.ChargeRequest): string | undefined {
  const details = (echoed.methodDetails ?? {}) as Record<string, unknown>
  if (echoed.amount !== expected.amount)
    return `The challenge is for ${echo(String(echoed.amount))} atomic units; this call costs ${expected.amount}.`
  if (typeof echoed.recipient !== 'string' || !sameAddress(echoed.recipient, expected.recipient))
    return `The challenge pays ${echo(String(echoed.recipient))}; this offer pays ${expected.recipient}.`
  if (typeof echoed.currency !== 'string' || !sameAddress(echoed.currency, expected.currency))
    return `The challenge is in ${echo(String(echoed.currency))}; this offer is in ${expected.currency}.`
  if (details.chainId !== expected.methodDetails.chainId)
    return `The challenge is on chain ${echo(String(details.chainId))}; this offer is on ${expected.methodDetails.chainId}.`
  if (PaymentRequest.serialize(echoed) !== PaymentRequest.serialize(expected))
    return 'The challenge request differs from this offer.'
  return undefined
}
