import { Type } from '@sinclair/typebox'
import { jupiter, defaultUrl as jupiterUrl } from '../../adapters/solana/jupiter.js'
import { define, keyed } from './shared.js'

/** Jupiter's Swap API: its own URL needs JUPITER_API_KEY; a self-hosted one needs none. */
export const solanaSwap = define({
  port: 'solanaSwap',
  description: 'a swap aggregator (JUPITER_API_KEY, or JUPITER_URL of one that needs no key)',
  env: Type.Object({
    JUPITER_URL: Type.String({
      secret: true,
      pattern: '^https?://',
      default: jupiterUrl,
      description:
        "Jupiter's Swap API (`/quote`, `/swap`) behind `/api/v1/solana/aggregator/*`; any other URL (a self-hosted one) needs no key",
    }),
    JUPITER_API_KEY: Type.Optional(
      Type.String({
        secret: true,
        minLength: 1,
        defaultText: "none: the aggregator endpoints unavailable on Jupiter's own URL",
        description: 'key from portal.jup.ag, sent as `x-api-key`',
      }),
    ),
  }),
  build: ({ env }) => {
    const vendor = keyed(env.JUPITER_URL, env.JUPITER_API_KEY, jupiterUrl)
    return vendor && jupiter(vendor)
  },
})
