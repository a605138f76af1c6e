import { Type } from '@sinclair/typebox'

/** What a token of these queries may be. */
const tokenText =
  "a symbol or address of the settlement chain's listed tokens (GET /api/v1/swap/tokens: the curated ones and Uniswap's default token list, 100+ on Base), one of the original gateway's (ETH, WETH, cbBTC, USDC, USDT, DAI, EURC, USDbC, AERO, DEGEN, BRETT, TOSHI, or their Base addresses) or a feed's (SOL); any case"

/** Comma-separated tokens. */
const Tokens = Type.String({
  maxLength: 5_000,
  description: `Comma-separated tokens, each ${tokenText}, e.g. \`ETH,cbBTC\`. @default every token`,
})

/** Query of `GET /api/v1/prices`: one token (`token`) or many (`tokens`); every token when neither. */
export const PricesQuery = Type.Object({
  tokens: Type.Optional(Tokens),
  token: Type.Optional(Type.String({ maxLength: 64, description: `One token: ${tokenText}, e.g. \`cbBTC\`.` })),
})

/** Query of `GET /api/v1/oracle/prices`. */
export const OraclePricesQuery = Type.Object({
  tokens: Type.Optional(Tokens),
  category: Type.Optional(
    Type.String({
      maxLength: 20,
      description:
        "The original gateway's category when `tokens` is absent: major, stablecoin, memecoin or defi (its tokens of that category). @default every token",
    }),
  ),
})
