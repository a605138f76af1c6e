import { Type } from '@sinclair/typebox'
import { zerox } from '../../adapters/vendor/zerox.js'
import { define } from './shared.js'

/** The 0x Swap API, whose quotes the swap family compares with Uniswap v3's, once ZEROX_API_KEY is set. */
export const aggregator = define({
  port: 'aggregator',
  description: 'a swap aggregator (ZEROX_API_KEY)',
  env: Type.Object({
    ZEROX_API_KEY: Type.Optional(
      Type.String({
        secret: true,
        minLength: 1,
        defaultText: 'none: swap quotes come from Uniswap v3 alone',
        description:
          '0x Swap API key (`0x-api-key`); when set, `/api/v1/swap/quote` compares the 0x quote with the Uniswap v3 one and answers the better, naming its source',
      }),
    ),
    ZEROX_API_URL: Type.String({
      secret: true,
      pattern: '^https?://',
      default: 'https://api.0x.org',
      description: 'base URL of the 0x Swap API v2',
    }),
  }),
  build: ({ env }) =>
    env.ZEROX_API_KEY ? zerox({ baseUrl: env.ZEROX_API_URL, apiKey: env.ZEROX_API_KEY }) : undefined,
})
