import { UnreadableAnswerError } from '../../core/Errors.js'
import * as StockData from '../../core/StockData.js'
import { numberOf, stringOf } from '../research/paper.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Yahoo's interval of each resolution. */
const intervals: Record<StockData.Resolution, string> = {
  '1': '1m',
  '5': '5m',
  '15': '15m',
  '30': '30m',
  '60': '60m',
  D: '1d',
  W: '1wk',
  M: '1mo',
}

/**
 * Yahoo Finance's keyless chart and search endpoints (`GET /v8/finance/chart/{symbol}`, `GET /v1/finance/search`), as
 * its own site calls them: not a documented API, so its shapes are the ones its answers have long had. A quote is the
 * chart's `meta` (price, day range, previous close, currency, exchange, the day's trading sessions) and its one daily
 * candle (the open); prices are rounded to the places Yahoo quotes the symbol in (`priceHint`). A profile is the
 * chart's `meta` with the search's industry. Limit: 5 requests/s from this gateway (Yahoo publishes none); quotes
 * cached 15 s, everything else as long (one cache).
 */
export function yahoo(parameters: yahoo.Parameters): StockData.StockData {
  const { baseUrl, userAgent, now = Date.now, ...options } = parameters
  const client = vendor({
    id: 'yahoo-finance',
    name: 'Yahoo Finance',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 10_000,
    retries: 1,
    rateLimit: { capacity: 10, refill: 5, intervalMs: 1_000, maxWaitMs: 2_000 },
    cache: { ttlMs: 15_000, maxEntries: 2_000 },
    errorMessage: messageOf,
    now,
    ...options,
  })

  /** The chart of `symbol` for `query`; `found: null` on Yahoo's 404 (an unknown or delisted symbol). */
  async function chart(symbol: string, query: Record<string, string>, label: string) {
    const answer = await client.get(`/v8/finance/chart/${encodeURIComponent(symbol)}`, { query, accept: [404], label })
    if (!answer.ok) return answer
    if (answer.status === 404) return { ok: true as const, found: null }
    const read = client.read(() => {
      const result = fieldsOf(fieldsOf(answer.body).chart).result
      const first = Array.isArray(result) ? result[0] : undefined
      if (first === undefined)
        throw new UnreadableAnswerError(`Yahoo Finance answered a chart of ${symbol} without a result`)
      const chart = fieldsOf(first)
      const meta = fieldsOf(chart.meta)
      const quote = fieldsOf(
        Array.isArray(fieldsOf(chart.indicators).quote)
          ? (fieldsOf(chart.indicators).quote as unknown[])[0]
          : undefined,
      )
      const times = Array.isArray(chart.timestamp) ? chart.timestamp : []
      // Yahoo quotes a symbol in `priceHint` decimal places; its series carry binary noise past them.
      const places = Math.min(Math.max(numberOf(meta.priceHint) ?? 2, 0), 8)
      return { meta, quote, times, places }
    }, answer.status)
    return 'ok' in read ? read : { ok: true as const, found: read }
  }

  /** Yahoo's search quotes for `text`. */
  async function quotes(text: string) {
    const query = { q: text, quotesCount: '20', newsCount: '0', listsCount: '0' }
    const answer = await client.get('/v1/finance/search', { query, label: 'search' })
    if (!answer.ok) return answer
    const read = client.read(() => {
      const list = fieldsOf(answer.body).quotes
      if (!Array.isArray(list)) throw new UnreadableAnswerError('Yahoo Finance answered a search without quotes')
      return list.map(fieldsOf).filter((quote) => typeof quote.symbol === 'string')
    }, answer.status)
    return Array.isArray(read) ? { ok: true as const, quotes: read } : read
  }

  return {
    source: 'yahoo',

    async quote(symbol) {
      const read = await chart(symbol, { range: '1d', interval: '1d' }, 'quote')
      if (!read.ok || read.found === null) return read
      const { meta, quote, places } = read.found
      const current = priceOf(meta.regularMarketPrice, places)
      const time = numberOf(meta.regularMarketTime)
      if (current === null || time === null) return { ok: true, found: null }
      const previousClose = priceOf(meta.chartPreviousClose ?? meta.previousClose, places)
      const opens = Array.isArray(quote.open) ? quote.open : []
      const sessions = fieldsOf(meta.currentTradingPeriod)
      return {
        ok: true,
        found: {
          symbol: stringOf(meta.symbol) ?? symbol,
          current,
          high: priceOf(meta.regularMarketDayHigh, places),
          low: priceOf(meta.regularMarketDayLow, places),
          open: priceOf(opens.at(-1), places),
          previousClose,
          ...StockData.changeOf({ current, previous: previousClose }),
          time,
          currency: stringOf(meta.currency),
          exchange: stringOf(meta.fullExchangeName) ?? stringOf(meta.exchangeName),
          marketState: StockData.stateAt({
            time: Math.floor(now() / 1000),
            sessions: {
              pre: sessionOf(sessions.pre),
              regular: sessionOf(sessions.regular),
              post: sessionOf(sessions.post),
            },
          }),
        },
      }
    },

    async search(text) {
      const found = await quotes(text)
      if (!found.ok) return found
      return {
        ok: true,
        matches: found.quotes.map((quote) => ({
          symbol: quote.symbol as string,
          description: stringOf(quote.longname) ?? stringOf(quote.shortname),
          type: stringOf(quote.typeDisp) ?? stringOf(quote.quoteType),
          displaySymbol: quote.symbol as string,
          exchange: stringOf(quote.exchDisp) ?? stringOf(quote.exchange),
        })),
      }
    },

    async candles({ symbol, resolution, from, to }) {
      const query = { period1: String(from), period2: String(to), interval: intervals[resolution] }
      const read = await chart(symbol, query, 'candles')
      if (!read.ok || read.found === null) return read
      const { meta, quote, times, places } = read.found
      const series = (name: string) => (Array.isArray(quote[name]) ? (quote[name] as unknown[]) : [])
      const [opens, highs, lows, closes, volumes] = ['open', 'high', 'low', 'close', 'volume'].map(series)
      const candles = times.flatMap((time, index): StockData.Candle[] => {
        const [open, high, low, close] = [opens, highs, lows, closes].map((values) => priceOf(values![index], places))
        // A bar without prices is a gap in trading (a halt), not a candle.
        if (typeof time !== 'number' || open == null || high == null || low == null || close == null) return []
        return [{ time, open, high, low, close, volume: numberOf(volumes![index]) }]
      })
      return {
        ok: true,
        found: {
          currency: stringOf(meta.currency),
          exchange: stringOf(meta.fullExchangeName) ?? stringOf(meta.exchangeName),
          candles,
        },
      }
    },

    async profile(symbol) {
      const [read, found] = await Promise.all([
        chart(symbol, { range: '1d', interval: '1d' }, 'profile'),
        quotes(symbol),
      ])
      if (!read.ok || read.found === null) return read
      if (!found.ok) return found
      const { meta } = read.found
      const listed = stringOf(meta.symbol) ?? symbol
      const match = found.quotes.find((quote) => String(quote.symbol).toUpperCase() === listed.toUpperCase())
      const firstTrade = numberOf(meta.firstTradeDate)
      return {
        ok: true,
        found: {
          symbol: listed,
          name: stringOf(meta.longName) ?? stringOf(meta.shortName) ?? stringOf(match?.longname),
          country: null,
          currency: stringOf(meta.currency),
          exchange: stringOf(meta.fullExchangeName) ?? stringOf(meta.exchangeName),
          ipo: firstTrade === null ? null : new Date(firstTrade * 1000).toISOString().slice(0, 10),
          marketCap: null,
          industry: stringOf(match?.industryDisp) ?? stringOf(match?.industry),
          logo: null,
          weburl: null,
        },
      }
    },

    available: () => client.available(),
  }
}

export declare namespace yahoo {
  type Parameters = vendor.Options & {
    /** Base URL. @example 'https://query1.finance.yahoo.com' */
    baseUrl: string
    /** User-Agent naming the gateway (Yahoo refuses requests without one). */
    userAgent: string
  }
}

/** A price rounded to `places` decimals, as a decimal string without trailing zeros; `null` when it is not a price. */
function priceOf(value: unknown, places: number): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null
  const fixed = value.toFixed(places)
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed
}

/** A trading session of `currentTradingPeriod` (`{ start, end }`, epoch seconds), or `undefined`. */
function sessionOf(value: unknown): { start: number; end: number } | undefined {
  const { start, end } = fieldsOf(value)
  return typeof start === 'number' && typeof end === 'number' ? { start, end } : undefined
}

/** Yahoo's error message: `{ chart: { error: { description } } }` or `{ finance: { error: { description } } }`. */
function messageOf(answer: vendor.ErrorAnswer): string {
  try {
    const body = fieldsOf(JSON.parse(answer.text ?? ''))
    const error = fieldsOf(fieldsOf(body.chart ?? body.finance).error)
    if (typeof error.description === 'string') return error.description
  } catch {}
  return `answered HTTP ${answer.status}`
}
