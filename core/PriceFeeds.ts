import type { Address } from 'viem'

/** One AggregatorV3-compatible USD feed the gateway reads. */
export type Feed = {
  /** Token the feed prices, e.g. `ETH`. */
  symbol: string
  /** What the feed's `description()` must answer, e.g. `ETH / USD`. */
  description: string
  /** Feed contract address. */
  address: Address
  /** Longest time, in seconds, between two updates of a live feed; a round older than this is stale. */
  heartbeatS: number
}

/** The latest round of one feed, or why it could not be read. */
export type Reading =
  | {
      /** The feed read. */
      feed: Feed
      /** Read. */
      ok: true
      /** Round id. */
      roundId: bigint
      /** Answer in units of 10^-decimals USD. */
      answer: bigint
      /** Decimals of the answer. */
      decimals: number
      /** When the round was updated, seconds since the Unix epoch. */
      updatedAt: number
    }
  | {
      /** The feed read. */
      feed: Feed
      /** Not read. */
      ok: false
      /** One sentence. */
      message: string
    }

/** USD price feeds on one chain, each checked once (description and decimals) before it is offered. */
export type PriceFeeds = {
  /** EIP-155 chain id of the feeds. */
  chainId: number
  /** The feeds, in the order answers list them. */
  feeds: readonly Feed[]
  /** The latest round of every feed, in one multicall; throws when the chain does not answer. */
  read: () => Promise<readonly Reading[]>
}
