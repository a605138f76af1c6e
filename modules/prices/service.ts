import { formatUnits, parseUnits } from 'viem'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import { oneOf } from '../../core/internal/oneOf.js'
import * as PriceFeeds from '../../core/PriceFeeds.js'

/** How long one reading of the feeds is served again, in ms. */
export const ttlMs = 60_000

/** What the prices module needs from outside. */
export type Deps = {
  /** The feeds, read at most once per {@link ttlMs}. */
  feeds: PriceFeeds.shared.ReturnType
  /** Current time, epoch ms. */
  now: () => number
}

/** The module's dependencies on `feeds`. */
export function from(parameters: { feeds: PriceFeeds.PriceFeeds; now?: () => number }): Deps {
  const { feeds, now = Date.now } = parameters
  return { feeds: PriceFeeds.shared({ feeds, ttlMs, now }), now }
}

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
      /** USD per whole token, the feed's exact decimal string. */
      usdDecimal: string
      /** Where it comes from. */
      source: { type: 'chainlink-aggregator-v3'; chainId: number; feed: string; description: string; roundId: string }
      /** When the feed was last updated (ISO 8601). */
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
      /** `stale`, `invalid_answer` or `unreadable`. */
      reason: 'stale' | 'invalid_answer' | 'unreadable'
      /** One sentence. */
      message: string
      /** The feed. */
      source: { type: 'chainlink-aggregator-v3'; chainId: number; feed: string; description: string }
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

/** Tokens named by `tokens` (comma-separated, any case), or every feed's when none; unknown ones are refused. */
export function select(deps: Deps, tokens: string | undefined, field = 'tokens'): string[] {
  const known = deps.feeds.feeds.feeds.map((feed) => feed.symbol)
  if (tokens === undefined || tokens.trim() === '') return known
  const asked = [...new Set(tokens.split(',').map((token) => token.trim().toUpperCase()))].filter(Boolean)
  const unknown = asked.filter((token) => !known.includes(token))
  if (unknown.length > 0)
    throw new ValidationError({
      field,
      message: `no price feed for ${unknown.join(', ')}; the gateway prices ${known.join(', ')}`,
    })
  return asked
}

/**
 * USD prices of `tokens`; a stale or non-positive round makes that token unavailable, not the answer. `cached` says
 * whether the feeds were read by an earlier call, `age` how many seconds ago they were read.
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

/** A token of the original gateway's `/api/v1/oracle/prices`, with the feed that prices it here, if one does. */
export type OriginalToken = {
  /** Symbol, as the original writes it (e.g. `cbBTC`). */
  symbol: string
  /** Name. */
  name: string
  /** ERC-20 address on Base mainnet (WETH's for ETH, as the original answers it). */
  address: string
  /** Decimals of the token. */
  decimals: number
  /** The original's category. */
  category: Category
  /** Symbol of the feed that prices it here; none, and it is answered unpriced. */
  feed: string | undefined
}

/**
 * The original gateway's tokens (src/routes/oracle.ts `ORACLE_TOKENS`), in its order. It priced them from Uniswap
 * pools; here a token is priced only by a feed that prices it (ETH and WETH by ETH / USD, USDC by USDC / USD), and
 * the others are answered without a price, saying so, rather than priced from nothing.
 */
export const originalTokens: readonly OriginalToken[] = [
  ['ETH', 'Ether', '0x4200000000000000000000000000000000000006', 18, 'major', 'ETH'],
  ['WETH', 'Wrapped Ether', '0x4200000000000000000000000000000000000006', 18, 'major', 'ETH'],
  ['cbBTC', 'Coinbase Wrapped BTC', '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', 8, 'major', undefined],
  ['USDC', 'USD Coin', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 6, 'stablecoin', 'USDC'],
  ['USDT', 'Tether USD', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', 6, 'stablecoin', undefined],
  ['DAI', 'Dai Stablecoin', '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb', 18, 'stablecoin', undefined],
  ['EURC', 'Euro Coin', '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', 6, 'stablecoin', undefined],
  ['USDbC', 'USD Base Coin', '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA', 6, 'stablecoin', undefined],
  ['AERO', 'Aerodrome Finance', '0x940181a94A35A4569E4529A3CDfB74e38FD98631', 18, 'defi', undefined],
  ['DEGEN', 'Degen', '0x4ed4E862860beD51a9570b96d89aF5E1B0Efefed', 18, 'memecoin', undefined],
  ['BRETT', 'Brett', '0x532f27101965dd16442E59d40670FaF5eBB142E4', 18, 'memecoin', undefined],
  ['TOSHI', 'Toshi', '0xAC1Bd2486aAf3B5C0fc3Fd868558b082a531B2B4', 18, 'memecoin', undefined],
].map(([symbol, name, address, decimals, category, feed]) => ({
  symbol: symbol as string,
  name: name as string,
  address: address as string,
  decimals: decimals as number,
  category: category as Category,
  feed: feed as string | undefined,
}))

/** One token `/api/v1/oracle/prices` answers: a feed's symbol, or one of the original's tokens. */
export type OracleToken = { symbol: string; original: OriginalToken | undefined; feed: string | undefined }

/**
 * The tokens of `/api/v1/oracle/prices`: `tokens` (symbols of a feed or of the original's tokens, any case, or the
 * original's addresses), else the original's tokens of `category`, else every feed's and the original's (ETH once, as
 * the original leaves WETH out). A token neither knows is refused, naming `tokens`.
 */
export function oracleSelect(deps: Deps, tokens: string | undefined, category: string | undefined): OracleToken[] {
  const feeds = deps.feeds.feeds.feeds.map((feed) => feed.symbol)
  const ofOriginal = (token: OriginalToken): OracleToken => ({
    symbol: token.symbol,
    original: token,
    feed: token.feed,
  })
  if (tokens !== undefined && tokens.trim() !== '') {
    const asked = [...new Set(tokens.split(',').map((token) => token.trim()))].filter(Boolean)
    const found = asked.map((token) => {
      const original = originalTokens.find(
        (candidate) =>
          candidate.symbol.toUpperCase() === token.toUpperCase() ||
          candidate.address.toLowerCase() === token.toLowerCase(),
      )
      if (original) return ofOriginal(original)
      const feed = feeds.find((symbol) => symbol === token.toUpperCase())
      return feed === undefined ? token : { symbol: feed, original: undefined, feed }
    })
    const unknown = found.filter((token) => typeof token === 'string')
    if (unknown.length > 0)
      throw new ValidationError({
        field: 'tokens',
        message: `no such token: ${unknown.join(', ')}; the gateway knows ${[...new Set([...feeds, ...originalTokens.map((token) => token.symbol)])].join(', ')}`,
      })
    return found as OracleToken[]
  }
  if (category !== undefined) {
    const wanted = oneOf(category, categories, 'category')
    return originalTokens.filter((token) => token.category === wanted).map(ofOriginal)
  }
  const listed = originalTokens.filter((token) => token.symbol !== 'WETH').map(ofOriginal)
  const others = feeds
    .filter((symbol) => !listed.some((token) => token.symbol === symbol))
    .map((symbol) => ({ symbol, original: undefined, feed: symbol }))
  return [...listed, ...others]
}

/**
 * The prices of `selected` with the original gateway's fields (`symbol`, `name`, `address`, `decimals`, `category`,
 * `priceUSD`, `feeTier`, `confidence`) beside ours, and its `meta`; a token no feed prices is `available: false` with
 * reason `no_price_source`, never a made-up price. `meta.tokenCount` counts the priced ones, as the original does.
 */
export async function oraclePrices(deps: Deps, selected: readonly OracleToken[]) {
  const feedSymbols = [...new Set(selected.flatMap((token) => (token.feed === undefined ? [] : [token.feed])))]
  const read = await prices(deps, feedSymbols)
  const answer: Record<string, unknown> = {}
  for (const token of selected) {
    const { original } = token
    const facts = original
      ? {
          symbol: original.symbol,
          name: original.name,
          address: original.address,
          decimals: original.decimals,
          category: original.category,
        }
      : { symbol: token.symbol }
    if (token.feed === undefined) {
      answer[token.symbol] = {
        token: token.symbol,
        ...facts,
        available: false,
        usd: null,
        priceUSD: null,
        reason: 'no_price_source',
        message: `No price feed for ${token.symbol} is configured here; it is not priced rather than guessed.`,
      }
      continue
    }
    const price = read.prices[token.feed]!
    answer[token.symbol] = {
      ...price,
      token: token.symbol,
      ...facts,
      priceUSD: price.available ? price.priceUSD : null,
      feeTier: null,
      confidence: price.available && original ? confidenceOf(original.category, price.usdDecimal) : null,
    }
  }
  const priced = Object.values(answer).filter((price) => (price as { available: boolean }).available).length
  const { chainId } = deps.feeds.feeds
  return {
    ...read,
    prices: answer,
    meta: { tokenCount: priced, quoteCurrency: 'USD', source: 'chainlink-aggregator-v3', chain: 'Base', chainId },
  }
}

/** The original's confidence: a stablecoin within 0.5% of $1 is `pegged`, else `depeg-warning`; memecoins `medium`. */
function confidenceOf(category: Category, usd: string): string {
  if (category === 'memecoin') return 'medium'
  if (category !== 'stablecoin') return 'high'
  const off = parseUnits(usd, 18) - 10n ** 18n
  return (off < 0n ? -off : off) < 5n * 10n ** 15n ? 'pegged' : 'depeg-warning'
}
