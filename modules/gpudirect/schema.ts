import { type Static, type TSchema, Type } from '@sinclair/typebox'

/** A model id as operators name it, e.g. `llama-3.1-8b` or `meta-llama/Llama-3.1-8B-Instruct`. */
const model = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$', description })

/**
 * `POST /api/v1/gpu-direct/register` (free): the original gateway's fields, and the envelope of the wallet's
 * signature. Without `signature` the answer is the EIP-712 typed data to sign and nothing is registered.
 */
export const RegisterBody = Type.Object(
  {
    wallet_address: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        "The operator's wallet on the settlement chain: it signs the registration and is owed each run's share.",
    }),
    proxy_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "Base URL of the operator's Spraay Direct proxy (http or https, reachable from the internet; no query): `/health` and `/inference` are appended",
    }),
    gpu_model: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'GPU model, e.g. `RTX 4090`; left out: what `/health` says as `gpu`',
      }),
    ),
    vram_gb: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000,
        description: 'GPU memory in GB; left out: what `/health` says as `vram`',
      }),
    ),
    supported_models: Type.Optional(
      Type.Array(model('A model the proxy serves.'), {
        maxItems: 64,
        description: 'Models the proxy serves; left out: what `/health` lists as `models`',
      }),
    ),
    inference_engine: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'Inference engine, e.g. `vllm`, `ollama`; left out: what `/health` says as `engine`, else `vllm`',
      }),
    ),
    nonce: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,77}$',
        description: 'A uint256 this wallet never used here before, as the typed data holds it; a used one is a 409',
      }),
    ),
    expiry: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Unix time in seconds after which the signature is refused, as the typed data holds it; at most an hour ahead',
      }),
    ),
    signature: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{130}$',
        description:
          "The wallet's EIP-712 signature of `OperatorRegistration` (eth_signTypedData_v4). Without it the answer is the typed data to sign, with the nonce and expiry to send back",
      }),
    ),
  },
  { additionalProperties: false },
)
export type RegisterBody = Static<typeof RegisterBody>

/** `POST /api/v1/gpu-direct/run` (paid). */
export const RunBody = Type.Object(
  {
    model: model('A model an online operator serves (`GET /api/v1/gpu-direct/operators` lists them).'),
    input: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The model\'s input, e.g. `{ "prompt": "Hello" }`, passed to the operator\'s proxy as it is',
    }),
  },
  { additionalProperties: false },
)
export type RunBody = Static<typeof RunBody>

/** `GET /api/v1/gpu-direct/quote` (free). */
export const QuoteQuery = Type.Object({
  model: model('The model to run.'),
})
export type QuoteQuery = Static<typeof QuoteQuery>

/** An operator as callers see it (never its wallet's token). */
const OperatorView = Type.Object({
  id: Type.String({ description: 'Operator id, `op_` and 24 hex digits.' }),
  gpu: Type.String({ description: 'GPU model.' }),
  vram_gb: Type.Integer({ description: 'GPU memory in GB.' }),
  engine: Type.String({ description: 'Inference engine.' }),
  models: Type.Array(Type.String(), { description: 'Models served.' }),
  avg_response_ms: Type.Integer({ description: 'Mean time of its paid runs at the proxy, in ms.' }),
  total_jobs: Type.Integer({ description: 'Paid runs served.' }),
  last_health_check: Type.String({ description: 'When its health was last checked, ISO 8601.' }),
})

/** A price in USDC: the human decimal and its atomic units. */
const amounts = (what: string) => ({
  amount: Type.String({ description: `${what}, a HUMAN decimal of USDC, e.g. "0.03".` }),
  amountRaw: Type.String({ description: `${what}, RAW atomic units of USDC (6 decimals), e.g. "30000".` }),
})

/** The operator's share of a run. */
const Share = Type.Object({
  wallet: Type.String({ description: 'The operator wallet the share is owed to.' }),
  ...amounts('The share'),
  shareBps: Type.Integer({ description: 'The share rule, basis points of the price (GPU_DIRECT_OPERATOR_SHARE_BPS).' }),
})

/** JSON Schemas of the family's answers, for discovery. */
export const outputs: Record<string, TSchema> = {
  'POST /api/v1/gpu-direct/run': Type.Object(
    {
      run_id: Type.String({ description: 'Run id, `gdr_` and 32 hex digits.' }),
      model: Type.String(),
      operator: Type.Object({ id: Type.String(), gpu: Type.String(), engine: Type.String() }),
      settlement: Type.Object({
        currency: Type.Literal('USDC'),
        network: Type.String({ description: 'CAIP-2 id of the settlement chain.' }),
        ...amounts('The price paid'),
        operator: Share,
        payout: Type.Literal('recorded', { description: "The operator's share is recorded as owed for payout." }),
      }),
    },
    {
      additionalProperties: true,
      description: "The proxy's JSON answer (e.g. `status` and `output`), with the run's fields over it.",
    },
  ),
  'POST /api/v1/gpu-direct/register': Type.Union([
    Type.Object({
      status: Type.Literal('registered'),
      operator_id: Type.String(),
      auth_token: Type.String({ description: 'Sent to the proxy as `X-Spraay-Auth` with every run; shown once.' }),
      message: Type.String(),
      wallet: Type.String(),
      gpu: Type.String(),
      vram_gb: Type.Integer(),
      engine: Type.String(),
      models: Type.Array(Type.String()),
      share_bps: Type.Integer(),
    }),
    Type.Object({
      status: Type.Literal('signature_required'),
      typedData: Type.Record(Type.String(), Type.Unknown(), { description: 'EIP-712 typed data for the wallet.' }),
      request: Type.Record(Type.String(), Type.Unknown(), { description: 'The body to send again with `signature`.' }),
      instructions: Type.Array(Type.String()),
    }),
  ]),
  'GET /api/v1/gpu-direct/operators': Type.Object({
    total_online: Type.Integer(),
    operators: Type.Array(OperatorView),
    pricing: Type.Object({
      per_job: Type.String(),
      settlement: Type.String(),
      operator_share_bps: Type.Integer(),
    }),
  }),
  'GET /api/v1/gpu-direct/quote': Type.Object({
    available: Type.Boolean(),
    model: Type.String(),
    operator: Type.Optional(Type.Omit(OperatorView, ['models'])),
    payment: Type.Optional(
      Type.Object({
        price: Type.String({ description: 'e.g. `$0.03`.' }),
        currency: Type.Literal('USDC'),
        network: Type.String({ description: 'CAIP-2 id of the settlement chain.' }),
        ...amounts('The price'),
        operator: Share,
        note: Type.String(),
      }),
    ),
    message: Type.Optional(Type.String()),
    fallback: Type.Optional(Type.String()),
  }),
}
