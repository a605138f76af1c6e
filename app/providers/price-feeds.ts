import { base } from 'viem/chains'
import { contracts, devPriceFeeds } from '../../adapters/chain/devnet.js'
import { baseFeeds, baseFiatFeeds, priceFeeds } from '../../adapters/chain/priceFeeds.js'
import type { PriceFeeds } from '../../core/PriceFeeds.js'
import { define, type Shared } from './shared.js'

/** Heartbeat of the devnet's price feeds, in seconds: a day, so that a devnet left running keeps its prices. */
const devnetFeedHeartbeatS = 86_400

/**
 * The settlement chain's USD price feeds of `kind` (token prices or fiat currencies), each checked by `description()`
 * and `decimals()`: Chainlink's on Base, ours on a devnet. Feeds that fail the check leave the port absent (its
 * endpoints answer 503), with a warning.
 */
async function feedsOf(shared: Shared, kind: 'crypto' | 'fiat'): Promise<PriceFeeds | undefined> {
  const { settlement, logger } = shared
  const onBase = settlement.chain.id === base.id && !settlement.isDevnet
  const deployed = contracts().priceFeeds
  const feeds = onBase
    ? kind === 'crypto'
      ? baseFeeds
      : baseFiatFeeds
    : settlement.isDevnet
      ? devPriceFeeds
          .filter((feed) => feed.kind === kind)
          .map(({ symbol, description }) => ({
            symbol,
            description,
            address: deployed[symbol]!,
            heartbeatS: devnetFeedHeartbeatS,
          }))
      : undefined
  if (!feeds) return undefined
  try {
    return await priceFeeds({ client: settlement.client, chainId: settlement.chain.id, feeds })
  } catch (error) {
    logger.log('warn', 'price_feeds_unavailable', {
      kind,
      reason: error instanceof Error ? error.message : String(error),
    })
    return undefined
  }
}

// Both kinds are the same AggregatorV3 reads of the settlement chain, on two lists of feeds: one file.

/** USD prices of tokens (USDC, ETH, SOL) from the settlement chain's AggregatorV3 feeds, checked at start. */
export const prices = define({
  port: 'prices',
  description: 'price feeds',
  build: ({ shared }) => feedsOf(shared, 'crypto'),
})

/** USD prices of fiat currencies (EUR / USD, GBP / USD, ...) from the settlement chain's feeds, checked at start. */
export const fx = define({
  port: 'fx',
  description: 'fiat price feeds',
  build: ({ shared }) => feedsOf(shared, 'fiat'),
})
