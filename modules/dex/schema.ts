import { type Static, type TSchema, Type } from '@sinclair/typebox'

/** The index's chain id: `base`, `ethereum`, `solana`, `bsc`, ... (any case). */
const Chain = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9-]{0,31}$',
  description: "DexScreener's chain id, e.g. `base`, `ethereum`, `solana`, `bsc`, `arbitrum` (any case).",
})

/** One address as the index writes it: EVM hex, base58, or a Move type such as `0x2::sui::SUI`. */
const address = '[A-Za-z0-9_.:-]{1,128}'

/** A pool's address. */
const Pair = Type.String({ pattern: `^${address}$`, description: "The pool's (pair's) address on that chain." })

/** One token address, or up to 30 separated by commas. */
const Tokens = Type.String({
  pattern: `^${address}(,${address}){0,29}$`,
  description: 'A token address, or up to 30 separated by commas; its pairs on every chain.',
})

/** Query of `GET /free/dex/search`. */
export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '\\S',
    description: 'What to look for: a symbol, a name, an address, or a pair such as `SOL/USDC`.',
  }),
})
/** Query of `GET /free/dex/search`. */
export type SearchQuery = Static<typeof SearchQuery>

/** Path of `GET /free/dex/pairs/:chain/:pair`, and its query at `GET /free/dex/pairs?chain=&pair=`. */
export const PairParams = Type.Object({ chain: Chain, pair: Pair })
/** Path of `GET /free/dex/pairs/:chain/:pair`. */
export type PairParams = Static<typeof PairParams>

/** Path of `GET /free/dex/tokens/:address`, and its query at `GET /free/dex/tokens?address=`. */
export const TokenParams = Type.Object({ address: Tokens })
/** Path of `GET /free/dex/tokens/:address`. */
export type TokenParams = Static<typeof TokenParams>

const source = Type.String({ description: 'The index answering: `dexscreener`.' })
const figure = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })
const decimal = (description: string) => Type.Union([Type.String(), Type.Null()], { description })
const text = (description: string) => Type.Union([Type.String(), Type.Null()], { description })
const Token = Type.Object({
  address: Type.String(),
  name: text("The token's name."),
  symbol: text("The token's symbol."),
})
const byWindow = (value: TSchema, description: string) =>
  Type.Union([Type.Record(Type.String(), value), Type.Null()], { description })

/** A pair as search lists it (the original gateway's fields). */
const Listed = Type.Object({
  chain: Type.String({ description: "DexScreener's chain id." }),
  dex: Type.String({ description: "DexScreener's DEX id, e.g. `uniswap`." }),
  baseToken: Token,
  quoteToken: Type.Object({ symbol: text('Symbol of the quote token.'), name: text('Name of the quote token.') }),
  priceUsd: decimal('USD per base token, the decimal text DexScreener publishes.'),
  priceNative: decimal('Quote tokens per base token, as published.'),
  volume24h: figure('USD traded in 24 hours, a JSON number as published.'),
  priceChange24h: figure('Price change over 24 hours, in percent.'),
  liquidity: figure('USD in the pool, as published; `null` when DexScreener cannot price it.'),
  fdv: figure('Fully diluted valuation in USD, as published.'),
  pairAddress: Type.String(),
  url: text("The pair's page on DexScreener."),
})

/** Answers of the dex family, by catalog key. */
export const outputs: Record<string, TSchema> = {
  'GET /free/dex/search': Type.Object({
    source,
    query: Type.String({ description: 'The query, as given.' }),
    pairs: Type.Array(Listed, { maxItems: 20, description: 'The first 20 pairs found, in DexScreener’s order.' }),
  }),
  'GET /free/dex/pairs/:chain/:pair': Type.Object({
    source,
    chain: Type.String(),
    dex: Type.String(),
    baseToken: Token,
    quoteToken: Token,
    priceUsd: decimal('USD per base token, as published.'),
    priceNative: decimal('Quote tokens per base token, as published.'),
    volume: byWindow(Type.Number(), 'USD traded by window (`m5`, `h1`, `h6`, `h24`).'),
    priceChange: byWindow(Type.Number(), 'Price change in percent by window.'),
    liquidity: Type.Union([
      Type.Object({ usd: figure('In USD.'), base: figure('In base tokens.'), quote: figure('In quote tokens.') }),
      Type.Null(),
    ]),
    fdv: figure('Fully diluted valuation in USD.'),
    marketCap: figure('Market capitalization in USD.'),
    txns: byWindow(Type.Object({ buys: Type.Number(), sells: Type.Number() }), 'Buys and sells by window.'),
    pairCreatedAt: figure('When the pool was created, epoch ms.'),
    pairAddress: Type.String(),
    url: text("The pair's page on DexScreener."),
  }),
  'GET /free/dex/tokens/:address': Type.Object({
    source,
    token: Type.String({ description: 'The address (or addresses) asked about, as given.' }),
    pairCount: Type.Integer({ description: 'How many pairs DexScreener lists for it (at most 30 per address).' }),
    pairs: Type.Array(
      Type.Object({
        chain: Type.String(),
        dex: Type.String(),
        baseToken: text("Symbol of the pair's base token."),
        quoteToken: text('Symbol of the quote token.'),
        priceUsd: decimal('USD per base token, as published.'),
        volume24h: figure('USD traded in 24 hours.'),
        liquidity: figure('USD in the pool.'),
        pairAddress: Type.String(),
      }),
      { maxItems: 20, description: 'The first 20 pairs.' },
    ),
  }),
  'GET /free/dex/trending': Type.Object({
    source,
    trending: Type.Array(
      Type.Object({
        chain: Type.String(),
        tokenAddress: Type.String(),
        symbol: text(
          'Always `null`: boosts carry no symbol (the original gateway showed the address cut to 8 characters).',
        ),
        description: text("The token's own description."),
        url: text("The token's page on DexScreener."),
        amount: figure('Boost units of this promotion.'),
        totalAmount: figure('Boost units active on the token.'),
      }),
      { maxItems: 20, description: 'The 20 tokens boosted most recently on DexScreener (paid promotions).' },
    ),
  }),
}
