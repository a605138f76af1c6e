import type { Address, PublicClient } from 'viem'
import type { Feed, PriceFeeds, Reading } from '../../core/PriceFeeds.js'

/** Canonical Multicall3, on Base and (from genesis) on the devnet. */
const multicall3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** The subset of Chainlink's AggregatorV3Interface the gateway reads. */
export const aggregatorV3Abi = [
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
  { type: 'function', name: 'description', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
] as const

/**
 * Opens the feeds: one multicall reads every feed's `description()` and `decimals()`, and a feed that does not
 * answer, or answers another pair, refuses the start (thrown). Then each `read` is one multicall of
 * `latestRoundData()`.
 */
export async function priceFeeds(parameters: priceFeeds.Parameters): Promise<PriceFeeds> {
  const { client, chainId, feeds } = parameters
  const checks = await client.multicall({
    multicallAddress: multicall3,
    allowFailure: true,
    contracts: feeds.flatMap((feed) => [
      { address: feed.address, abi: aggregatorV3Abi, functionName: 'description' } as const,
      { address: feed.address, abi: aggregatorV3Abi, functionName: 'decimals' } as const,
    ]),
  })
  const decimals = new Map<Feed, number>()
  for (const [index, feed] of feeds.entries()) {
    const description = checks[index * 2]!
    const places = checks[index * 2 + 1]!
    if (description.status !== 'success' || places.status !== 'success')
      throw new Error(`The ${feed.symbol} price feed at ${feed.address} does not answer description() and decimals().`)
    if (description.result !== feed.description)
      throw new Error(
        `The price feed at ${feed.address} is "${description.result}", not "${feed.description}" (${feed.symbol}).`,
      )
    decimals.set(feed, Number(places.result))
  }
  return {
    chainId,
    feeds,
    async read() {
      const rounds = await client.multicall({
        multicallAddress: multicall3,
        allowFailure: true,
        contracts: feeds.map(
          (feed) => ({ address: feed.address, abi: aggregatorV3Abi, functionName: 'latestRoundData' }) as const,
        ),
      })
      return feeds.map((feed, index): Reading => {
        const round = rounds[index]!
        if (round.status !== 'success')
          return { feed, ok: false, message: `The ${feed.symbol} feed did not answer latestRoundData().` }
        const [roundId, answer, , updatedAt] = round.result
        return { feed, ok: true, roundId, answer, decimals: decimals.get(feed)!, updatedAt: Number(updatedAt) }
      })
    },
  }
}

export declare namespace priceFeeds {
  type Parameters = {
    /** Client of the chain the feeds are on. */
    client: PublicClient
    /** Its chain id. */
    chainId: number
    /** The feeds. */
    feeds: readonly Feed[]
  }
}

/**
 * Chainlink's USD feeds on Base mainnet with their heartbeats (the longest time between two updates).
 * Each is checked at start by its `description()`.
 */
export const baseFeeds: readonly Feed[] = [
  {
    symbol: 'USDC',
    description: 'USDC / USD',
    address: '0x7e860098F58bBFC8648a4311b374B1D669a2bc6B',
    heartbeatS: 86_400,
  },
  { symbol: 'ETH', description: 'ETH / USD', address: '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70', heartbeatS: 1_200 },
  {
    symbol: 'SOL',
    description: 'SOL / USD',
    address: '0x975043adBb80fc32276CbF9Bbcfd4A601a12462D',
    heartbeatS: 86_400,
  },
]
