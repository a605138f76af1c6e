import { formatUnits } from 'viem'
import type { Oracle } from '../../core/Oracle.js'
import * as PriceFeeds from '../../core/PriceFeeds.js'

/**
 * The oracle port on USD price feeds (the token feeds and the fiat feeds): the USD price of a symbol is its feed's
 * latest round, refused with the reason when stale or not positive. Each set of feeds is read at most once per
 * `ttlMs`, concurrent look-ups sharing one read.
 */
export function feedOracle(parameters: feedOracle.Parameters): Oracle {
  const { feeds, ttlMs = 60_000, now = Date.now } = parameters
  const sets = feeds.map((set) => PriceFeeds.shared({ feeds: set, ttlMs, now }))
  const known = feeds.flatMap((set) => set.feeds.map((feed) => feed.symbol))
  return {
    async usdPrice(symbol) {
      const code = symbol.toUpperCase()
      const set = sets.find((candidate) => candidate.feeds.feeds.some((feed) => feed.symbol === code))
      if (!set)
        return {
          ok: false,
          reason: 'unknown_asset',
          message: `No price feed for ${code}; the gateway prices USD, ${known.join(', ')}.`,
        }
      let snapshot: PriceFeeds.Served
      try {
        snapshot = await set.read()
      } catch {
        return { ok: false, reason: 'unavailable', message: `The chain holding the ${code} / USD feed did not answer.` }
      }
      const reading = snapshot.readings.find((candidate) => candidate.feed.symbol === code)!
      const judged = PriceFeeds.judge(reading, Math.floor(now() / 1000))
      if (!judged.ok) return { ok: false, reason: 'unavailable', message: judged.message }
      const { feed, roundId, answer, decimals, updatedAt } = judged
      return {
        ok: true,
        usd: formatUnits(answer, decimals),
        source: `${feed.description} feed ${feed.address} on chain ${set.feeds.chainId}, round ${roundId}`,
        observedAt: new Date(updatedAt * 1000),
      }
    },
  }
}

export declare namespace feedOracle {
  type Parameters = {
    /** The sets of USD feeds, each checked at start; a symbol is looked up in the first set that has it. */
    feeds: readonly PriceFeeds.PriceFeeds[]
    /** How long one read of a set is served again, in ms. @default 60_000 */
    ttlMs?: number
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}
