import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'

/**
 * Stocks (`/api/v1/stocks/*`, all GET): a quote that says its source, currency, exchange, time and market session, a
 * symbol search, candles and a company profile, with the original gateway's parameters and answer fields. The source
 * is Finnhub (the original's) once FINNHUB_API_KEY is set, Yahoo Finance's keyless endpoints otherwise unless the
 * operator turns them off (then a 503 before payment until the key is set). An unknown symbol is a 404 and an upstream
 * 429 or 5xx a 503 or 502, none of them charged.
 */
export const manifest = Module.define({
  name: 'stocks',
  paths: ['/api/v1/stocks/'],
  needs: ['stocks'],
  outputs,
  routes: ({ ports }) => routes({ stocks: ports.stocks, now: Date.now }),
  ready: ({ ports }) => Module.reasonOf(ports.stocks.available()),
})
