import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import { isAddress } from '@solana/kit'

/** Most feeds one `GET /api/v1/solana/pricefeed/prices` reads. */
export const maxFeeds = 50

/** A Pyth feed id: `0x` and 32 bytes in hex. */
export const feedIdPattern = '^0x[0-9a-fA-F]{64}$'

/** Largest amount of an SPL token or of lamports: a u64. */
const maxBaseUnits = 2n ** 64n - 1n

/** Whether `value` is a positive amount in base units that fits a u64, written as a plain integer. */
export function isBaseUnits(value: string): boolean {
  return /^[1-9][0-9]{0,19}$/.test(value) && BigInt(value) <= maxBaseUnits
}

// Checked by the route schemas, so a malformed address or amount is a 400 before any payment is asked for.
FormatRegistry.Set('solana-address', (value) => isAddress(value))
FormatRegistry.Set('solana-base-units', isBaseUnits)

/** A Solana address (a mint, a wallet, an asset id): base58 of 32 bytes. */
const address = (description: string) => Type.String({ maxLength: 44, format: 'solana-address', description })

/** A positive amount in base units. */
const baseUnits = (description: string) => Type.String({ maxLength: 20, format: 'solana-base-units', description })

/** Query of `GET /api/v1/solana/aggregator/quote`. */
export const QuoteQuery = Type.Object({
  inputMint: address('Mint sold, base58 (wrapped SOL is So11111111111111111111111111111111111111112).'),
  outputMint: address('Mint bought, base58.'),
  amount: baseUnits('Amount of inputMint sold, in its base units: an integer from 1 to 2^64-1 (1 SOL is 1000000000).'),
  slippageBps: Type.Optional(
    Type.String({
      pattern: '^(?:[0-9]|[1-9][0-9]{1,3}|10000)$',
      description: "Slippage tolerance in basis points, 0 to 10000. Default: the aggregator's (Jupiter: 50).",
    }),
  ),
})
/** Query of `GET /api/v1/solana/aggregator/quote`. */
export type QuoteQuery = Static<typeof QuoteQuery>

/** Body of `POST /api/v1/solana/aggregator/swap-tx`. */
export const SwapBody = Type.Object(
  {
    quoteResponse: Type.Object(
      {
        inputMint: address('Mint sold.'),
        outputMint: address('Mint bought.'),
        inAmount: baseUnits('Amount sold, in base units.'),
        outAmount: baseUnits('Amount bought, in base units.'),
        routePlan: Type.Array(Type.Unknown(), { minItems: 1, description: 'The route, as the aggregator planned it.' }),
      },
      {
        additionalProperties: true,
        description: 'The quoteResponse of GET /api/v1/solana/aggregator/quote, unchanged.',
      },
    ),
    userPublicKey: address('Wallet that signs the transaction and pays its fee, base58.'),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/solana/aggregator/swap-tx`. */
export type SwapBody = Static<typeof SwapBody>

/** Query of `GET /api/v1/solana/assetindex/assets-by-owner`. */
export const AssetsQuery = Type.Object({
  owner: address('Wallet whose assets are listed, base58.'),
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$', description: 'Page, from 1. Default: 1.' })),
  limit: Type.Optional(
    Type.String({ pattern: '^(?:[1-9][0-9]{0,2}|1000)$', description: 'Assets per page, 1 to 1000. Default: 100.' }),
  ),
})
/** Query of `GET /api/v1/solana/assetindex/assets-by-owner`. */
export type AssetsQuery = Static<typeof AssetsQuery>

/** Query of `GET /api/v1/solana/assetindex/asset`. */
export const AssetQuery = Type.Object({
  id: address('Asset id, base58: the mint of a token or NFT, or the id of a compressed NFT.'),
})
/** Query of `GET /api/v1/solana/assetindex/asset`. */
export type AssetQuery = Static<typeof AssetQuery>

/** Query of `GET /api/v1/solana/pricefeed/price`. */
export const PriceQuery = Type.Object({
  feedId: Type.String({
    pattern: feedIdPattern,
    description:
      'Pyth price feed id: 0x and 64 hex digits (SOL/USD is 0xef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d).',
  }),
})
/** Query of `GET /api/v1/solana/pricefeed/price`. */
export type PriceQuery = Static<typeof PriceQuery>

/** Query of `GET /api/v1/solana/pricefeed/prices`. */
export const PricesQuery = Type.Object({
  feedIds: Type.String({
    minLength: 1,
    // Room for a few more ids than allowed, so that the count, not the length, is what a long list is refused for.
    maxLength: 67 * (maxFeeds + 10),
    description: `Comma-separated Pyth price feed ids, each 0x and 64 hex digits, each once; 1 to ${maxFeeds}.`,
  }),
})
/** Query of `GET /api/v1/solana/pricefeed/prices`. */
export type PricesQuery = Static<typeof PricesQuery>
