import { Type } from '@sinclair/typebox'

/** Query of `GET /api/v1/oracle/fx`. */
export const FxQuery = Type.Object({
  base: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{3,5}$',
      description:
        "What the rates are against, any case: one of the original gateway's stablecoins (USDC, USDT, DAI, EURC, USDbC), priced from the chain's Uniswap v3 pools, or an ISO 4217 currency with a fiat feed (USD, EUR, ...), priced from the feeds. @default USDC",
    }),
  ),
})
