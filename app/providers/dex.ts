import { Type } from '@sinclair/typebox'
import { dexscreener } from '../../adapters/dex/dexscreener.js'
import { define } from './shared.js'

/** DexScreener, the index of DEX pairs behind the free DEX data (`/free/dex/*`). */
export const dex = define({
  port: 'dex',
  description: 'an index of DEX pairs (DEXSCREENER_URL)',
  env: Type.Object({
    DEXSCREENER_URL: Type.String({
      minLength: 1,
      pattern: '^https?://',
      default: 'https://api.dexscreener.com',
      description:
        "DexScreener's API (`/latest/dex/search`, `/latest/dex/pairs/{chain}/{pair}`, `/latest/dex/tokens/{addresses}`, `/token-boosts/latest/v1`) behind `/free/dex/*`; keyless public API unless set",
    }),
  }),
  build: ({ env }) => dexscreener({ baseUrl: env.DEXSCREENER_URL }),
})
