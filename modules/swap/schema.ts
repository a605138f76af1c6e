import { type Static, Type } from '@sinclair/typebox'
import * as Units from '../../core/Units.js'

const token = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "Token symbol of the chain's listed tokens (`GET /api/v1/swap/tokens`: the curated USDC, USDT, EURC, DAI, WETH, then Uniswap's default token list, 100+ on Base, with the original gateway's cbBTC, USDbC, AERO, DEGEN, BRETT and TOSHI; any case), ETH (read as WETH: a swap spends WETH, so wrap ether first) or an ERC-20 address.",
})

const amountInText =
  'HUMAN decimal amount of tokenIn, as the original gateway reads it: "1000" is 1,000 USDC (1000000000 base units); at most the token\'s decimals. Answers carry it as tokenIn.amount (human) and tokenIn.amountRaw (base units).'

const amountIn = Type.String({
  minLength: 1,
  maxLength: Units.maxIntegerDigits + 40,
  ...Units.amountOptions({ unit: 'human', description: amountInText }),
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
    amountIn: Units.decimalSchema({ description: amountInText }),
    recipient: Type.String({ maxLength: 64, description: 'EVM address that receives tokenOut.' }),
    slippageBps: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 5_000,
        description: 'Tolerated shortfall from the fresh quote, in basis points, 0 to 5000; default 50 (0.5%).',
      }),
    ),
    slippage: Type.Optional(
      Type.Union([Type.Number(), Type.String({ maxLength: 16 })], {
        description:
          "The original MCP tool's tolerance in PERCENT, 0.01 to 50 with at most 2 decimals (0.5 is 50 basis points); instead of slippageBps, not with it.",
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
  chain: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        "Chain: Base only, in any spelling (`base`, or the original gateway's default `base-mainnet`; any case); default base. Another chain (`eth-mainnet`, ...) is a 400 naming chain.",
    }),
  ),
})
/** Query of `GET /api/v1/defi/positions`. */
export type PositionsQuery = Static<typeof PositionsQuery>
