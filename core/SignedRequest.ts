import { Type } from '@sinclair/typebox'
import { type Address, type Hex, isAddressEqual, recoverTypedDataAddress, type TypedDataDefinition, toHex } from 'viem'

/**
 * A free request that acts for an address carries that address's proof: an EIP-712 signature of the request's typed
 * data, which holds a `nonce` (used once; the caller's store keeps the used ones) and an `expiry` (Unix seconds, at
 * most an hour or so ahead). A request sent without a signature is answered with the typed data to sign and a fresh
 * nonce and expiry, and does nothing else.
 */

/**
 * The envelope's request fields, for a route's schema: `nonce`, `expiry` and `signature`, each optional (a request
 * without `signature` asks for the typed data), described for the `signer` who signs `primaryType` (see `docs`).
 */
export function fields(parameters: { signer: string; primaryType: string; docs: string }) {
  const { signer, primaryType, docs } = parameters
  return {
    nonce: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,77}$',
        description: `A uint256 the ${signer} never used before with this gateway; a used one is refused (409).`,
      }),
    ),
    expiry: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Unix time in seconds after which the signature is refused; at most an hour ahead.',
      }),
    ),
    signature: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{130}$',
        description: `The ${signer}'s EIP-712 signature of \`${primaryType}\` (see ${docs}). Without it the answer is the typed data to sign, with the nonce and expiry to send back.`,
      }),
    ),
  }
}

/** A fresh envelope: a random uint256 nonce (decimal) and an expiry `seconds` after `nowSeconds`. */
export function envelope(parameters: { nowSeconds: number; seconds: number }): { nonce: string; expiry: number } {
  const nonce = BigInt(toHex(crypto.getRandomValues(new Uint8Array(16)))).toString()
  return { nonce, expiry: parameters.nowSeconds + parameters.seconds }
}

/**
 * Checks a signed request: its `expiry` ahead of now by at most `maxSeconds`, and `signature` over `typedData`
 * recovering to `signer`. Refusals are data; the nonce is the caller's to spend.
 */
export async function verify(parameters: verify.Parameters): Promise<verify.ReturnType> {
  const { typedData, signature, signer, expiry, nowSeconds, maxSeconds } = parameters
  if (expiry <= nowSeconds)
    return { ok: false, reason: 'expired', field: 'expiry', message: `has passed (now is ${nowSeconds})` }
  if (expiry > nowSeconds + maxSeconds)
    return { ok: false, reason: 'expired', field: 'expiry', message: `is more than ${maxSeconds} s ahead` }
  let recovered: Address
  try {
    recovered = await recoverTypedDataAddress({ ...typedData, signature })
  } catch {
    return { ok: false, reason: 'malformed', field: 'signature', message: 'is not a valid ECDSA signature' }
  }
  if (!isAddressEqual(recovered, signer))
    return {
      ok: false,
      reason: 'wrong_signer',
      field: 'signature',
      message: `is not by ${signer}: another key signed it`,
    }
  return { ok: true }
}

export declare namespace verify {
  type Parameters = {
    /** What was signed (its message holds the nonce and the expiry). */
    typedData: TypedDataDefinition
    /** The 65-byte signature sent. */
    signature: Hex
    /** The address the request acts for, which must have signed it. */
    signer: Address
    /** The request's expiry, Unix seconds. */
    expiry: number
    /** Unix time now, in seconds. */
    nowSeconds: number
    /** Longest an expiry may be ahead of now, in seconds. */
    maxSeconds: number
  }
  type ReturnType =
    | { ok: true }
    | {
        /** Refused. */
        ok: false
        /** `expired`: outside its window; `malformed`: no signature recovers; `wrong_signer`: another key signed. */
        reason: 'expired' | 'malformed' | 'wrong_signer'
        /** The field at fault. */
        field: 'expiry' | 'signature'
        /** One sentence about that field. */
        message: string
      }
}
