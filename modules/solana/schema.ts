import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import { isAddress } from '@solana/kit'
import { USDC_MAINNET_ADDRESS } from '@x402/svm'
import * as Units from '../../core/Units.js'

/** Most feeds one `GET /api/v1/solana/pricefeed/prices` reads. */
export const maxFeeds = 50

/**
 * Mints the original gateway's clients name by symbol on the aggregator (its `TOKEN_ALIASES`): SOL is wrapped SOL
 * (the native mint), USDC is @x402/svm's mainnet USDC, the others the issuers' mainnet mints as the original maps them.
 */
export const mintsBySymbol: Readonly<Record<string, string>> = {
  SOL: 'So11111111111111111111111111111111111111112',
  USDC: USDC_MAINNET_ADDRESS,
  USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
  WIF: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm',
  BONK: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
  JUP: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
  PYTH: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3',
  JTO: 'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL',
}

/**
 * Pyth feed ids (against USD) the original gateway's clients name by symbol (its `FEED_ALIASES`), as Pyth documents
 * them for Solana mainnet (pyth-network/documentation, `pages/price-feeds/sponsored-feeds/data/svm/solana_mainnet.json`).
 */
export const feedIdsBySymbol: Readonly<Record<string, string>> = {
  SOL: '0xef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  BTC: '0xe62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43',
  ETH: '0xff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace',
  USDC: '0xeaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
  USDT: '0x2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b',
  JUP: '0x0a0408d619e9380abad35060f9192039ed5042fa6f82301d0e48bb52be830996',
  PYTH: '0x0bbf28e9a841a1cc788f6a361b17ca072d0ea3098a1e5df1c3922d06719579ff',
  BONK: '0x72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
  WIF: '0x4ca4beeca86f0d164160323817a4e42b10010a724c2217c6ee41b54cd4cc61fc',
  JTO: '0xb43660a5f790c69354b0729a5ef9d50d68f1df92107540210b9cccba1f947cc2',
}

/** The mint a symbol of {@link mintsBySymbol} (any case) stands for, or the value itself. */
export function mintOf(value: string): string {
  return mintsBySymbol[value.toUpperCase()] ?? value
}

/**
 * The feed id (`0x` and lower-case hex) a symbol of {@link feedIdsBySymbol} (any case) or a hex id with or without
 * `0x` stands for; `undefined` when it is neither.
 */
export function feedIdOf(value: string): string | undefined {
  const known = feedIdsBySymbol[value.toUpperCase()]
  if (known !== undefined) return known
  const hex = value.replace(/^0x/i, '')
  return /^[0-9a-fA-F]{64}$/.test(hex) ? `0x${hex.toLowerCase()}` : undefined
}

/** Largest amount of an SPL token or of lamports: a u64. */
const maxBaseUnits = 2n ** 64n - 1n

/** Whether `value` is a positive amount in base units that fits a u64, written as a plain integer. */
export function isBaseUnits(value: string): boolean {
  return /^[1-9][0-9]{0,19}$/.test(value) && BigInt(value) <= maxBaseUnits
}

// Checked by the route schemas, so a malformed address or amount is a 400 before any payment is asked for.
FormatRegistry.Set('solana-address', (value) => isAddress(value))
FormatRegistry.Set('solana-base-units', isBaseUnits)
FormatRegistry.Set('solana-mint', (value) => isAddress(mintOf(value)))
FormatRegistry.Set('pyth-feed', (value) => feedIdOf(value) !== undefined)

/** A Solana address (a mint, a wallet, an asset id): base58 of 32 bytes. */
const address = (description: string) => Type.String({ maxLength: 44, format: 'solana-address', description })

/** A mint, base58, or a symbol of {@link mintsBySymbol}. */
const mint = (description: string) =>
  Type.String({
    maxLength: 44,
    format: 'solana-mint',
    description: `${description} Or a symbol: ${Object.keys(mintsBySymbol).join(', ')}.`,
  })

/** A positive amount in base units. */
const baseUnits = (description: string) =>
  Type.String({ maxLength: 20, format: 'solana-base-units', ...Units.amountOptions({ unit: 'raw', description }) })

/** Query of `GET /api/v1/solana/aggregator/quote`. */
export const QuoteQuery = Type.Object({
  inputMint: mint('Mint sold, base58 (wrapped SOL is So11111111111111111111111111111111111111112).'),
  outputMint: mint('Mint bought, base58.'),
  amount: baseUnits(
    'RAW amount of inputMint sold, in its base units (as the original gateway reads it): an integer from 1 to 2^64-1 (1 SOL is 1000000000).',
  ),
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
        inAmount: baseUnits('RAW amount sold, in base units, as the quote answered it.'),
        outAmount: baseUnits('RAW amount bought, in base units, as the quote answered it.'),
        routePlan: Type.Array(Type.Unknown(), { minItems: 1, description: 'The route, as the aggregator planned it.' }),
      },
      {
        additionalProperties: true,
        description: 'The quoteResponse of GET /api/v1/solana/aggregator/quote, unchanged.',
      },
    ),
    userPublicKey: address('Wallet that signs the transaction and pays its fee, base58.'),
    wrapAndUnwrapSol: Type.Optional(
      Type.Boolean({ description: 'Whether the transaction wraps SOL in and unwraps it out. Default: true.' }),
    ),
    prioritizationFeeLamports: Type.Optional(
      Type.Union(
        [Type.Literal('auto'), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })],
        Units.amountOptions({
          unit: 'raw',
          description:
            "Priority fee, RAW lamports as a JSON integer (1 SOL is 10^9), or auto for the aggregator's estimate. Default: auto.",
        }),
      ),
    ),
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
  showFungible: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'Whether fungible tokens are listed beside NFTs. Default: true.',
    }),
  ),
  showNativeBalance: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: "Whether the owner's SOL is answered as nativeBalance (lamports). Default: true.",
    }),
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
    maxLength: 66,
    format: 'pyth-feed',
    description: `Pyth price feed id: 64 hex digits, with or without 0x (SOL/USD is 0xef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d), or a symbol: ${Object.keys(feedIdsBySymbol).join(', ')}.`,
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
    description: `Comma-separated Pyth price feed ids (64 hex digits, with or without 0x) or symbols (${Object.keys(feedIdsBySymbol).join(', ')}), each once; 1 to ${maxFeeds}. Entries that are neither are answered in invalid.`,
  }),
})
/** Query of `GET /api/v1/solana/pricefeed/prices`. */
export type PricesQuery = Static<typeof PricesQuery>
