import { Type } from '@sinclair/typebox'
import { hermes, defaultUrl as hermesUrl } from '../../adapters/solana/hermes.js'
import { define, keyed } from './shared.js'

/** Pyth's Hermes price service: its own URL needs PYTH_API_KEY; a self-hosted one or a node provider's needs none. */
export const solanaPrices = define({
  port: 'solanaPrices',
  description: 'a Pyth Hermes server (PYTH_API_KEY, or HERMES_URL of one that needs no key)',
  env: Type.Object({
    HERMES_URL: Type.String({
      secret: true,
      pattern: '^https?://',
      default: hermesUrl,
      description:
        "Pyth Hermes behind `/api/v1/solana/pricefeed/*`; any other URL (self-hosted, a node provider's) needs no key",
    }),
    PYTH_API_KEY: Type.Optional(
      Type.String({
        secret: true,
        minLength: 1,
        defaultText:
          "none: the price-feed endpoints unavailable on Pyth's own Hermes, which requires a key since 2026-08-26",
        description: 'Pyth API key, sent as a bearer token',
      }),
    ),
  }),
  build: ({ env }) => {
    const vendor = keyed(env.HERMES_URL, env.PYTH_API_KEY, hermesUrl)
    return vendor && hermes(vendor)
  },
})
