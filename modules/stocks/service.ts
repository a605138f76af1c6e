import { NotFoundError, ValidationError } from '../../core/Errors.js'
import { integerParameter } from '../../core/internal/queryParameter.js'
import type * as StockData from '../../core/StockData.js'
import * as Upstream from '../../core/Upstream.js'
import type { HistoryQuery } from './schema.js'

/** What the stocks endpoints need from outside. */
export type Deps = {
  /** The stock data source (Finnhub, or Yahoo Finance keyless). */
  stocks: StockData.StockData
  /** Current time, epoch ms (history's default range). */
  now: () => number
}

/** History's default range: 30 days, in seconds, as the original gateway's. */
const defaultRange = 30 * 86_400

/** Latest `from` or `to` taken: 2100-01-01, epoch seconds. */
const lastSecond = 4_102_444_800

/** Symbols a search answers. */
const searchResults = 20

/** The found value, or a 404 (nothing charged) naming the symbol. */
function known<value>(deps: Deps, found: value | null, symbol: string): value {
  if (found === null) throw new NotFoundError(`${deps.stocks.source} does not know the symbol ${symbol}.`)
  return found
}

// Prices are exact decimal strings up to here; the original gateway answers JSON numbers, and so does this edge.
const numberOf = (value: string | null) => (value === null ? null : Number(value))

/** The latest quote of `symbol`: its source, currency, exchange, time, and whether its market is open. */
export async function price(deps: Deps, symbol: string) {
  const wanted = symbol.toUpperCase()
  const quote = known(deps, Upstream.toValue(await deps.stocks.quote(wanted)).found, wanted)
  return {
    source: deps.stocks.source,
    symbol: quote.symbol,
    current: Number(quote.current),
    high: numberOf(quote.high),
    low: numberOf(quote.low),
    open: numberOf(quote.open),
    previousClose: numberOf(quote.previousClose),
    change: numberOf(quote.change),
    changePercent: numberOf(quote.changePercent),
    timestamp: quote.time,
    time: new Date(quote.time * 1000).toISOString(),
    currency: quote.currency,
    exchange: quote.exchange,
    marketState: quote.marketState,
    marketOpen: quote.marketState === null ? null : quote.marketState === 'regular',
  }
}

/** Symbols matching `q`. */
export async function search(deps: Deps, q: string) {
  const { matches } = Upstream.toValue(await deps.stocks.search(q))
  return { source: deps.stocks.source, query: q, count: matches.length, results: matches.slice(0, searchResults) }
}

/**
 * History's range, epoch seconds, read before payment too: `to` (default now) and `from` (default 30 days before);
 * `from` must come first. A 400 names a parameter that is not an integer in bounds.
 */
export function rangeOf(deps: Pick<Deps, 'now'>, query: { from?: unknown; to?: unknown }) {
  const bounds = { min: 0, max: lastSecond, fallback: undefined }
  const to = integerParameter({ value: query.to, field: 'to', ...bounds }) ?? Math.floor(deps.now() / 1000)
  const from = integerParameter({ value: query.from, field: 'from', ...bounds }) ?? to - defaultRange
  if (from >= to) throw new ValidationError({ field: 'from', message: 'must be earlier than to' })
  return { from, to }
}

/** The candles of `symbol` over a range, oldest first. */
export async function history(deps: Deps, query: HistoryQuery) {
  const symbol = query.symbol.toUpperCase()
  const resolution = query.resolution ?? 'D'
  const { from, to } = rangeOf(deps, query)
  const found = known(deps, Upstream.toValue(await deps.stocks.candles({ symbol, resolution, from, to })).found, symbol)
  const candles = found.candles.map((candle) => ({
    timestamp: candle.time,
    open: Number(candle.open),
    high: Number(candle.high),
    low: Number(candle.low),
    close: Number(candle.close),
    volume: candle.volume,
  }))
  return {
    source: deps.stocks.source,
    symbol,
    resolution,
    from,
    to,
    currency: found.currency,
    exchange: found.exchange,
    count: candles.length,
    candles,
    ...(candles.length === 0 ? { note: 'No data for range' } : {}),
  }
}

/** What the company behind `symbol` is. */
export async function company(deps: Deps, symbol: string) {
  const wanted = symbol.toUpperCase()
  const profile = known(deps, Upstream.toValue(await deps.stocks.profile(wanted)).found, wanted)
  return { source: deps.stocks.source, ...profile, marketCap: numberOf(profile.marketCap) }
}
