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

/**
 * Chainlink's fiat USD feeds on Base mainnet with their heartbeats. Each is checked at start by its `description()`
 * and `decimals()`. Only pairs whose Base address is published are listed: Base has no JPY / USD feed. Fiat feeds
 * follow market hours, so over a weekend a round can pass its heartbeat and is then refused as stale.
 */
export const baseFiatFeeds: readonly Feed[] = [
  { symbol: 'EUR', description: 'EUR / USD', address: '0xc91D87E81faB8f93699ECf7Ee9B44D11e1D53F0F', heartbeatS: 3_600 },
  {
    symbol: 'GBP',
    description: 'GBP / USD',
    address: '0xCceA6576904C118037695eB71195a5425E69Fa15',
    heartbeatS: 86_400,
  },
  {
    symbol: 'CHF',
    description: 'CHF / USD',
    address: '0x3A1d6444fb6a402470098E23DaD0B7E86E14252F',
    heartbeatS: 86_400,
  },
  { symbol: 'CAD', description: 'CAD / USD', address: '0xA840145F87572E82519d578b1F36340368a25D5d', heartbeatS: 3_600 },
  {
    symbol: 'AUD',
    description: 'AUD / USD',
    address: '0x46e51B8cA41d709928EdA9Ae43e42193E6CDf229',
    heartbeatS: 86_400,
  },
]
