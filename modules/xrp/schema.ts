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

/** A positive human decimal XRP amount (a string or JSON number, at most 6 decimals) in drops, or why it is not one. */
export function parseAmount(value: unknown): { ok: true; drops: bigint } | { ok: false; message: string } {
  let drops: bigint
  try {
    drops = Units.fromDecimal({ value, decimals: 6, field: 'amount', unitName: 'XRP has at most 6 decimal places' })
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

/** An amount of XRP as the original gateway reads it: a decimal string or a JSON number, in XRP (not drops). */
const HumanXrp = Type.Union(
  [Type.String({ maxLength: 40 }), Type.Number()],
  Units.amountOptions({
    unit: 'human',
    description:
      'HUMAN decimal XRP, greater than 0, at most 6 decimals, e.g. "2500" is 2,500 XRP (2,500,000,000 drops).',
  }),
)

/** A destination tag: an unsigned 32-bit integer. */
const Tag = Type.Integer({
  minimum: 0,
  maximum: 4_294_967_295,
  description: 'Destination tag, 0 to 4294967295, for an exchange or custodian account.',
})

/** Classic address (`r...`) or X-address of the paying account, in the original gateway's form. */
const Sender = (description: string) =>
  Type.String({
    maxLength: 64,
    format: 'xrp-destination',
    description: `Classic address (r...) or X-address of the paying account, as the original gateway takes it. ${description}`,
  })

/** One recipient in the original gateway's shape. */
export const Recipient = Type.Object(
  {
    address: Type.String({
      maxLength: 64,
      format: 'xrp-destination',
      description: 'Classic address (r...) or X-address (X.../T..., whose tag becomes the DestinationTag).',
    }),
    amount: HumanXrp,
    tag: Type.Optional(Tag),
    memo: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: "This payment's memo, in place of the batch's memo." }),
    ),
  },
  { additionalProperties: false },
)

/**
 * Body of `POST /api/v1/xrp/batch`, in either of two forms (one, never both): the original gateway's `sender` with
 * `recipients: [{ address, amount, tag? }]`, answered with one unsigned Payment per recipient for the sender to sign; or
 * `senderSecret` with parallel `recipients` and `amounts`, signed and submitted here.
 */
export const BatchBody = Type.Object(
  {
    sender: Type.Optional(
      Sender(
        'The answer is one unsigned Payment per recipient for it to sign and submit in order. Not with senderSecret.',
      ),
    ),
    senderSecret: Type.Optional(
      Type.String({
        minLength: 25,
        maxLength: 35,
        format: 'xrp-secret-seed',
        description:
          "Secret seed of the paying account (s... family seed or sEd... ed25519 seed), to have the gateway sign and submit; the account is the seed's own address. Used in memory to sign this batch; never logged, stored or echoed. Not with sender.",
      }),
    ),
    recipients: Type.Array(
      Type.Union([
        Recipient,
        Type.String({
          maxLength: 64,
          format: 'xrp-destination',
          description:
            'Classic address (r...) or X-address (X.../T..., whose tag becomes the DestinationTag), with senderSecret; parallel to amounts.',
        }),
      ]),
      {
        minItems: 1,
        maxItems: maxRecipients,
        description: `Accounts to pay, 1 to ${maxRecipients}: with sender, objects { address, amount, tag? } (human XRP); with senderSecret, addresses parallel to amounts.`,
      },
    ),
    amounts: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 40,
          format: 'xrp-amount',
          description: 'HUMAN decimal XRP, greater than 0, at most 6 decimals, e.g. "12.5" is 12.5 XRP.',
        }),
        {
          minItems: 1,
          maxItems: maxRecipients,
          ...Units.amountOptions({
            unit: 'human',
            description:
              'HUMAN decimal XRP to pay each recipient (not drops: "12.5" is 12.5 XRP), parallel to recipients; with senderSecret only.',
          }),
        },
      ),
    ),
    memo: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Memo written into every payment (MemoType text/plain), as the original gateway writes it.',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/xrp/batch`. */
export type BatchBody = Static<typeof BatchBody>

/**
 * Body of `POST /api/v1/xrp/estimate`: `recipientCount`, or the original gateway's `sender` with
 * `recipients: [{ address, amount }]`.
 */
export const EstimateBody = Type.Object(
  {
    recipientCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxRecipients,
        description: `Number of recipients, 1 to ${maxRecipients}: one Payment transaction each. Not with recipients.`,
      }),
    ),
    sender: Type.Optional(Sender('Required with recipients; its balance is read to say whether it suffices.')),
    recipients: Type.Optional(
      Type.Array(Recipient, {
        minItems: 1,
        maxItems: maxRecipients,
        description: `The batch as the original gateway takes it, 1 to ${maxRecipients} { address, amount } (human XRP), with sender. Not with recipientCount.`,
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/xrp/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
