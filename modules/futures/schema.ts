import { type Static, Type } from '@sinclair/typebox'
import * as Units from '../../core/Units.js'

const accountId = Type.String({
  pattern: '^cfe_[0-9a-f]{24}$',
  description: "Futures account id (CFE id) from compute-futures/deposit. @default the paying wallet's own account",
})

/**
 * The account a query names: a CFE id, or, as the original gateway reads `id` (its `address || id`), the depositor's
 * EVM address naming its settlement-chain account.
 */
const namedAccount = Type.String({
  pattern: '^(cfe_[0-9a-f]{24}|0x[0-9a-fA-F]{40})$',
  description:
    "Futures account id (CFE id) from compute-futures/deposit, or the depositor's address (as the original gateway reads `id`) naming its settlement-chain account; the paying wallet's own only. @default the paying wallet's own account",
})

/** The original gateway's name of an account: its depositor's EVM address (an account of the settlement chain). */
const address = Type.Optional(
  Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description:
      "The depositor's address naming its settlement-chain account (the original gateway's `address`; give it or `id`); the paying wallet's own only",
  }),
)

/** Body of `POST /api/v1/compute-futures/deposit`. */
export const DepositBody = Type.Object(
  {
    depositor: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{40}$',
        description:
          'The wallet that deposits (the original gateway’s field): the paying wallet, since a deposit is credited to the wallet that sends it. @default the payer',
      }),
    ),
    amount: Type.Optional(
      Units.decimalSchema({
        description:
          'HUMAN decimal USDC to deposit, e.g. "2500" is 2,500 USDC (at least 1, at most 6 decimals): answered with the unsigned USDC transfer to the deposit address to sign and send; then send its hash as `transaction` to credit it. Give `amount` or `transaction`',
      }),
    ),
    transaction: Type.Optional(
      Type.String({
        pattern: '^(0x[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,88})$',
        description:
          "The deposit: on the settlement chain, the hash of the mined transaction that sent USDC from the paying wallet to the operator's deposit address; on Solana, the signature of the transaction that sent USDC to the operator's Solana deposit address with the SPL Memo `compute-futures:<paying EVM address>`.",
      }),
    ),
    chain: Type.Optional(
      Type.Union([Type.Literal('base'), Type.Literal('solana')], {
        description:
          'Chain of the deposit: `base` is the settlement chain; `solana` needs the operator to configure FUTURES_SOLANA_RPC_URL and FUTURES_SOLANA_DEPOSIT_ADDRESS (else 503) and credits a separate account, refunded on Solana. @default base',
      }),
    ),
    expiresInDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 36_500,
        description:
          "The original gateway's field, which it ignores: accepted and not applied, since credit here does not expire (unused credit stays the depositor's until refunded); the answer's creditExpiry says so.",
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/compute-futures/deposit`. */
export type DepositBody = Static<typeof DepositBody>

/** Query of `GET /api/v1/compute-futures/balance`. */
export const BalanceQuery = Type.Object({ address, id: Type.Optional(namedAccount) })
/** Query of `GET /api/v1/compute-futures/balance`. */
export type BalanceQuery = Static<typeof BalanceQuery>

/** Most history entries one call answers. */
export const maxHistory = 500

/** Query of `GET /api/v1/compute-futures/history`. */
export const HistoryQuery = Type.Object({
  address,
  id: Type.Optional(namedAccount),
  from: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,8}$',
      description: 'First entry (sequence number, from 1) to answer. @default 1',
    }),
  ),
  limit: Type.Optional(
    Type.String({
      pattern: '^(?:[1-9][0-9]{0,1}|[1-4][0-9]{2}|500)$',
      description: `Most entries, 1 to ${maxHistory}. @default 50`,
    }),
  ),
})
/** Query of `GET /api/v1/compute-futures/history`. */
export type HistoryQuery = Static<typeof HistoryQuery>

const model = Type.String({ minLength: 1, maxLength: 100, description: 'A model id of compute/models.' })
const text = (description: string) => Type.String({ minLength: 1, maxLength: 200_000, description })

/** One job `execute` runs: a synchronous compute kind and the fields of its compute endpoint. */
export const Job = Type.Union(
  [
    Type.Object(
      {
        kind: Type.Literal('text'),
        model,
        prompt: Type.Optional(text('A prompt, as one user message; or give `messages`.')),
        messages: Type.Optional(
          Type.Array(Type.Object({ role: Type.String({ minLength: 1, maxLength: 20 }), content: Type.String() }), {
            minItems: 1,
            maxItems: 100,
            description: 'The conversation, OpenAI chat shape.',
          }),
        ),
        max_tokens: Type.Optional(
          Type.Integer({ minimum: 1, description: "Ceiling of tokens; the model's limit at most." }),
        ),
        temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('embeddings'),
        model,
        input: Type.Union([text('A text to embed.'), Type.Array(text('A text to embed.'), { minItems: 1 })]),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('tts'),
        model,
        input: text('The text to speak.'),
        voice: Type.String({ minLength: 1, maxLength: 50 }),
        response_format: Type.Optional(Type.String({ minLength: 1, maxLength: 10 })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('stt'),
        model,
        audio: Type.String({ minLength: 1, maxLength: 40_000_000, description: 'The audio, base64.' }),
        filename: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: '@default audio.mp3' })),
        language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('image'),
        model,
        prompt: text('What to draw.'),
        size: Type.Optional(
          Type.String({ minLength: 1, maxLength: 20, description: "A priced size; the model's first by default." }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'The job: a compute kind that answers at once (text, embeddings, tts, stt, image) and its fields.' },
)
/** One job `execute` runs. */
export type Job = Static<typeof Job>

/** Body of `POST /api/v1/compute-futures/execute`. */
export const ExecuteBody = Type.Object({ id: Type.Optional(accountId), job: Job }, { additionalProperties: false })
/** Body of `POST /api/v1/compute-futures/execute`. */
export type ExecuteBody = Static<typeof ExecuteBody>

/** Body of `POST /api/v1/compute-futures/refund`. */
export const RefundBody = Type.Object(
  {
    depositor: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{40}$',
        description:
          'The depositor (the original gateway’s field): the paying wallet, whose settlement-chain account is refunded to it. @default the payer',
      }),
    ),
    id: Type.Optional(accountId),
    amount: Type.Optional(
      Type.String({
        pattern: '^\\d{1,12}(\\.\\d{1,6})?$',
        ...Units.amountOptions({
          unit: 'human',
          description:
            'HUMAN decimal USD (USDC) to refund, up to 6 decimals, e.g. "2.5". @default all available credit',
        }),
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/compute-futures/refund`. */
export type RefundBody = Static<typeof RefundBody>

const usd = (description: string) => Type.String({ pattern: '^\\d+\\.\\d{6}$', description: `${description} (USD)` })

/** A futures account's balances, as every endpoint shows them. */
const Balances = Type.Object({
  available: usd('Spendable credit'),
  reserved: usd('Held by jobs running now'),
  refunding: usd('Held by refunds being sent'),
  deposited: usd('Every verified deposit'),
  spent: usd('Spent on jobs'),
  refunded: usd('Sent back to the depositor'),
  jobs: Type.Integer({ description: 'Jobs charged.' }),
})

const TierView = Type.Object({
  name: Type.String(),
  minimum: usd('Credit bought from which it applies'),
  discountPercent: Type.Number(),
})

/** A human USDC amount as the original gateway writes it, e.g. "12.5 USDC". */
const usdc = (description: string) => Type.String({ description: `${description}: human decimal USDC and the unit` })
/** An amount in USDC atomic units (6 decimals), as a decimal string. */
const raw = (description: string) =>
  Type.String({ pattern: '^\\d+$', description: `${description}, USDC atomic units` })

/** The original gateway's summary of an account (its on-chain `getAccount` there). */
const OriginalSummary = Type.Object({
  balance: usdc('Spendable credit, e.g. "12.5 USDC"'),
  balanceRaw: raw('Spendable credit'),
  deposited: usdc('Every verified deposit'),
  depositedRaw: raw('Every verified deposit'),
  totalDrawn: usdc('Spent on jobs'),
  totalDrawnRaw: raw('Spent on jobs'),
  totalRefunded: usdc('Sent back to the depositor'),
  totalRefundedRaw: raw('Sent back to the depositor'),
  jobCount: Type.Integer({ description: 'Jobs charged.' }),
  tier: Type.String({ description: 'The tier’s name: starter, builder, scale or enterprise.' }),
})

/** Answer of `GET /api/v1/compute-futures/balance`. */
export const BalanceOutput = Type.Object({
  id: Type.String(),
  depositor: Type.String(),
  chainId: Type.Union([Type.Integer(), Type.String()], {
    description: 'EIP-155 chain id of its deposits, or the CAIP-2 Solana network (`solana:<genesis>`).',
  }),
  depositAddress: Type.Union([Type.String(), Type.Null()], {
    description: 'Where to send USDC to add credit (null: Solana deposits are no longer configured).',
  }),
  solana: Type.Optional(
    Type.Object(
      {
        depositor: Type.String({ description: 'The Solana wallet whose deposit opened it: refunds go to it only.' }),
        tokenAccount: Type.String({ description: 'Its token account that deposit came from, where refunds are sent.' }),
      },
      { description: 'Of an account of Solana deposits.' },
    ),
  ),
  balances: Balances,
  tierDetails: TierView,
  discountPercent: Type.Number(),
  nextTier: Type.Union([
    Type.Intersect([TierView, Type.Object({ missing: usd('Credit to buy to reach it') })]),
    Type.Null(),
  ]),
  ...OriginalSummary.properties,
  address: Type.String({ description: 'The depositor (the original gateway’s name).' }),
  discount: Type.String({ description: 'The tier discount, e.g. "5% discount" or "No discount".' }),
  discountBps: Type.Integer({ description: 'The tier discount in basis points.' }),
})

/** Answer of `GET /api/v1/compute-futures/history`. */
export const HistoryOutput = Type.Object({
  id: Type.String(),
  entries: Type.Array(
    Type.Object({
      sequence: Type.Integer(),
      at: Type.String({ description: 'ISO 8601.' }),
      kind: Type.String({ description: 'deposit, reserve, release, charge, hold, refund or reverse.' }),
      amount: usd('Amount moved'),
      debit: Type.String({ description: 'Ledger account debited.' }),
      credit: Type.String({ description: 'Ledger account credited.' }),
      balances: Balances,
      job: Type.Optional(Type.String()),
      model: Type.Optional(Type.String()),
      price: Type.Optional(usd('List price of the job')),
      discountPercent: Type.Optional(Type.Number()),
      transaction: Type.Optional(Type.String({ description: 'The deposit or refund transfer.' })),
      reason: Type.Optional(Type.String({ description: 'Why a job was released or a refund reversed.' })),
      hash: Type.String({ description: 'Hash of the entry, linked to the one before it.' }),
    }),
  ),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'Sequence to ask `from` for more, if any.' }),
  address: Type.String({ description: 'The depositor (the original gateway’s name).' }),
  onChain: OriginalSummary,
  usage: Type.Array(
    Type.Object({
      futuresId: Type.String({ description: 'The account id.' }),
      jobType: Type.String({ description: 'The original gateway’s job type, e.g. text-inference.' }),
      model: Type.String(),
      basePrice: usd('List price of the job'),
      discount: Type.String({ description: 'The tier discount, a fraction, e.g. "0.0500".' }),
      effectivePrice: usd('What the job cost'),
      balanceAfter: usd('Spendable credit after it'),
      timestamp: Type.String({ description: 'ISO 8601.' }),
    }),
    { description: 'The charged jobs among these entries, in the original gateway’s shape.' },
  ),
})
