import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import { StrKey } from '@stellar/stellar-sdk/base'
import * as Address from '../../core/Address.js'
import * as Units from '../../core/Units.js'

/** Most operations one Stellar transaction may hold (a protocol limit), so most recipients of one batch. */
export const maxOperations = 100

/** Largest amount of one payment, in stroops: a signed 64-bit integer on the ledger. */
export const maxStroops = 2n ** 63n - 1n

/** Whether `value` is a Stellar secret seed: `S...`, 56 base32 characters, valid checksum. */
export function isSecretSeed(value: string): boolean {
  return value.length === 56 && StrKey.isValidEd25519SecretSeed(value)
}

/** Whether `value` is an account a payment can go to: `G...` or a muxed `M...`, valid checksum. */
export function isDestination(value: string): boolean {
  return Address.validateStellar(value).valid
}

/** A positive decimal XLM amount (at most 7 decimals) in stroops, or why it is not one. */
export function parseAmount(value: string): { ok: true; stroops: bigint } | { ok: false; message: string } {
  let stroops: bigint
  try {
    stroops = Units.toAtomic(value, 'xlm')
  } catch (error) {
    return { ok: false, message: (error as Error).message.replace(/^amount: /, '') }
  }
  if (stroops === 0n) return { ok: false, message: 'must be greater than 0' }
  if (stroops > maxStroops)
    return { ok: false, message: 'exceeds the largest amount one Stellar payment can carry (922337203685.4775807 XLM)' }
  return { ok: true, stroops }
}

// Checked by the route schema, so malformed input is a 400 before any payment is asked for. The messages name the
// format, never the value: a secret that fails its check is never echoed.
FormatRegistry.Set('stellar-secret-seed', isSecretSeed)
FormatRegistry.Set('stellar-destination', isDestination)
FormatRegistry.Set('xlm-amount', (value) => parseAmount(value).ok)

/** Body of `POST /api/v1/stellar/batch`. */
export const BatchBody = Type.Object(
  {
    sourceSecret: Type.String({
      minLength: 56,
      maxLength: 56,
      format: 'stellar-secret-seed',
      description:
        'Secret seed (S..., 56 characters) of the paying account. Used in memory to sign this one transaction; never logged, stored or echoed.',
    }),
    recipients: Type.Array(
      Type.String({
        maxLength: 69,
        format: 'stellar-destination',
        description: 'Stellar account (G...) or muxed account (M...).',
      }),
      {
        minItems: 1,
        maxItems: maxOperations,
        description: `Accounts to pay, 1 to ${maxOperations}; parallel to amounts. Each must already exist.`,
      },
    ),
    amounts: Type.Array(
      Type.String({
        maxLength: 40,
        format: 'xlm-amount',
        description: 'Native XLM as a decimal string, greater than 0, at most 7 decimals, e.g. "12.5".',
      }),
      { minItems: 1, maxItems: maxOperations, description: 'XLM to pay each recipient, parallel to recipients.' },
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/stellar/batch`. */
export type BatchBody = Static<typeof BatchBody>

/** Body of `POST /api/v1/stellar/estimate`. */
export const EstimateBody = Type.Object(
  {
    recipientCount: Type.Integer({
      minimum: 1,
      maximum: maxOperations,
      description: `Number of recipients, 1 to ${maxOperations}: one payment operation each, in one transaction.`,
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/stellar/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
