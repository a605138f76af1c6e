import { type Address, formatUnits, parseUnits } from 'viem'
import { base } from 'viem/chains'
import * as Cache from '../../core/Cache.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import { oneOf } from '../../core/internal/oneOf.js'
import * as PriceFeeds from '../../core/PriceFeeds.js'
import type * as Rpc from '../../core/Rpc.js'
import * as TokenList from '../../core/TokenList.js'
import * as Uniswap from '../../core/Uniswap.js'

/** How long one reading of the feeds, or of the pools, is served again, in ms. */
export const ttlMs = 60_000

/** The settlement chain's tokens that its Uniswap v3 pools price, and their prices. */
export type Pools = {
  /** The chain the pools are on. */
  chain: Rpc.Endpoint
  /** Uniswap v3 on that chain. */
  deployment: Uniswap.Deployment
  /** The tokens priced from pools: the chain's listed tokens that no feed prices, but its dollar token. */
  tokens: readonly TokenList.Listed[]
  /** The price of each of {@link tokens}, in their order, read at most once per {@link ttlMs}. */
  read: () => Promise<Cache.Taken<readonly (Uniswap.UsdPrice | undefined)[]>>
}

/** What the prices module needs from outside. */
export type Deps = {
  /** The feeds, read at most once per {@link ttlMs}. */
  feeds: PriceFeeds.shared.ReturnType
  /** The pools pricing the chain's other tokens; none without a chain or a dollar token on it. */
  pools: Pools | undefined
  /** Current time, epoch ms. */
  now: () => number
}

/** The module's dependencies on `feeds` and the settlement `chain`. */
export function from(parameters: from.Parameters): Deps {
  const { feeds, chain, now = Date.now } = parameters
  const shared = PriceFeeds.shared({ feeds, ttlMs, now })
  const deps: Deps = { feeds: shared, pools: undefined, now }
  const usd = chain && TokenList.find({ name: 'base', chainId: chain.chainId, token: 'USDC' })
  if (!chain || !usd) return deps
  const deployment = Uniswap.of(chain.chainId)
  const tokens = TokenList.known('base', chain.chainId).filter(
    (token) => token.address !== usd.address && feedOf(deps, token.symbol) === undefined,
  )
  const read = Cache.shared({
    ttlMs,
    now,
    read: () =>
      Uniswap.usdPrices({
        chain,
        deployment,
        usd,
        tokens: tokens.map((token) => ({ ...token, units: unitsOf(token.symbol) })),
      }),
  })
  return { ...deps, pools: { chain, deployment, tokens, read } }
}

export declare namespace from {
  type Parameters = {
    /** The USD price feeds. */
    feeds: PriceFeeds.PriceFeeds
    /** The settlement chain, whose Uniswap v3 pools price the tokens no feed prices. */
    chain?: Rpc.Endpoint | undefined
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}

/** Where a price comes from: a Chainlink feed, or Uniswap v3 pools. */
export type Source =
  | {
      /** A feed. */
      type: 'chainlink-aggregator-v3'
      /** EIP-155 chain id of the feed. */
      chainId: number
      /** Feed contract address. */
      feed: string
      /** The feed's `description()`, e.g. `ETH / USD`. */
      description: string
      /** Round read, when one was. */
      roundId?: string
    }
  | {
      /** Pools. */
      type: 'uniswap-v3-pool'
      /** EIP-155 chain id of the pools. */
      chainId: number
      /** QuoterV2 that quoted them. */
      quoter: string
      /** The tokens from the priced one to the dollar token, by symbol, e.g. `TOSHI > WETH > USDC`. */
      route?: string
      /** Each quote: the pool, its fee tier, and the amounts in and out in base units. */
      pools?: {
        address: string
        tokenIn: string
        tokenOut: string
        fee: number
        amountIn: string
        amountOut: string
      }[]
      /** Block the pools were read at. */
      blockNumber?: string
    }

/** Why a token has no price. */
export type Reason = PriceFeeds.Refused['reason'] | 'no_pool' | 'not_deployed' | 'no_price_source'

/** The USD price of one token, or why there is none. */
export type Price =
  | {
      /** Token symbol. */
      token: string
      /** A price. */
      available: true
      /** USD per whole token, a JSON number as the original gateway answers it (rounded to a double). */
      usd: number
      /** The same, the original gateway's `/api/v1/oracle/prices` and `/api/v1/prices` name. */
      priceUSD: number
      /** USD per whole token, exact: the feed's decimal, or the pools' quotient truncated to 18 places. */
      usdDecimal: string
      /** Where it comes from. */
      source: Source
      /** When the feed was last updated, or the time of the block the pools were read at (ISO 8601). */
      updatedAt: string
      /** Seconds since then. */
      ageSeconds: number
    }
  | {
      /** Token symbol. */
      token: string
      /** No price. */
      available: false
      /** No price: `null`, as the original gateway answers a token it cannot price. */
      usd: null
      /** `stale`, `invalid_answer` or `unreadable` (the feed); `no_pool`, `not_deployed` or `no_price_source`. */
      reason: Reason
      /** One sentence. */
      message: string
      /** The feed or the pools asked, when any was. */
      source: Source | null
    }

/** The feeds' latest rounds, from memory when read in the last {@link ttlMs}. */
async function readings(deps: Deps): Promise<PriceFeeds.Served> {
  try {
    return await deps.feeds.read()
  } catch (error) {
    throw new UpstreamUnavailableError('The chain holding the price feeds did not answer; nothing is charged.', {
      cause: error,
    })
  }
}

/** The prices of the last answer of each deployment, with what they were judged from. */
const lastJudged = new WeakMap<
  Deps,
  { readings: PriceFeeds.Snapshot['readings']; nowS: number; tokens: string; prices: Record<string, Price> }
>()

/**
 * The price of each of `tokens` in `snapshot`, judged at `nowS`: the same readings, second and tokens give the same
 * prices, so that callers of one second share one answer rather than judging and formatting every feed each.
 */
function judged(
  deps: Deps,
  snapshot: PriceFeeds.Snapshot,
  tokens: readonly string[],
  nowS: number,
): Record<string, Price> {
  const key = tokens.join(',')
  const last = lastJudged.get(deps)
  if (last && last.readings === snapshot.readings && last.nowS === nowS && last.tokens === key) return last.prices
  const { chainId } = deps.feeds.feeds
  const answer: Record<string, Price> = {}
  for (const token of tokens) {
    const verdict = PriceFeeds.judge(snapshot.readings.find((candidate) => candidate.feed.symbol === token)!, nowS)
    const { feed } = verdict
    const source = {
      type: 'chainlink-aggregator-v3' as const,
      chainId,
      feed: feed.address,
      description: feed.description,
    }
    const decimal = verdict.ok ? formatUnits(verdict.answer, verdict.decimals) : undefined
    answer[token] = verdict.ok
      ? {
          token,
          available: true,
          usd: Number(decimal),
          priceUSD: Number(decimal),
          usdDecimal: decimal!,
          source: { ...source, roundId: String(verdict.roundId) },
          updatedAt: new Date(verdict.updatedAt * 1000).toISOString(),
          ageSeconds: verdict.ageSeconds,
        }
      : { token, available: false, usd: null, reason: verdict.reason, message: verdict.message, source }
  }
  lastJudged.set(deps, { readings: snapshot.readings, nowS, tokens: key, prices: answer })
  return answer
}

/** The symbols of the feeds, in their order: the tokens of `/free/prices`. */
export function feedSymbols(deps: Deps): string[] {
  return deps.feeds.feeds.feeds.map((feed) => feed.symbol)
}

/**
 * USD prices of the feeds of `tokens` (feed symbols); a stale or non-positive round makes that token unavailable, not
 * the answer. `cached` says whether the feeds were read by an earlier call, `age` how many seconds ago they were read.
 */
export async function prices(deps: Deps, tokens: readonly string[]) {
  const snapshot = await readings(deps)
  return {
    currency: 'USD',
    prices: judged(deps, snapshot, tokens, Math.floor(deps.now() / 1000)),
    cacheSeconds: ttlMs / 1000,
    cached: snapshot.cached,
    age: Math.max(0, Math.floor((deps.now() - snapshot.takenAt) / 1000)),
  }
}

/** The original gateway's categories of `/api/v1/oracle/prices` tokens. */
export const categories = ['major', 'stablecoin', 'memecoin', 'defi'] as const

/** A category of {@link categories}. */
export type Category = (typeof categories)[number]

/** A token of the original gateway's `/api/v1/oracle/prices`: its symbol, name and category there. */
export type OriginalToken = {
  /** Symbol, as the original writes it (e.g. `cbBTC`). */
  symbol: string
  /** Name, as the original answers it. */
  name: string
  /** The original's category. */
  category: Category
}

/**
 * The original gateway's tokens (src/routes/oracle.ts `ORACLE_TOKENS`), in its order, with the names and categories it
 * answers; their contracts come from the token lists ({@link TokenList.find}), ETH's being WETH's as there.
 */
export const originalTokens: readonly OriginalToken[] = (
  [
    ['ETH', 'Ether', 'major'],
    ['WETH', 'Wrapped Ether', 'major'],
    ['cbBTC', 'Coinbase Wrapped BTC', 'major'],
    ['USDC', 'USD Coin', 'stablecoin'],
    ['USDT', 'Tether USD', 'stablecoin'],
    ['DAI', 'Dai Stablecoin', 'stablecoin'],
    ['EURC', 'Euro Coin', 'stablecoin'],
    ['USDbC', 'USD Base Coin', 'stablecoin'],
    ['AERO', 'Aerodrome Finance', 'defi'],
    ['DEGEN', 'Degen', 'memecoin'],
    ['BRETT', 'Brett', 'memecoin'],
    ['TOSHI', 'Toshi', 'memecoin'],
  ] as const
).map(([symbol, name, category]) => ({ symbol, name, category }))

/** Whole tokens a pool quote is for: 1,000 of the original's stablecoins (less rounding, as it quotes), else 1. */
function unitsOf(symbol: string): bigint {
  return originalOf(symbol)?.category === 'stablecoin' ? 1000n : 1n
}

/** The original's token of `symbol`, any case. */
function originalOf(symbol: string): OriginalToken | undefined {
  return originalTokens.find((token) => token.symbol.toUpperCase() === symbol.toUpperCase())
}

/** The feed that prices `symbol` (any case; WETH by ETH's), if one does. */
function feedOf(deps: Deps, symbol: string): string | undefined {
  const upper = symbol.toUpperCase()
  const wanted = upper === 'WETH' ? 'ETH' : upper
  return feedSymbols(deps).find((feed) => feed === wanted)
}

/** One token an answer prices. */
export type Selected = {
  /** Its key in the answer: the symbol as the original or the list writes it, or the feed's. */
  symbol: string
  /** The original gateway's name and category, for its tokens. */
  original: OriginalToken | undefined
  /** Its contract on the settlement chain; none when it has none there (or is a feed's only, as SOL). */
  token: TokenList.Listed | undefined
  /** Symbol of the feed that prices it; none, and the pools do. */
  feed: string | undefined
}

/** The settlement chain's id: the pools', else the feeds'. */
function chainIdOf(deps: Deps): number {
  return deps.pools?.chain.chainId ?? deps.feeds.feeds.chainId
}

/** The token `symbol` names on the settlement chain, by symbol (ETH by WETH's contract, as the original answers it). */
function contractOf(deps: Deps, symbol: string): TokenList.Listed | undefined {
  const token = symbol.toUpperCase() === 'ETH' ? 'WETH' : symbol
  return TokenList.find({ name: 'base', chainId: chainIdOf(deps), token })
}

function selectedOf(deps: Deps, symbol: string, token: TokenList.Listed | undefined): Selected {
  const original = originalOf(symbol)
  return { symbol: original?.symbol ?? symbol, original, token, feed: feedOf(deps, symbol) }
}

/**
 * The token `asked` names: a symbol or address of the chain's listed tokens ({@link TokenList.known}: the curated ones
 * and Uniswap's default list), a symbol of the original gateway's tokens or its Base address (answered even where the
 * chain has no contract of it), or a feed's symbol; any case. `undefined` when none.
 */
function resolve(deps: Deps, asked: string): Selected | undefined {
  const original = originalOf(asked)
  if (original) return selectedOf(deps, original.symbol, contractOf(deps, original.symbol))
  const listed = TokenList.find({ name: 'base', chainId: chainIdOf(deps), token: asked })
  if (listed) return selectedOf(deps, listed.symbol, listed)
  const onBase = TokenList.find({ name: 'base', chainId: base.id, token: asked })
  const originalOnBase = onBase && originalOf(onBase.symbol)
  if (originalOnBase) return selectedOf(deps, originalOnBase.symbol, contractOf(deps, originalOnBase.symbol))
  const feed = feedOf(deps, asked)
  return feed === undefined ? undefined : { symbol: feed, original: undefined, token: undefined, feed }
}

/**
 * The tokens an answer prices: `tokens` (comma-separated symbols or addresses, as {@link resolve} reads them), else
 * the original's tokens of `category`, else every token: the original's (ETH once, as it leaves WETH out), then the
 * chain's other listed tokens, then the feeds' others. A token none of them knows is refused, naming `field`.
 */
export function select(deps: Deps, parameters: select.Parameters): Selected[] {
  const { tokens, category, field = 'tokens' } = parameters
  if (tokens !== undefined && tokens.trim() !== '') {
    const asked = [...new Set(tokens.split(',').map((token) => token.trim()))].filter(Boolean)
    const found = asked.map((token) => resolve(deps, token))
    const unknown = asked.filter((_, index) => found[index] === undefined)
    if (unknown.length > 0)
      throw new ValidationError({
        field,
        message: `no such token: ${unknown.join(', ')}; name a symbol or address of GET /api/v1/swap/tokens, one of the original gateway's (${originalTokens.map((token) => token.symbol).join(', ')}) or a feed's (${feedSymbols(deps).join(', ')})`,
      })
    return unique(found as Selected[])
  }
  if (category !== undefined) {
    const wanted = oneOf(category, categories, 'category')
    return originalTokens
      .filter((token) => token.category === wanted)
      .map((token) => selectedOf(deps, token.symbol, contractOf(deps, token.symbol)))
  }
  const originals = originalTokens
    .filter((token) => token.symbol !== 'WETH')
    .map((token) => selectedOf(deps, token.symbol, contractOf(deps, token.symbol)))
  const listed = TokenList.known('base', chainIdOf(deps))
    .filter((token) => token.symbol !== 'WETH')
    .map((token) => selectedOf(deps, token.symbol, token))
  const feeds = feedSymbols(deps).map((feed) => selectedOf(deps, feed, undefined))
  return unique([...originals, ...listed, ...feeds])
}

export declare namespace select {
  type Parameters = {
    /** Comma-separated symbols or addresses; every token when absent or empty. */
    tokens?: string | undefined
    /** The original's category, when `tokens` is absent. */
    category?: string | undefined
    /** The query field `tokens` came in. @default 'tokens' */
    field?: string
  }
}

/** `selected` without a later token of an earlier one's symbol (any case). */
function unique(selected: readonly Selected[]): Selected[] {
  const seen = new Set<string>()
  return selected.filter((token) => {
    const key = token.symbol.toUpperCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The prices of `selected`, by symbol, with whether every read was from memory and the age of the oldest. */
async function priced(deps: Deps, selected: readonly Selected[]) {
  const feeds = [...new Set(selected.flatMap((token) => (token.feed === undefined ? [] : [token.feed])))]
  const { pools } = deps
  // The index of a token among the pools' tokens; -1 when a feed prices it or the pools do not.
  const indexOf = (token: Selected) =>
    token.feed === undefined && token.token !== undefined && pools
      ? pools.tokens.findIndex((candidate) => candidate.address === token.token!.address)
      : -1
  const [fed, read] = await Promise.all([
    feeds.length > 0 ? prices(deps, feeds) : undefined,
    pools && selected.some((token) => indexOf(token) >= 0) ? pools.read() : undefined,
  ])
  const nowS = Math.floor(deps.now() / 1000)
  const answer: Record<string, Price> = {}
  for (const token of selected) {
    const { symbol } = token
    const index = indexOf(token)
    if (token.feed !== undefined) answer[symbol] = { ...fed!.prices[token.feed]!, token: symbol }
    else if (index >= 0) answer[symbol] = poolPrice(pools!, symbol, read!.value[index], nowS)
    else if (token.token === undefined)
      answer[symbol] = {
        token: symbol,
        available: false,
        usd: null,
        reason: 'not_deployed',
        message: `${symbol} has no contract on this chain (chain id ${chainIdOf(deps)}); it is not priced rather than guessed.`,
        source: null,
      }
    else
      answer[symbol] = {
        token: symbol,
        available: false,
        usd: null,
        reason: 'no_price_source',
        message: `No price feed or pool of ${symbol} against a dollar token is configured here; it is not priced rather than guessed.`,
        source: null,
      }
  }
  const ages = [
    ...(fed ? [fed.age] : []),
    ...(read ? [Math.max(0, Math.floor((deps.now() - read.takenAt) / 1000))] : []),
  ]
  return {
    prices: answer,
    cached: (fed?.cached ?? true) && (read?.cached ?? true),
    age: Math.max(0, ...ages),
    sources: [...(fed ? ['chainlink-aggregator-v3'] : []), ...(read ? ['uniswap-v3-onchain'] : [])],
  }
}

/** The answer of one token priced from pools, or why it is not. */
function poolPrice(pools: Pools, symbol: string, price: Uniswap.UsdPrice | undefined, nowS: number): Price {
  const { chain, deployment } = pools
  const source = { type: 'uniswap-v3-pool' as const, chainId: chain.chainId, quoter: deployment.quoterV2 }
  if (!price)
    return {
      token: symbol,
      available: false,
      usd: null,
      reason: 'no_pool',
      message: `No Uniswap v3 pool of ${symbol} with USDC or WETH on this chain quotes it at any fee tier; it is not priced rather than guessed.`,
      source,
    }
  const symbolOf = (address: Address) =>
    TokenList.find({ name: 'base', chainId: chain.chainId, token: address })?.symbol ?? address
  const path = [price.legs[0]!.route.tokens[0]!, ...price.legs.map((leg) => leg.route.tokens[1]!)]
  const decimal = formatUnits(price.usd, Uniswap.priceDecimals)
  const timestamp = Number(price.timestamp)
  return {
    token: symbol,
    available: true,
    usd: Number(decimal),
    priceUSD: Number(decimal),
    usdDecimal: decimal,
    source: {
      ...source,
      route: path.map(symbolOf).join(' > '),
      pools: price.legs.map((leg) => {
        const [tokenIn, tokenOut] = leg.route.tokens as readonly [Address, Address]
        const fee = leg.route.fees[0]!
        return {
          address: Uniswap.poolAddress({ factory: deployment.factory, tokenA: tokenIn, tokenB: tokenOut, fee }),
          tokenIn,
          tokenOut,
          fee,
          amountIn: leg.amountIn.toString(),
          amountOut: leg.amountOut.toString(),
        }
      }),
      blockNumber: price.blockNumber.toString(),
    },
    updatedAt: new Date(timestamp * 1000).toISOString(),
    ageSeconds: Math.max(0, nowS - timestamp),
  }
}

/** The facts of a selected token the original gateway answers beside its price; `null` where it has no contract here. */
function factsOf(token: Selected) {
  return {
    symbol: token.symbol,
    name: token.original?.name ?? token.token?.name ?? null,
    address: token.token?.address ?? null,
    decimals: token.token?.decimals ?? null,
  }
}

/**
 * USD prices of `selected` (`/api/v1/prices`): each from its feed, or from the chain's Uniswap v3 pools, saying its
 * source and age, or why it has none; with the original gateway's `symbol`, `address`, `decimals`, `priceUSD`,
 * `network`, `chainId`, `tokenCount` (the tokens answered, as there) and `timestamp`.
 */
export async function tokenPrices(deps: Deps, selected: readonly Selected[]) {
  const read = await priced(deps, selected)
  const answer: Record<string, unknown> = {}
  for (const token of selected) {
    const price = read.prices[token.symbol]!
    answer[token.symbol] = { ...price, ...factsOf(token), priceUSD: price.available ? price.priceUSD : null }
  }
  return {
    currency: 'USD',
    prices: answer,
    network: 'base',
    chainId: chainIdOf(deps),
    source: read.sources.join('+') || null,
    tokenCount: selected.length,
    tokenList: { name: TokenList.keptList.name, version: TokenList.keptList.version },
    cacheSeconds: ttlMs / 1000,
    cached: read.cached,
    age: read.age,
    timestamp: new Date(deps.now()).toISOString(),
  }
}

/**
 * The prices of `selected` (`/api/v1/oracle/prices`) with the original gateway's fields (`symbol`, `name`, `address`,
 * `decimals`, `category`, `priceUSD`, `feeTier`, `confidence`) beside ours, and its `meta`; a token without a price is
 * `available: false` with the reason, never a made-up price. `meta.tokenCount` counts the priced ones, as the
 * original does. The original's tokens carry its category and confidence; the list's others `null`.
 */
export async function oraclePrices(deps: Deps, selected: readonly Selected[]) {
  const read = await priced(deps, selected)
  const answer: Record<string, unknown> = {}
  for (const token of selected) {
    const price = read.prices[token.symbol]!
    const { original } = token
    const pool = price.available && price.source.type === 'uniswap-v3-pool' ? price.source.pools?.[0] : undefined
    answer[token.symbol] = {
      ...price,
      ...factsOf(token),
      category: original?.category ?? null,
      priceUSD: price.available ? price.priceUSD : null,
      feeTier: pool?.fee ?? null,
      confidence: price.available && original ? confidenceOf(original.category, price.usdDecimal) : null,
    }
  }
  const pricedCount = Object.values(read.prices).filter((price) => price.available).length
  return {
    currency: 'USD',
    prices: answer,
    cacheSeconds: ttlMs / 1000,
    cached: read.cached,
    age: read.age,
    meta: {
      tokenCount: pricedCount,
      quoteCurrency: 'USD',
      source: read.sources.join('+') || null,
      chain: 'Base',
      chainId: chainIdOf(deps),
      tokenList: { name: TokenList.keptList.name, version: TokenList.keptList.version },
    },
  }
}

/** The original's confidence: a stablecoin within 0.5% of $1 is `pegged`, else `depeg-warning`; memecoins `medium`. */
function confidenceOf(category: Category, usd: string): string {
  if (category === 'memecoin') return 'medium'
  if (category !== 'stablecoin') return 'high'
  const off = parseUnits(usd, 18) - 10n ** 18n
  return (off < 0n ? -off : off) < 5n * 10n ** 15n ? 'pegged' : 'depeg-warning'
}
