import { type Static, Type } from '@sinclair/typebox'

const token = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'Token symbol of the curated list (`GET /api/v1/swap/tokens`: USDC, USDT, EURC, DAI, WETH) or an ERC-20 address.',
})

const amountIn = Type.String({
  minLength: 1,
  maxLength: 78,
  description: 'RAW base-unit integer string of tokenIn, e.g. "1000000000" for 1,000 USDC.',
})

/** Query of `GET /api/v1/swap/quote`. */
export const QuoteQuery = Type.Object({ tokenIn: token, tokenOut: token, amountIn })
/** Query of `GET /api/v1/swap/quote`. */
export type QuoteQuery = Static<typeof QuoteQuery>

/** Body of `POST /api/v1/swap/execute`. */
export const ExecuteBody = Type.Object(
  {
    tokenIn: token,
    tokenOut: token,
    amountIn,
    recipient: Type.String({ maxLength: 64, description: 'EVM address that receives tokenOut.' }),
    slippageBps: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 5_000,
        description: 'Tolerated shortfall from the fresh quote, in basis points, 0 to 5000; default 50 (0.5%).',
      }),
    ),
    deadline: Type.Optional(
      Type.Integer({
        description:
          'Seconds since the Unix epoch after which the swap reverts: in the future, at most a day ahead; default 20 minutes from now.',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/swap/execute`. */
export type ExecuteBody = Static<typeof ExecuteBody>

/** Query of `GET /api/v1/defi/positions`. */
export const PositionsQuery = Type.Object({
  address: Type.String({ maxLength: 64, description: 'EVM address whose positions are read.' }),
  chain: Type.Optional(Type.String({ maxLength: 32, description: 'Chain; `base` (the default) only.' })),
})
/** Query of `GET /api/v1/defi/positions`. */
export type PositionsQuery = Static<typeof PositionsQuery>
