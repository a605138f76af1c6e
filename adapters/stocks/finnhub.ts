import * as Cache from '../../core/Cache.js'
import * as StockData from '../../core/StockData.js'
import type * as Upstream from '../../core/Upstream.js'
import { decimalOf } from '../pricing/defillama.js'
import { numberOf, stringOf } from '../research/paper.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Finnhub's trading sessions, by the name `/stock/market-status` gives them. */
const sessions: Readonly<Record<string, StockData.MarketState>> = {
  'pre-market': 'pre',
  regular: 'regular',
  'post-market': 'post',
}

/**
 * Finnhub's stock API (`https://finnhub.io/api/v1`), the original gateway's source, keyed (`X-Finnhub-Token`):
 * `/quote` (`{ c, d, dp, h, l, o, pc, t }`, all zero for an unknown symbol), `/search` (`{ count, result: [{
 * description, displaySymbol, symbol, type }] }`), `/stock/candle` (`{ s, t, o, h, l, c, v }`, a premium endpoint), and
 * `/stock/profile2` (`{}` for an unknown symbol). A quote adds the profile's currency and exchange (kept a day) and, for
 * a US symbol (no exchange suffix), `/stock/market-status?exchange=US`'s session. A 401 or 403 (a refused key, or a
 * plan without the endpoint) is the operator's to fix: `unavailable`, nothing charged. Limit: `callsPerMinute` (60 on
 * the free plan); answers cached 15 s.
 */
export function finnhub(parameters: finnhub.Parameters): StockData.StockData {
  const { baseUrl, apiKey, callsPerMinute = 60, now = Date.now, ...options } = parameters
  const client = vendor({
    id: 'finnhub',
    name: 'Finnhub',
    baseUrl,
    auth: { type: 'header', name: 'X-Finnhub-Token', value: apiKey, env: 'FINNHUB_API_KEY' },
    timeoutMs: 10_000,
    retries: 1,
    rateLimit: {
      capacity: Math.min(10, callsPerMinute),
      refill: callsPerMinute,
      intervalMs: 60_000,
      maxWaitMs: 2_000,
    },
    cache: { ttlMs: 15_000, maxEntries: 2_000 },
    now,
    ...options,
  })
  const listings = Cache.create<{ currency: string | null; exchange: string | null }>({
    ttlMs: 86_400_000,
    maxEntries: 5_000,
    now,
  })

  /** `GET path` with `query`; a refused key or plan becomes `unavailable`. */
  async function get(path: string, query: Record<string, string>, label: string) {
    const answer = await client.get(path, { query, accept: [401, 403], label })
    if (!answer.ok || (answer.status !== 401 && answer.status !== 403)) return answer
    const why = answer.status === 401 ? 'refused the key (FINNHUB_API_KEY)' : `has no ${label} on this key's plan`
    return client.fail('unavailable', `Finnhub ${why}.`, answer.status)
  }

  /** The profile's fields of `symbol` (`{}` when Finnhub does not know it). */
  async function profileOf(symbol: string): Promise<Upstream.Outcome<{ fields: Record<string, unknown> }>> {
    const answer = await get('/stock/profile2', { symbol }, 'profile')
    return answer.ok ? { ok: true, fields: fieldsOf(answer.body) } : answer
  }

  /** The currency and exchange `symbol` trades in, kept a day. */
  async function listingOf(symbol: string) {
    const kept = listings.get(symbol)
    if (kept) return { ok: true as const, ...kept }
    const profile = await profileOf(symbol)
    if (!profile.ok) return profile
    const listing = { currency: stringOf(profile.fields.currency), exchange: stringOf(profile.fields.exchange) }
    listings.set(symbol, listing)
    return { ok: true as const, ...listing }
  }

  /** The US market's session now; `null` for a symbol listed elsewhere (an exchange suffix, e.g. `BMW.DE`). */
  async function stateOf(symbol: string): Promise<Upstream.Outcome<{ state: StockData.MarketState | null }>> {
    if (symbol.includes('.')) return { ok: true, state: null }
    const answer = await get('/stock/market-status', { exchange: 'US' }, 'market status')
    if (!answer.ok) return answer
    const status = fieldsOf(answer.body)
    const session = typeof status.session === 'string' ? sessions[status.session] : undefined
    return { ok: true, state: status.isOpen === true || session ? (session ?? 'regular') : 'closed' }
  }

  return {
    source: 'finnhub',

    async quote(symbol) {
      const [answer, listing, state] = await Promise.all([
        get('/quote', { symbol }, 'quote'),
        listingOf(symbol),
        stateOf(symbol),
      ])
      if (!answer.ok) return answer
      if (!listing.ok) return listing
      if (!state.ok) return state
      const quote = fieldsOf(answer.body)
      const current = decimalOf(quote.c)
      const time = numberOf(quote.t)
      // Finnhub answers an unknown symbol with every field zero.
      if (current === undefined || time === null || time === 0) return { ok: true, found: null }
      const previousClose = decimalOf(quote.pc) ?? null
      return {
        ok: true,
        found: {
          symbol,
          current,
          high: decimalOf(quote.h) ?? null,
          low: decimalOf(quote.l) ?? null,
          open: decimalOf(quote.o) ?? null,
          previousClose,
          ...StockData.changeOf({ current, previous: previousClose }),
          time,
          currency: listing.currency,
          exchange: listing.exchange,
          marketState: state.state,
        },
      }
    },

    async search(text) {
      const answer = await get('/search', { q: text }, 'search')
      if (!answer.ok) return answer
      const result = fieldsOf(answer.body).result
      const matches = (Array.isArray(result) ? result : []).map(fieldsOf).flatMap((match) => {
        const symbol = stringOf(match.symbol)
        if (symbol === null) return []
        const { description, type, displaySymbol } = match
        return [
          {
            symbol,
            description: stringOf(description),
            type: stringOf(type),
            displaySymbol: stringOf(displaySymbol),
            exchange: null,
          },
        ]
      })
      return { ok: true, matches }
    },

    async candles({ symbol, resolution, from, to }) {
      const query = { symbol, resolution, from: String(from), to: String(to) }
      const answer = await get('/stock/candle', query, 'candles')
      if (!answer.ok) return answer
      const body = fieldsOf(answer.body)
      // `no_data`: nothing traded in the range (or an unknown symbol, which Finnhub does not tell apart).
      if (body.s === 'no_data') return { ok: true, found: { currency: null, exchange: null, candles: [] } }
      const column = (name: string) => (Array.isArray(body[name]) ? (body[name] as unknown[]) : [])
      const [open, high, low, close, volume] = ['o', 'h', 'l', 'c', 'v'].map(column)
      const candles = column('t').flatMap((time, index): StockData.Candle[] => {
        const prices = [open, high, low, close].map((values) => decimalOf(values![index]))
        if (typeof time !== 'number' || prices.some((price) => price === undefined)) return []
        const [o, h, l, c] = prices as string[]
        return [{ time, open: o!, high: h!, low: l!, close: c!, volume: numberOf(volume![index]) }]
      })
      return { ok: true, found: { currency: null, exchange: null, candles } }
    },

    async profile(symbol) {
      const profile = await profileOf(symbol)
      if (!profile.ok) return profile
      const { fields } = profile
      // An unknown symbol's profile is `{}`.
      if (stringOf(fields.ticker) === null && stringOf(fields.name) === null) return { ok: true, found: null }
      return {
        ok: true,
        found: {
          symbol: stringOf(fields.ticker) ?? symbol,
          name: stringOf(fields.name),
          country: stringOf(fields.country),
          currency: stringOf(fields.currency),
          exchange: stringOf(fields.exchange),
          ipo: stringOf(fields.ipo),
          marketCap: decimalOf(fields.marketCapitalization) ?? null,
          industry: stringOf(fields.finnhubIndustry),
          logo: stringOf(fields.logo),
          weburl: stringOf(fields.weburl),
        },
      }
    },

    available: () => client.available(),
  }
}

export declare namespace finnhub {
  type Parameters = vendor.Options & {
    /** Base URL. @example 'https://finnhub.io/api/v1' */
    baseUrl: string
    /** API key; never shown. */
    apiKey: string
    /** Calls the key's plan allows per minute. @default 60 */
    callsPerMinute?: number
  }
}
