import { type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox'
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

/**
 * An answer of the family: the original gateway's fields (`original`, read from the same facts), the model's
 * structured output, the facts it was given, and who answered.
 */
const answerOf = (field: string, output: TObject, original: TProperties) =>
  Type.Object({
    ...original,
    [field]: output,
    facts: Type.Object({}, { additionalProperties: true, description: 'Everything the model was given, as read.' }),
    model: Type.String({ description: 'The model that answered.' }),
  })

const nullable = <schema extends TSchema>(schema: schema) => Type.Union([schema, Type.Null()])

/** `classify-address`'s `onChainProfile`, as the original gateway answers it, from the facts. */
export const OnChainProfile = Type.Object({
  isContract: Type.Boolean({
    description: 'Whether contract code is at the address (an EIP-7702 delegation marker is not a contract).',
  }),
  ethBalance: Type.String({ description: 'Native balance, HUMAN decimal ether, e.g. "1.5" is 1.5 ETH.' }),
  ethBalanceRaw: Type.String({ description: 'Native balance in wei, decimal string.' }),
  balances: Type.Record(Type.String(), Type.String(), {
    description:
      'HUMAN decimal balances by symbol, e.g. { "ETH": "1.5", "USDC": "2500" }: ETH always, each token of the facts only when not zero.',
  }),
  balancesRaw: Type.Record(Type.String(), Type.String(), {
    description: 'The same balances in base units (wei for ETH, 10^-6 USDC for USDC), decimal strings.',
  }),
  transactionCount: Type.Integer({ description: 'Transactions sent from the address: its nonce.' }),
  recentTxCount: nullable(
    Type.Integer({ description: "Recent transactions read from the history (the facts' history.recent)." }),
  ),
})

/** `classify-tx`'s `transaction`, as the original gateway answers it, from the decoded transaction. */
export const TransactionSummary = Type.Object({
  from: Type.String({ description: 'Sender.' }),
  to: Type.String({ description: 'Recipient address, or "CONTRACT CREATION" for a deployment.' }),
  value: Type.String({ description: 'Ether sent, HUMAN decimal with its unit, e.g. "0.5 ETH".' }),
  valueRaw: Type.String({ description: 'Ether sent in wei, decimal string.' }),
  methodId: Type.String({ description: 'The first 4 bytes of the input (the selector), or "0x" with no input.' }),
  isContractCall: Type.Boolean({ description: 'Whether the transaction carries input data.' }),
  destIsContract: Type.Boolean({ description: 'Whether contract code is at the recipient now.' }),
  gasUsed: Type.String({ description: 'Gas used, in gas units, decimal string.' }),
  success: Type.Boolean({ description: 'Whether it succeeded (did not revert).' }),
  blockNumber: Type.Integer({ description: 'Block it was mined in.' }),
  logCount: Type.Integer({ description: 'Logs it emitted.' }),
})

/** `explain-contract`'s `contractInfo`, as the original gateway answers it, from the code and verified source. */
export const ContractInfo = Type.Object({
  name: nullable(Type.String({ description: 'Contract name from the verified source; null when unverified.' })),
  isVerified: Type.Boolean({ description: 'Whether a verification service has its source.' }),
  isProxy: Type.Boolean({ description: 'Whether its code is an EIP-1167 minimal proxy or sets the EIP-1967 slot.' }),
  implementation: nullable(Type.String({ description: 'The address a proxy delegates to; null otherwise.' })),
  compiler: nullable(Type.String({ description: 'Compiler version from the verified source; null when unverified.' })),
  functionCount: nullable(Type.Integer({ description: 'Functions of the verified ABI; null when unverified.' })),
  eventCount: nullable(Type.Integer({ description: 'Events of the verified ABI; null when unverified.' })),
  codeSize: Type.Integer({
    description: "Runtime code size in BYTES (the original's counted the hex string's characters, 2 x bytes + 2).",
  }),
})

/** What `summarize` briefed on, as the original gateway names it. */
export const TargetType = Type.Union([Type.Literal('wallet'), Type.Literal('contract'), Type.Literal('transaction')], {
  description: 'transaction for a hash, contract for an address with contract code, wallet for any other address.',
})

/** The answers of the family, by catalog key. */
export const outputs = {
  'POST /api/v1/inference/classify-address': answerOf('classification', AddressClassification, {
    address: Type.String({ description: 'The address classified, EIP-55 checksummed.' }),
    onChainProfile: OnChainProfile,
  }),
  'POST /api/v1/inference/classify-tx': answerOf('classification', TransactionClassification, {
    hash: Type.String({ description: 'The transaction hash classified.' }),
    transaction: TransactionSummary,
  }),
  'POST /api/v1/inference/explain-contract': answerOf('analysis', ContractAnalysis, {
    address: Type.String({ description: 'The contract explained, EIP-55 checksummed.' }),
    contractInfo: ContractInfo,
    basescanUrl: nullable(
      Type.String({
        description:
          "The contract's page on the settlement chain's explorer (INFERENCE_BLOCKSCOUT_URL on Base); null where none is configured (a devnet).",
      }),
    ),
  }),
  'POST /api/v1/inference/summarize': answerOf('briefing', Briefing, {
    target: Type.String({ description: 'The target as sent.' }),
    targetType: TargetType,
    context: Type.String({ description: 'The caller\'s context as sent; "general" when none was.' }),
  }),
}
