import { Type } from '@sinclair/typebox'
import { finnhub } from '../../adapters/stocks/finnhub.js'
import { yahoo } from '../../adapters/stocks/yahoo.js'
import * as Catalog from '../../core/Catalog.js'
import { define } from './shared.js'

/**
 * The stock data source STOCKS_SOURCE names: by default Finnhub (the original gateway's) once FINNHUB_API_KEY is set,
 * Yahoo Finance's keyless endpoints until then; `finnhub` alone leaves the stocks family unconfigured until the key is.
 */
export const stocks = define({
  port: 'stocks',
  description: 'a stock data source (FINNHUB_API_KEY, or STOCKS_SOURCE=auto or yahoo for Yahoo Finance keyless)',
  env: Type.Object({
    STOCKS_SOURCE: Type.Union([Type.Literal('auto'), Type.Literal('finnhub'), Type.Literal('yahoo')], {
      default: 'auto',
      description:
        "source of `/api/v1/stocks/*`: `auto` (Finnhub once FINNHUB_API_KEY is set, Yahoo Finance's keyless endpoints until then), `finnhub` (only Finnhub: a 503 until the key is set; for an operator whose terms rule out Yahoo's undocumented endpoints) or `yahoo`",
    }),
    FINNHUB_URL: Type.String({
      pattern: '^https?://',
      default: 'https://finnhub.io/api/v1',
      description: 'Finnhub API',
    }),
    FINNHUB_API_KEY: Type.Optional(
      Type.String({
        minLength: 1,
        secret: true,
        defaultText: 'none: Yahoo Finance keyless (STOCKS_SOURCE=auto)',
        description:
          'Finnhub API key (finnhub.io; the free plan has no candles: `/api/v1/stocks/history` needs a paid one)',
      }),
    ),
    FINNHUB_CALLS_PER_MINUTE: Type.Integer({
      minimum: 1,
      maximum: 6_000,
      default: 60,
      description: "calls per minute the Finnhub key's plan allows (60 on the free plan); the gateway keeps under it",
    }),
    YAHOO_FINANCE_URL: Type.String({
      pattern: '^https?://',
      default: 'https://query1.finance.yahoo.com',
      description:
        "Yahoo Finance's chart and search endpoints (`/v8/finance/chart/{symbol}`, `/v1/finance/search`), keyless and undocumented",
    }),
  }),
  build: ({ env }) => {
    const source = env.STOCKS_SOURCE === 'auto' ? (env.FINNHUB_API_KEY ? 'finnhub' : 'yahoo') : env.STOCKS_SOURCE
    if (source === 'yahoo')
      return yahoo({
        baseUrl: env.YAHOO_FINANCE_URL,
        userAgent: `Mozilla/5.0 (compatible; pay-per-call-gateway/${Catalog.overviewVersion})`,
      })
    if (!env.FINNHUB_API_KEY) return undefined
    return finnhub({
      baseUrl: env.FINNHUB_URL,
      apiKey: env.FINNHUB_API_KEY,
      callsPerMinute: env.FINNHUB_CALLS_PER_MINUTE,
    })
  },
})
