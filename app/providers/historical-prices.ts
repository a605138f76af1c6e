import { Type } from '@sinclair/typebox'
import { coingecko } from '../../adapters/pricing/coingecko.js'
import { defillama } from '../../adapters/pricing/defillama.js'
import { define } from './shared.js'

/** Historical USD prices at a past time (the tax family): CoinGecko once its key is set, DefiLlama's keyless API otherwise. */
export const historicalPrices = define({
  port: 'historicalPrices',
  description: 'a historical price source (DEFILLAMA_COINS_URL or COINGECKO_API_KEY)',
  env: Type.Object({
    DEFILLAMA_COINS_URL: Type.String({
      pattern: '^https?://',
      default: 'https://coins.llama.fi',
      description:
        'DefiLlama coins API (`/prices/historical/{time}/{coin}`) that prices transactions given without a USD value (keyless public API unless set)',
    }),
    COINGECKO_API_KEY: Type.Optional(
      Type.String({
        minLength: 1,
        defaultText: 'none: DefiLlama prices',
        description: 'CoinGecko Pro API key; when set, historical prices come from CoinGecko instead of DefiLlama',
        secret: true,
      }),
    ),
    COINGECKO_API_URL: Type.String({
      pattern: '^https?://',
      default: 'https://pro-api.coingecko.com/api/v3',
      description: 'CoinGecko API (`/coins/{id}/history`) used with COINGECKO_API_KEY',
    }),
  }),
  build: ({ env }) =>
    env.COINGECKO_API_KEY
      ? coingecko({ url: env.COINGECKO_API_URL, apiKey: env.COINGECKO_API_KEY })
      : defillama({ url: env.DEFILLAMA_COINS_URL }),
})
