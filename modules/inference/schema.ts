import { type Static, type TObject, Type } from '@sinclair/typebox'
import * as Address from '../../core/Address.js'

/** Body of `POST /api/v1/inference/classify-address` and `POST /api/v1/inference/explain-contract`. */
export const AddressBody = Type.Object(
  { address: Address.evmSchema('The address on the settlement chain.') },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/inference/classify-address` and `POST /api/v1/inference/explain-contract`. */
export type AddressBody = Static<typeof AddressBody>

const hash = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'A transaction hash on the settlement chain.' })

/** Body of `POST /api/v1/inference/classify-tx`. */
export const TransactionBody = Type.Object({ hash }, { additionalProperties: false })
/** Body of `POST /api/v1/inference/classify-tx`. */
export type TransactionBody = Static<typeof TransactionBody>

/** Most characters of a caller's `context`. */
export const maxContextChars = 2_000

/** Body of `POST /api/v1/inference/summarize`. */
export const SummarizeBody = Type.Object(
  {
    target: Type.String({
      pattern: '^0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$',
      description: 'What to brief on: an address or a transaction hash on the settlement chain.',
    }),
    context: Type.Optional(
      Type.String({
        maxLength: maxContextChars,
        description: `What the caller wants to know, up to ${maxContextChars} characters; given to the model as the caller's words, never as facts.`,
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/inference/summarize`. */
export type SummarizeBody = Static<typeof SummarizeBody>

const confidence = Type.Number({ minimum: 0, maximum: 1, description: 'How sure the model is, 0 to 1.' })
const risk = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('unknown')], {
  description: 'Risk to someone about to interact with it.',
})
const reasons = Type.Array(Type.String({ maxLength: 500 }), {
  minItems: 1,
  maxItems: 8,
  description: 'Why, each reason naming the facts it rests on.',
})
const literals = <const values extends readonly string[]>(values: values, description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  )

/** What the model answers for `classify-address`: the JSON schema it is held to. */
export const AddressClassification = Type.Object(
  {
    category: literals(
      [
        'externally-owned-account',
        'smart-account',
        'token',
        'nft',
        'defi',
        'bridge',
        'exchange',
        'multisig',
        'proxy',
        'payments',
        'other-contract',
        'unknown',
      ] as const,
      'What the address is.',
    ),
    label: Type.String({ maxLength: 120, description: 'A short name for it, e.g. "USDC token contract".' }),
    confidence,
    risk,
    reasons,
  },
  { additionalProperties: false },
)

/** What the model answers for `classify-tx`. */
export const TransactionClassification = Type.Object(
  {
    category: literals(
      [
        'native-transfer',
        'token-transfer',
        'swap',
        'approval',
        'contract-deployment',
        'payment-batch',
        'escrow',
        'contract-call',
        'failed',
        'other',
      ] as const,
      'What the transaction did.',
    ),
    summary: Type.String({ maxLength: 500, description: 'One or two plain sentences.' }),
    confidence,
    risk,
    reasons,
  },
  { additionalProperties: false },
)

/** What the model answers for `explain-contract`. */
export const ContractAnalysis = Type.Object(
  {
    summary: Type.String({ maxLength: 1_000, description: 'What the contract is and does, in plain words.' }),
    kind: Type.String({ maxLength: 80, description: 'e.g. "ERC-20 token", "escrow", "proxy".' }),
    functions: Type.Array(
      Type.Object(
        {
          name: Type.String({ maxLength: 120 }),
          description: Type.String({ maxLength: 300 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 20, description: 'Its main functions.' },
    ),
    privileges: Type.Array(Type.String({ maxLength: 300 }), {
      maxItems: 10,
      description: 'Who can do what others cannot (owner, admin, minter, pauser).',
    }),
    upgradeable: Type.Union([Type.Boolean(), Type.Null()], {
      description: 'Whether its logic can change; null if unknown.',
    }),
    risks: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 10 }),
    confidence,
  },
  { additionalProperties: false },
)

/** What the model answers for `summarize`. */
export const Briefing = Type.Object(
  {
    headline: Type.String({ maxLength: 200 }),
    summary: Type.String({ maxLength: 1_500 }),
    keyPoints: Type.Array(Type.String({ maxLength: 300 }), { minItems: 1, maxItems: 8 }),
    risks: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 8 }),
    confidence,
  },
  { additionalProperties: false },
)

/** An answer of the family: the model's structured output, the facts it was given, and who answered. */
const answerOf = (field: string, output: TObject) =>
  Type.Object({
    [field]: output,
    facts: Type.Object({}, { additionalProperties: true, description: 'Everything the model was given, as read.' }),
    model: Type.String({ description: 'The model that answered.' }),
  })

/** The answers of the family, by catalog key. */
export const outputs = {
  'POST /api/v1/inference/classify-address': answerOf('classification', AddressClassification),
  'POST /api/v1/inference/classify-tx': answerOf('classification', TransactionClassification),
  'POST /api/v1/inference/explain-contract': answerOf('analysis', ContractAnalysis),
  'POST /api/v1/inference/summarize': answerOf('briefing', Briefing),
}
