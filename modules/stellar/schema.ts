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

/** A positive human decimal XLM amount (a string or JSON number, at most 7 decimals) in stroops, or why it is not one. */
export function parseAmount(value: unknown): { ok: true; stroops: bigint } | { ok: false; message: string } {
  let stroops: bigint
  try {
    stroops = Units.fromDecimal({ value, decimals: 7, field: 'amount', unitName: 'XLM has at most 7 decimal places' })
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

/** Whether `value` is an account that can sign and pay: a `G...` public key with a valid checksum. */
export function isAccount(value: string): boolean {
  return StrKey.isValidEd25519PublicKey(value)
}

FormatRegistry.Set('stellar-account', isAccount)

/** An amount of XLM as the original gateway reads it: a decimal string or a JSON number, in XLM (not stroops). */
const HumanXlm = (description: string) =>
  Type.Union(
    [Type.String({ maxLength: 40 }), Type.Number()],
    Units.amountOptions({
      unit: 'human',
      description: `HUMAN decimal XLM, at most 7 decimals, e.g. "2500" is 2,500 XLM (25,000,000,000 stroops). ${description}`,
    }),
  )

/** One recipient in the original gateway's shape: an account and its amount. */
export const Recipient = Type.Object(
  {
    address: Type.String({
      maxLength: 69,
      format: 'stellar-destination',
      description: 'Stellar account (G...) or muxed account (M...).',
    }),
    amount: HumanXlm('Greater than 0.'),
  },
  { additionalProperties: false },
)

/**
 * Body of `POST /api/v1/stellar/batch`, in either of two forms (one, never both): the original gateway's `sender` with
 * `recipients: [{ address, amount }]`, answered with the unsigned transaction for the sender to sign; or `sourceSecret`
 * with parallel `recipients` and `amounts`, signed and submitted here.
 */
export const BatchBody = Type.Object(
  {
    sender: Type.Optional(
      Type.String({
        maxLength: 56,
        format: 'stellar-account',
        description:
          'Public key (G...) of the paying account, as the original gateway takes it: the answer is the unsigned transaction (base64 XDR) for this account to sign and submit. Not with sourceSecret.',
      }),
    ),
    sourceSecret: Type.Optional(
      Type.String({
        minLength: 56,
        maxLength: 56,
        format: 'stellar-secret-seed',
        description:
          'Secret seed (S..., 56 characters) of the paying account, to have the gateway sign and submit. Used in memory to sign this one transaction; never logged, stored or echoed. Not with sender.',
      }),
    ),
    recipients: Type.Array(
      Type.Union([
        Recipient,
        Type.String({
          maxLength: 69,
          format: 'stellar-destination',
          description: 'Stellar account (G...) or muxed account (M...), with sourceSecret; parallel to amounts.',
        }),
      ]),
      {
        minItems: 1,
        maxItems: maxOperations,
        description: `Accounts to pay, 1 to ${maxOperations}: with sender, objects { address, amount } (human XLM); with sourceSecret, accounts parallel to amounts. Each must already exist.`,
      },
    ),
    amounts: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 40,
          format: 'xlm-amount',
          description: 'HUMAN decimal XLM, greater than 0, at most 7 decimals, e.g. "12.5" is 12.5 XLM.',
        }),
        {
          minItems: 1,
          maxItems: maxOperations,
          ...Units.amountOptions({
            unit: 'human',
            description:
              'HUMAN decimal XLM to pay each recipient (not stroops: "12.5" is 12.5 XLM), parallel to recipients; with sourceSecret only.',
          }),
        },
      ),
    ),
    memo: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          "Memo of the transaction, as the original gateway writes it: a text memo up to 28 bytes, else a hash memo of the text's first 32 bytes (zero-padded).",
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/stellar/batch`. */
export type BatchBody = Static<typeof BatchBody>

/**
 * Body of `POST /api/v1/stellar/estimate`: `recipientCount` (with the original gateway's optional `totalAmount`), or
 * the original's `recipients: [{ address, amount }]`.
 */
export const EstimateBody = Type.Object(
  {
    recipientCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxOperations,
        description: `Number of recipients, 1 to ${maxOperations}: one payment operation each, in one transaction. Not with recipients.`,
      }),
    ),
    totalAmount: Type.Optional(HumanXlm('The sum the batch pays, with recipientCount; answered back with its fee.')),
    recipients: Type.Optional(
      Type.Array(Recipient, {
        minItems: 1,
        maxItems: maxOperations,
        description: `The batch as the original gateway takes it, 1 to ${maxOperations} { address, amount } (human XLM). Not with recipientCount.`,
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/stellar/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
