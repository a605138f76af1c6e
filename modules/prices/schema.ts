import { Type } from '@sinclair/typebox'

/** Comma-separated token symbols. */
const Tokens = Type.String({ maxLength: 200, description: 'Comma-separated symbols, e.g. `ETH,SOL`; all when absent.' })

/** Query of `GET /api/v1/prices`: one token (`token`) or many (`tokens`); every token when neither. */
export const PricesQuery = Type.Object({
  tokens: Type.Optional(Tokens),
  token: Type.Optional(Type.String({ maxLength: 20, description: 'One symbol, e.g. `ETH`.' })),
})

/** Query of `GET /api/v1/oracle/prices`. */
export const OraclePricesQuery = Type.Object({
  tokens: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        "Comma-separated symbols (a feed's, or the original gateway's: ETH, WETH, cbBTC, USDC, USDT, DAI, EURC, USDbC, AERO, DEGEN, BRETT, TOSHI) or the original's Base token addresses. @default every token",
    }),
  ),
  category: Type.Optional(
    Type.String({
      maxLength: 20,
      description:
        "The original gateway's category when `tokens` is absent: major, stablecoin, memecoin or defi. @default every category",
    }),
  ),
})
