import type { Address } from 'viem'

/**
 * GPU direct (the original gateway's "Spraay Direct"): operators serve inference from their own GPUs behind a proxy
 * of theirs, registered with an EIP-712 signature of their wallet over the registration's fields; a paid run goes to
 * a healthy operator serving its model, and the operator's share of its price is recorded for payout.
 *
 * The proxy speaks the original's protocol: `GET <proxy_url>/health` answers 2xx (with `{ gpu, vram, models, engine }`,
 * read at registration for the fields left out) while it takes runs, and `POST <proxy_url>/inference` takes
 * `{ model, input }` with the operator's token in `X-Spraay-Auth` and answers the run's JSON.
 */

/** What an operator registers, as the original gateway names it. */
export type Registration = {
  /** The operator's wallet: it signs the registration and is paid the share of each run. */
  wallet_address: Address
  /** Base URL of the operator's proxy (`/health` and `/inference` are appended). */
  proxy_url: string
  /** GPU model, e.g. `RTX 4090`; empty: the proxy's `/health` says. */
  gpu_model: string
  /** GPU memory in GB; 0: the proxy's `/health` says. */
  vram_gb: number
  /** Models the proxy serves; empty: the proxy's `/health` says. */
  supported_models: readonly string[]
  /** Inference engine, e.g. `vllm`; empty: the proxy's `/health` says. */
  inference_engine: string
}

/** A registration as signed: its fields and the envelope that keeps the signature from being replayed. */
export type Signed = Registration & {
  /** Used once per wallet (decimal). */
  nonce: string
  /** Unix time after which the signature is refused, in seconds. */
  expiry: number
}

/** An operator as the registry keeps it. */
export type Operator = {
  /** Id shown to callers, `op_` and 24 hex digits; kept across registrations of the same wallet. */
  id: string
  /** The operator's wallet (checksummed); one registration per wallet, the latest wins. */
  wallet: Address
  /** Base URL of the proxy, without a trailing slash. */
  proxyUrl: string
  /** GPU model. */
  gpuModel: string
  /** GPU memory in GB. */
  vramGb: number
  /** Models served. */
  models: string[]
  /** Inference engine. */
  engine: string
  /** The token sent to the proxy in `X-Spraay-Auth`, shown to the operator once at registration. */
  authToken: string
  /** `online` while the last health check (or registration) passed; `offline` operators get no runs. */
  status: 'online' | 'offline'
  /** When the health of the proxy was last checked, ISO 8601. */
  lastHealthCheck: string
  /** Why the last check failed, when it did. */
  healthError?: string | undefined
  /** Paid runs served. */
  totalJobs: number
  /** Mean time of those runs at the proxy, in ms. */
  avgResponseMs: number
  /** First registration, ISO 8601. */
  createdAt: string
  /** Latest registration or change, ISO 8601. */
  updatedAt: string
}

/** A paid run, kept as the ledger line of the operator's payout. Amounts are atomic USDC units, as decimal strings. */
export type Run = {
  /** Run id, `gdr_` and 32 hex digits. */
  id: string
  /** The operator's id. */
  operatorId: string
  /** The wallet the share is owed to. */
  wallet: Address
  /** Model run. */
  model: string
  /** Who paid the run. */
  payer: Address
  /** The run's price, atomic units. */
  amountRaw: string
  /** The operator's share of it, atomic units. */
  shareRaw: string
  /** The share rule it was computed with, basis points of the price. */
  shareBps: number
  /** Time at the proxy, in ms. */
  inferenceMs: number
  /** `owed` until a payout pays it. */
  payout: 'owed'
  /** ISO 8601. */
  createdAt: string
}

/** The EIP-712 domain of registrations on the settlement chain `chainId`. */
export function domain(chainId: number) {
  return { name: 'x402 Gateway GPU Direct', version: '1', chainId } as const
}

/** The EIP-712 types: every registration field by its original name, then the envelope. */
export const types = {
  OperatorRegistration: [
    { name: 'wallet_address', type: 'address' },
    { name: 'proxy_url', type: 'string' },
    { name: 'gpu_model', type: 'string' },
    { name: 'vram_gb', type: 'uint32' },
    { name: 'supported_models', type: 'string[]' },
    { name: 'inference_engine', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint64' },
  ],
} as const

/** The typed data the operator's wallet signs for `registration` (eth_signTypedData_v4). */
export function typedData(parameters: typedData.Parameters) {
  const { chainId, registration } = parameters
  return {
    domain: domain(chainId),
    types,
    primaryType: 'OperatorRegistration' as const,
    message: {
      wallet_address: registration.wallet_address,
      proxy_url: registration.proxy_url,
      gpu_model: registration.gpu_model,
      vram_gb: registration.vram_gb,
      supported_models: registration.supported_models,
      inference_engine: registration.inference_engine,
      nonce: BigInt(registration.nonce),
      expiry: BigInt(registration.expiry),
    },
  }
}

export declare namespace typedData {
  type Parameters = {
    /** EIP-155 id of the settlement chain. */
    chainId: number
    /** The registration with its envelope. */
    registration: Signed
  }
}

/** The operator's share of a run's price: `amount × shareBps / 10 000`, rounded down; the gateway keeps the rest. */
export function share(parameters: share.Parameters): share.ReturnType {
  const { amount, shareBps } = parameters
  if (shareBps < 0n || shareBps > 10_000n) throw new RangeError(`shareBps ${shareBps} is outside 0-10000.`)
  const operator = (amount * shareBps) / 10_000n
  return { operator, gateway: amount - operator }
}

export declare namespace share {
  type Parameters = {
    /** The run's price, atomic units. */
    amount: bigint
    /** The operator's share, basis points of the price. */
    shareBps: bigint
  }
  type ReturnType = {
    /** Owed to the operator, atomic units. */
    operator: bigint
    /** Kept by the gateway, atomic units. */
    gateway: bigint
  }
}

/**
 * The operator a run of `model` goes to: an online one that serves it, the fastest on average first (as the original
 * routes), then the one with fewer runs, then the earliest registered; `undefined` when none does.
 */
export function route(parameters: route.Parameters): Operator | undefined {
  const { operators, model } = parameters
  return operators
    .filter((operator) => operator.status === 'online' && operator.models.includes(model))
    .sort(
      (a, b) =>
        a.avgResponseMs - b.avgResponseMs || a.totalJobs - b.totalJobs || a.createdAt.localeCompare(b.createdAt),
    )[0]
}

export declare namespace route {
  type Parameters = {
    /** Every registered operator. */
    operators: readonly Operator[]
    /** The model asked for. */
    model: string
  }
}

/** The operator's running mean after one more run of `inferenceMs`, in whole ms. */
export function served(operator: Operator, inferenceMs: number): Pick<Operator, 'totalJobs' | 'avgResponseMs'> {
  const totalJobs = operator.totalJobs + 1
  return {
    totalJobs,
    avgResponseMs: Math.round((operator.avgResponseMs * operator.totalJobs + inferenceMs) / totalJobs),
  }
}
