import { formatUnits } from 'viem'
import * as Cache from '../../core/Cache.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { PriceFeeds, Reading } from '../../core/PriceFeeds.js'

/** How long one reading of the feeds is served again, in ms. */
export const ttlMs = 60_000

/** What the prices module needs from outside. */
export type Deps = {
  /** The feeds. */
  feeds: PriceFeeds
  /** Current time, epoch ms. */
  now: () => number
  /** The reading of the last {@link ttlMs}. */
  cache: Cache.Cache<readonly Reading[]>
  /** The reading under way, which concurrent calls share. */
  inFlight: { read?: Promise<readonly Reading[]> | undefined }
}

/** The module's dependencies on `feeds`. */
export function from(parameters: { feeds: PriceFeeds; now?: () => number }): Deps {
  const { feeds, now = Date.now } = parameters
  return { feeds, now, cache: Cache.create({ ttlMs, maxEntries: 1, now }), inFlight: {} }
}

/** The USD price of one token, or why there is none. */
export type Price =
  | {
      /** Token symbol. */
      token: string
      /** A price. */
      available: true
      /** USD per whole token, decimal string. */
      usd: string
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
      /** `stale`, `invalid_answer` or `unreadable`. */
      reason: 'stale' | 'invalid_answer' | 'unreadable'
      /** One sentence. */
      message: string
      /** The feed. */
      source: { type: 'chainlink-aggregator-v3'; chainId: number; feed: string; description: string }
    }

/** The feeds' latest rounds, from the cache when read in the last {@link ttlMs}. */
async function readings(deps: Deps): Promise<readonly Reading[]> {
  const cached = deps.cache.get('feeds')
  if (cached) return cached
  deps.inFlight.read ??= deps.feeds
    .read()
    .then((read) => {
      deps.cache.set('feeds', read)
      return read
    })
    .catch((error: unknown) => {
      throw new UpstreamUnavailableError('The chain holding the price feeds did not answer; nothing is charged.', {
        cause: error,
      })
    })
    .finally(() => {
      deps.inFlight.read = undefined
    })
  return deps.inFlight.read
}

/** Tokens named by `tokens` (comma-separated, any case), or every feed's when none; unknown ones are refused. */
export function select(deps: Deps, tokens: string | undefined, field = 'tokens'): string[] {
  const known = deps.feeds.feeds.map((feed) => feed.symbol)
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

/** USD prices of `tokens`; a stale or non-positive round makes that token unavailable, not the answer. */
export async function prices(deps: Deps, tokens: readonly string[]) {
  const read = await readings(deps)
  const nowS = Math.floor(deps.now() / 1000)
  const answer: Record<string, Price> = {}
  for (const token of tokens) {
    const reading = read.find((candidate) => candidate.feed.symbol === token)!
    const { feed } = reading
    const source = {
      type: 'chainlink-aggregator-v3' as const,
      chainId: deps.feeds.chainId,
      feed: feed.address,
      description: feed.description,
    }
    if (!reading.ok) {
      answer[token] = { token, available: false, reason: 'unreadable', message: reading.message, source }
      continue
    }
    const ageSeconds = Math.max(0, nowS - reading.updatedAt)
    if (reading.answer <= 0n)
      answer[token] = {
        token,
        available: false,
        reason: 'invalid_answer',
        message: `The ${feed.description} feed answers ${reading.answer}, not a positive price.`,
        source,
      }
    else if (reading.updatedAt === 0 || ageSeconds > feed.heartbeatS)
      answer[token] = {
        token,
        available: false,
        reason: 'stale',
        message: `The ${feed.description} feed was last updated ${ageSeconds} s ago, past its ${feed.heartbeatS} s heartbeat.`,
        source,
      }
    else
      answer[token] = {
        token,
        available: true,
        usd: formatUnits(reading.answer, reading.decimals),
        source: { ...source, roundId: String(reading.roundId) },
        updatedAt: new Date(reading.updatedAt * 1000).toISOString(),
        ageSeconds,
      }
  }
  return { currency: 'USD', prices: answer, cacheSeconds: ttlMs / 1000 }
}
