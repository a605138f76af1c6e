import type { Availability, Failure } from './Upstream.js'

/**
 * The Solana upstreams the gateway sells access to, as ports: a swap aggregator (quotes and unsigned swap
 * transactions), a node's token mints (their decimals), a Digital Asset Standard index, and a Pyth price service.
 * Amounts are raw base units (u64) as bigint; addresses are base58 strings. Each port answers its own refusals as
 * data without `status` (no route, no such mint, asset or feed) and upstream trouble as an upstream {@link Failure},
 * which always carries `status`.
 */

/** The port's own refusal: what was asked for does not exist upstream (no route, no such asset, no such feed). */
export type Missing = {
  /** Not found. */
  ok: false
  /** Always `not_found`. */
  reason: 'not_found'
  /** One sentence from the upstream, safe to show the caller. */
  message: string
}

/** A quote request: sell exactly `amount` of `inputMint` for `outputMint`. */
export type QuoteRequest = {
  /** Mint sold, base58. */
  inputMint: string
  /** Mint bought, base58. */
  outputMint: string
  /** Amount of `inputMint` sold, in its base units. */
  amount: bigint
  /** Slippage tolerance in basis points; absent, the aggregator's default. */
  slippageBps?: number | undefined
}

/** One leg of a route: a swap on one pool for a share of the amount. */
export type Hop = {
  /** Pool (AMM account), base58. */
  pool: string
  /** Venue name, e.g. `Whirlpool`. */
  venue: string
  /** Mint sold on this leg. */
  inputMint: string
  /** Mint bought on this leg. */
  outputMint: string
  /** Amount sold on this leg, in base units of `inputMint`. */
  inAmount: bigint
  /** Amount bought on this leg, in base units of `outputMint`. */
  outAmount: bigint
  /** Share of the input routed through this leg, in percent. */
  percent: number
}

/** A quote, with the aggregator's own answer kept whole: a swap transaction is built from exactly that. */
export type Quote = {
  /** A quote. */
  ok: true
  /** Mint sold. */
  inputMint: string
  /** Mint bought. */
  outputMint: string
  /** Amount sold, in base units of `inputMint`. */
  inAmount: bigint
  /** Amount bought, in base units of `outputMint`. */
  outAmount: bigint
  /** Least amount bought once slippage is applied, in base units of `outputMint`. */
  otherAmountThreshold: bigint
  /** `ExactIn` or `ExactOut`. */
  swapMode: string
  /** Slippage tolerance applied, in basis points. */
  slippageBps: number
  /** Price impact as the aggregator states it (a decimal string, a fraction: 0.01 is 1%). */
  priceImpactPct: string
  /** The route, leg by leg. */
  route: Hop[]
  /** The aggregator's answer as received, to be passed back for a swap transaction. */
  quoteResponse: Record<string, unknown>
}

/** A swap transaction request: the quote as the aggregator answered it, and who signs and pays. */
export type SwapRequest = {
  /** The aggregator's quote, as received. */
  quoteResponse: Record<string, unknown>
  /** The wallet that signs the transaction and pays its fee, base58. */
  userPublicKey: string
  /** Whether the transaction wraps SOL in and unwraps it out. @default true */
  wrapAndUnwrapSol?: boolean | undefined
  /** Priority fee in lamports, or `auto` for the aggregator's estimate. @default 'auto' */
  prioritizationFeeLamports?: number | 'auto' | undefined
}

/** An unsigned swap transaction, exactly as the aggregator built it. */
export type SwapTransaction = {
  /** A transaction. */
  ok: true
  /** Base64 of the serialized versioned transaction, signatures empty. */
  swapTransaction: string
  /** Last block height at which the transaction's blockhash is still valid. */
  lastValidBlockHeight: number
  /** Priority fee the transaction pays, in lamports; `undefined` when not stated. */
  prioritizationFeeLamports: number | undefined
  /** Compute unit limit the transaction sets; `undefined` when not stated. */
  computeUnitLimit: number | undefined
}

/** A swap aggregator (Jupiter's Swap API, or anything that speaks its shapes). */
export type Aggregator = {
  /** Name of the aggregator in answers, e.g. `Jupiter`. */
  name: string
  /** The best route for a swap, or `not_found` when no route exists. */
  quote: (request: QuoteRequest) => Promise<Quote | Missing | Failure>
  /** The unsigned transaction of a quoted swap. */
  swap: (request: SwapRequest) => Promise<SwapTransaction | Failure>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}

/** The decimals of one token mint: its amounts in base units are `10^decimals` to one token. */
export type MintDecimals = {
  /** Read. */
  ok: true
  /** Digits after the decimal point, 0 to 255. */
  decimals: number
}

/** Token mints as a Solana node reads them (any JSON-RPC node). */
export type Mints = {
  /** The decimals of `mint`, or `not_found` when the account is not a token mint. */
  decimals: (mint: string) => Promise<MintDecimals | Missing | Failure>
  /** Whether calls may start now. */
  available: () => Availability
}

/** One page of the assets an owner holds. */
export type AssetPage = {
  /** A page. */
  ok: true
  /** Assets on this page. */
  total: number
  /** Page number, from 1. */
  page: number
  /** Most assets a page holds. */
  limit: number
  /** The assets, as the index describes them (DAS asset objects). */
  items: unknown[]
  /** The owner's SOL as the index describes it (`lamports`, and a price when it has one); `undefined` when not asked. */
  nativeBalance: Record<string, unknown> | undefined
}

/** One asset, as the index describes it. */
export type Asset = {
  /** An asset. */
  ok: true
  /** The DAS asset object. */
  asset: Record<string, unknown>
}

/** A Digital Asset Standard index (Helius, or any DAS JSON-RPC provider). */
export type AssetIndex = {
  /** One page of the assets `owner` holds. */
  assetsByOwner: (request: {
    /** Owner wallet, base58. */
    owner: string
    /** Page number, from 1. */
    page: number
    /** Most assets per page. */
    limit: number
    /** Whether fungible tokens are listed beside NFTs. */
    showFungible: boolean
    /** Whether the owner's SOL balance is answered. */
    showNativeBalance: boolean
  }) => Promise<AssetPage | Failure>
  /** One asset by its id, or `not_found`. */
  asset: (id: string) => Promise<Asset | Missing | Failure>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}

/** The latest price of one feed, in the feed's fixed point: the value is `price × 10^exponent`. */
export type PriceUpdate = {
  /** Feed id, 32 bytes as `0x` and 64 lower-case hex digits. */
  id: string
  /** The feed's symbol, e.g. `Crypto.SOL/USD`; `undefined` when the service's metadata does not name it. */
  symbol: string | undefined
  /** Price, scaled by `10^-exponent`. */
  price: bigint
  /** Confidence interval (±), in the same scale. */
  confidence: bigint
  /** Power of ten of the scale, usually negative. */
  exponent: number
  /** When the price was published, in seconds since the epoch. */
  publishTime: number
  /** Exponentially weighted moving average of the price (about an hour), scaled by `10^-emaExponent`. */
  emaPrice: bigint
  /** Power of ten of the moving average's scale. */
  emaExponent: number
}

/** The latest prices of the feeds asked for, in the order asked. */
export type PriceUpdates = {
  /** Prices. */
  ok: true
  /** One per feed asked for. */
  updates: PriceUpdate[]
}

/** A Pyth price service (Hermes). */
export type PriceService = {
  /** The latest price of every feed of `ids` (`0x` ids), or `not_found` when the service knows one of them not. */
  latest: (ids: readonly string[]) => Promise<PriceUpdates | Missing | Failure>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}
