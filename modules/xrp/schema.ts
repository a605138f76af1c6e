import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import { decodeSeed } from 'xrpl'
import * as Address from '../../core/Address.js'
import * as Units from '../../core/Units.js'

/** Most recipients of one batch: one Payment transaction each, submitted in sequence. */
export const maxRecipients = 100

/** Largest amount of one payment, in drops: all the XRP there is (10^11 XRP). */
export const maxDrops = 10n ** 17n

/** Whether `value` is an XRP Ledger secret seed: a secp256k1 family seed (`s...`) or an ed25519 seed (`sEd...`), valid checksum. */
export function isSecretSeed(value: string): boolean {
  if (!/^s[1-9A-HJ-NP-Za-km-z]{24,34}$/.test(value)) return false
  try {
    decodeSeed(value)
    return true
  } catch {
    return false
  }
}

/** Whether `value` is an account a payment can go to: a classic address (`r...`) or an X-address, valid checksum. */
export function isDestination(value: string): boolean {
  return Address.validateXrp(value).valid
}

/** A positive decimal XRP amount (at most 6 decimals) in drops, or why it is not one. */
export function parseAmount(value: string): { ok: true; drops: bigint } | { ok: false; message: string } {
  let drops: bigint
  try {
    drops = Units.toAtomic(value, 'xrp')
  } catch (error) {
    return { ok: false, message: (error as Error).message.replace(/^amount: /, '') }
  }
  if (drops === 0n) return { ok: false, message: 'must be greater than 0' }
  if (drops > maxDrops) return { ok: false, message: 'exceeds all the XRP there is (100000000000 XRP)' }
  return { ok: true, drops }
}

// Checked by the route schema, so malformed input is a 400 before any payment is asked for. The messages name the
// format, never the value: a secret that fails its check is never echoed.
FormatRegistry.Set('xrp-secret-seed', isSecretSeed)
FormatRegistry.Set('xrp-destination', isDestination)
FormatRegistry.Set('xrp-amount', (value) => parseAmount(value).ok)

/** Body of `POST /api/v1/xrp/batch`. */
export const BatchBody = Type.Object(
  {
    senderSecret: Type.String({
      minLength: 25,
      maxLength: 35,
      format: 'xrp-secret-seed',
      description:
        "Secret seed of the paying account (s... family seed or sEd... ed25519 seed); the account is the seed's own address. Used in memory to sign this batch; never logged, stored or echoed.",
    }),
    recipients: Type.Array(
      Type.String({
        maxLength: 64,
        format: 'xrp-destination',
        description: 'Classic address (r...) or X-address (X.../T..., whose tag becomes the DestinationTag).',
      }),
      {
        minItems: 1,
        maxItems: maxRecipients,
        description: `Accounts to pay, 1 to ${maxRecipients}; parallel to amounts.`,
      },
    ),
    amounts: Type.Array(
      Type.String({
        maxLength: 40,
        format: 'xrp-amount',
        description: 'XRP as a decimal string, greater than 0, at most 6 decimals, e.g. "12.5".',
      }),
      { minItems: 1, maxItems: maxRecipients, description: 'XRP to pay each recipient, parallel to recipients.' },
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/xrp/batch`. */
export type BatchBody = Static<typeof BatchBody>

/** Body of `POST /api/v1/xrp/estimate`. */
export const EstimateBody = Type.Object(
  {
    recipientCount: Type.Integer({
      minimum: 1,
      maximum: maxRecipients,
      description: `Number of recipients, 1 to ${maxRecipients}: one Payment transaction each.`,
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/xrp/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
