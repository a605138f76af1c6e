import { type Static, Type } from '@sinclair/typebox'
import * as Batch from '../../core/Batch.js'
import * as Units from '../../core/Units.js'

// Bounds here cap the work and document the fields; the exact rules (EIP-55 checksums, base-unit integers, the chain
// allowlist, parallel lengths) are checked before the schema by the service's preflight, which names the field.

/** `base` (default) or `peaq`; the preflight refuses anything else, naming the allowed values. */
const chain = Type.Union(
  Batch.chains.map((name) => Type.Literal(name)),
  {
    description: `Chain of the batch contract: ${Batch.chains.join(' or ')}; default base. Any other value is refused.`,
  },
)

const token = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'Token symbol (base: USDC, USDT, EURC, DAI, WETH, or ETH for native ether; peaq: USDC) or an ERC-20 address on the chosen chain.',
})

const addresses = Type.Array(Type.String({ maxLength: 64 }), {
  minItems: 1,
  maxItems: Batch.maxRecipients,
  description: `Recipient EVM addresses, parallel to amounts; 1 to ${Batch.maxRecipients}.`,
})

/** The original gateway's legacy shape of one payment: an address and a HUMAN-decimal amount of the token. */
export const Payment = Type.Object(
  {
    address: Type.String({ maxLength: 64, description: 'EVM address paid.' }),
    amount: Units.decimalSchema({
      description: 'HUMAN decimal amount of the token, e.g. "2500" is 2,500 USDC and "0.31" is 0.31 USDC.',
    }),
  },
  { additionalProperties: false },
)

const recipients = Type.Union(
  [
    addresses,
    Type.Array(Payment, {
      minItems: 1,
      maxItems: Batch.maxRecipients,
      description: `The original gateway's legacy shape: 1 to ${Batch.maxRecipients} { address, amount } objects with HUMAN-decimal amounts, without amounts.`,
    }),
  ],
  {
    description:
      'Either recipient addresses with amounts (RAW base units), or { address, amount } objects whose amount is a HUMAN decimal of the token ("2500" is 2,500 USDC) and no amounts.',
  },
)

const amounts = Type.Array(Type.String({ maxLength: Batch.maxAmountDigits + 2 }), {
  minItems: 1,
  maxItems: Batch.maxRecipients,
  ...Units.amountOptions({
    unit: 'raw',
    description:
      'RAW base-unit integer strings (the spec\'s), parallel to address recipients (USDC has 6 decimals: 1.5 USDC is "1500000"); not with recipient objects.',
  }),
})

/** Body of `POST /api/v1/batch/execute`. */
export const ExecuteBody = Type.Object(
  {
    token,
    recipients,
    amounts: Type.Optional(amounts),
    sender: Type.String({
      maxLength: 64,
      description: 'The address that will sign and send; gas is estimated against its allowance.',
    }),
    chain: Type.Optional(chain),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/batch/execute`. */
export type ExecuteBody = Static<typeof ExecuteBody>

/** Body of `POST /api/v1/batch/estimate`: recipients and amounts (detailed form) or recipientCount (count-only form). */
export const EstimateBody = Type.Object(
  {
    token: Type.Optional(token),
    recipients: Type.Optional(recipients),
    amounts: Type.Optional(amounts),
    sender: Type.Optional(
      Type.String({ maxLength: 64, description: 'The address that will send; sharpens the gas estimate.' }),
    ),
    recipientCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Batch.maxRecipients,
        description: 'Count-only form: a worst-case gas ceiling, no totals; 1 when neither form is given.',
      }),
    ),
    chain: Type.Optional(chain),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/batch/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
