import * as Units from './Units.js'
import type { Availability, Outcome } from './Upstream.js'

/**
 * Stock market data as a port: a quote that says its source, currency, exchange, time and whether the market is open,
 * a symbol search, candles and a company profile. Prices are decimal strings as the source states them (rounded to
 * the places the source quotes in, never further), so nothing is lost between the source and the answer.
 */

/** Which session the symbol's market is in: before it, the regular session, after it, or none (closed). */
export type MarketState = 'pre' | 'regular' | 'post' | 'closed'

/** The latest price of a symbol. */
export type Quote = {
  /** The symbol, e.g. `AAPL`. */
  symbol: string
  /** Latest price, decimal string. */
  current: string
  /** The day's high, decimal string. */
  high: string | null
  /** The day's low, decimal string. */
  low: string | null
  /** The day's open, decimal string. */
  open: string | null
  /** The previous session's close, decimal string. */
  previousClose: string | null
  /** `current` less `previousClose`, decimal string. */
  change: string | null
  /** `change` in percent of `previousClose`, decimal string. */
  changePercent: string | null
  /** When `current` was traded, epoch seconds. */
  time: number
  /** ISO 4217 currency of the prices, e.g. `USD`. */
  currency: string | null
  /** The exchange the price is from, e.g. `NasdaqGS`. */
  exchange: string | null
  /** The market's session now; `null` when the source cannot tell. */
  marketState: MarketState | null
}

/** A symbol matching a search. */
export type Match = {
  /** The symbol to ask quotes for, e.g. `AAPL`. */
  symbol: string
  /** The company or instrument, e.g. `Apple Inc.`. */
  description: string | null
  /** Kind of instrument, e.g. `Common Stock` or `Equity`. */
  type: string | null
  /** The symbol as displayed. */
  displaySymbol: string | null
  /** The exchange, where the source names it. */
  exchange: string | null
}

/** Candle width: minutes (`1`, `5`, `15`, `30`, `60`), a day, a week or a month. */
export type Resolution = '1' | '5' | '15' | '30' | '60' | 'D' | 'W' | 'M'

/** Every {@link Resolution}. */
export const resolutions: readonly Resolution[] = ['1', '5', '15', '30', '60', 'D', 'W', 'M']

/** One candle. */
export type Candle = {
  /** Its start, epoch seconds. */
  time: number
  /** Open, decimal string. */
  open: string
  /** High, decimal string. */
  high: string
  /** Low, decimal string. */
  low: string
  /** Close, decimal string. */
  close: string
  /** Shares traded. */
  volume: number | null
}

/** The candles of a symbol over a time range. */
export type Candles = {
  /** Currency of the prices, where the source says it. */
  currency: string | null
  /** Exchange, where the source says it. */
  exchange: string | null
  /** Candles, oldest first; none when the range holds no trading. */
  candles: Candle[]
}

/** What a company is. */
export type Profile = {
  /** Its symbol. */
  symbol: string
  /** Its name. */
  name: string | null
  /** Country of its headquarters, where the source knows it. */
  country: string | null
  /** Currency its shares trade in. */
  currency: string | null
  /** Exchange its shares are listed on. */
  exchange: string | null
  /** Its listing date (`YYYY-MM-DD`): the IPO, or the first trade the source records. */
  ipo: string | null
  /** Market capitalization in millions of `currency`, decimal string, where the source gives it. */
  marketCap: string | null
  /** Industry. */
  industry: string | null
  /** Logo URL. */
  logo: string | null
  /** Website. */
  weburl: string | null
}

/** A source of stock market data (Finnhub, Yahoo Finance). */
export type StockData = {
  /** The source, as answers name it, e.g. `finnhub`. */
  source: string
  /** The latest quote of a symbol; `found: null` when the source does not know it. */
  quote: (symbol: string) => Promise<Outcome<{ found: Quote | null }>>
  /** Symbols matching words (a name or a ticker), best first. */
  search: (query: string) => Promise<Outcome<{ matches: Match[] }>>
  /** A symbol's candles from `from` to `to` (epoch seconds); `found: null` when the source does not know it. */
  candles: (query: {
    symbol: string
    resolution: Resolution
    from: number
    to: number
  }) => Promise<Outcome<{ found: Candles | null }>>
  /** A company's profile; `found: null` when the source does not know the symbol. */
  profile: (symbol: string) => Promise<Outcome<{ found: Profile | null }>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** A symbol as sources take them: letters, digits and `.`, `-`, `^`, `=` (`BRK.B`, `^GSPC`, `EURUSD=X`), 1 to 20. */
export const symbolPattern = /^[A-Za-z0-9.^=-]{1,20}$/

/** The session a moment (epoch seconds) falls in, given the day's sessions; closed outside all of them. */
export function stateAt(parameters: stateAt.Parameters): MarketState {
  const { time, sessions } = parameters
  for (const state of ['pre', 'regular', 'post'] as const) {
    const session = sessions[state]
    if (session && time >= session.start && time < session.end) return state
  }
  return 'closed'
}

export declare namespace stateAt {
  type Parameters = {
    /** The moment, epoch seconds. */
    time: number
    /** Start (inclusive) and end (exclusive) of each session of the day, epoch seconds. */
    sessions: Partial<Record<'pre' | 'regular' | 'post', { start: number; end: number }>>
  }
}

/**
 * `current - previous` and that change in percent of `previous` (4 places, rounded half away from zero), exactly, from
 * decimal strings; `null` for both when `previous` is missing or zero.
 */
export function changeOf(parameters: { current: string; previous: string | null }): {
  change: string | null
  changePercent: string | null
} {
  const { current, previous } = parameters
  if (previous === null) return { change: null, changePercent: null }
  const places = Math.max(placesOf(current), placesOf(previous))
  const a = Units.fromDecimal({ value: current, decimals: places, field: 'current' })
  const b = Units.fromDecimal({ value: previous, decimals: places, field: 'previousClose' })
  if (b === 0n) return { change: null, changePercent: null }
  const change = a - b
  // Percent to 4 places: change * 100 * 10^4 / previous, rounded half away from zero.
  const numerator = change * 1_000_000n
  const quotient = numerator / b
  const remainder = numerator % b
  const away = 2n * (remainder < 0n ? -remainder : remainder) >= b
  const rounded = away ? quotient + (numerator < 0n ? -1n : 1n) : quotient
  return { change: Units.toDecimal(change, places), changePercent: Units.toDecimal(rounded, 4) }
}

/** Decimal places of a decimal string. */
function placesOf(value: string): number {
  return value.split('.')[1]?.length ?? 0
}
