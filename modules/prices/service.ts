import { formatUnits } from 'viem'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
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
