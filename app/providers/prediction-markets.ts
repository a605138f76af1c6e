import { Type } from '@sinclair/typebox'
import { polymarket } from '../../adapters/markets/polymarket.js'
import * as Catalog from '../../core/Catalog.js'
import { define } from './shared.js'

/** A keyless public API's base URL variable. */
const url = (value: string, description: string) =>
  Type.String({ pattern: '^https?://', default: value, description: `${description} (keyless public API unless set)` })

/** Polymarket's public APIs (Gamma, the CLOB, the data API), keyless and on by default. */
export const predictionMarkets = define({
  port: 'predictionMarkets',
  description: 'a prediction-market venue (POLYMARKET_GAMMA_URL, POLYMARKET_CLOB_URL and POLYMARKET_DATA_URL)',
  env: Type.Object({
    POLYMARKET_GAMMA_URL: url(
      'https://gamma-api.polymarket.com',
      "Polymarket's Gamma API (`/events`, `/markets`, `/public-search`) behind `/api/v1/markets/polymarket/events`, `market/:conditionId` and `/api/v1/markets/search`",
    ),
    POLYMARKET_CLOB_URL: url(
      'https://clob.polymarket.com',
      "Polymarket's CLOB (`/book`) behind `/api/v1/markets/polymarket/orderbook/:tokenId`",
    ),
    POLYMARKET_DATA_URL: url(
      'https://data-api.polymarket.com',
      "Polymarket's data API (`/trades`) behind `/api/v1/markets/polymarket/trades/:conditionId`",
    ),
  }),
  build: ({ env }) =>
    polymarket({
      gammaUrl: env.POLYMARKET_GAMMA_URL,
      clobUrl: env.POLYMARKET_CLOB_URL,
      dataUrl: env.POLYMARKET_DATA_URL,
      userAgent: `pay-per-call-gateway/${Catalog.overviewVersion}`,
    }),
})
