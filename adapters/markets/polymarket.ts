import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as PredictionMarket from '../../core/PredictionMarket.js'
import { numberOf, stringOf } from '../research/paper.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * Polymarket's public APIs, keyless: Gamma (`GET /events`, `/markets`, `/markets/{id}`, `/public-search`) for events
 * and markets, the CLOB (`GET /book?token_id=`) for order books, and the data API (`GET /trades?market=`) for the
 * trade tape. Each is its own vendor here, with its own rate limit (well under Polymarket's published limits: Gamma
 * 300 to 500 requests per 10 s per endpoint, the book 1,500, trades 200) and cache (Gamma 30 s, books 2 s, trades 5 s).
 */
export function polymarket(parameters: polymarket.Parameters): PredictionMarket.Venue {
  const { gammaUrl, clobUrl, dataUrl, userAgent, ...options } = parameters
  /** One of the three APIs: its own breaker, a token bucket of `perSecond` (bursts of `burst`) and a cache. */
  const api = (id: string, name: string, baseUrl: string, rate: { perSecond: number; burst: number; ttlMs: number }) =>
    vendor({
      id,
      name,
      baseUrl,
      headers: { 'user-agent': userAgent },
      timeoutMs: 10_000,
      retries: 1,
      rateLimit: { capacity: rate.burst, refill: rate.perSecond, intervalMs: 1_000, maxWaitMs: 2_000 },
      cache: { ttlMs: rate.ttlMs, maxEntries: 1_000 },
      ...options,
    })
  const gamma = api('polymarket-gamma', "Polymarket's Gamma API", gammaUrl, { perSecond: 10, burst: 20, ttlMs: 30_000 })
  const clob = api('polymarket-clob', "Polymarket's CLOB", clobUrl, { perSecond: 20, burst: 20, ttlMs: 2_000 })
  const data = api('polymarket-data', "Polymarket's data API", dataUrl, { perSecond: 5, burst: 10, ttlMs: 5_000 })

  /** The events of a list answer (`/events`, or `events` of `/public-search`). */
  const eventsOf = (list: unknown, what: string) => {
    if (!Array.isArray(list)) throw new UnreadableAnswerError(`Polymarket's Gamma API answered ${what} with no list`)
    return list.map(eventOf)
  }

  return {
    listings: {
      async events({ tag, active, closed, limit, offset }) {
        const query: Record<string, string> = { limit: String(limit), offset: String(offset), active: String(active) }
        if (closed !== undefined) query.closed = String(closed)
        if (tag !== undefined) query.tag_slug = tag
        const answer = await gamma.get('/events', { query, label: 'events' })
        if (!answer.ok) return answer
        const read = gamma.read(() => eventsOf(answer.body, 'events'), answer.status)
        return Array.isArray(read) ? { ok: true, events: read } : read
      },

      async market(key) {
        if ('id' in key) {
          const answer = await gamma.get(`/markets/${encodeURIComponent(key.id)}`, { accept: [404], label: 'market' })
          if (!answer.ok) return answer
          if (answer.status === 404) return { ok: true, found: null }
          const read = gamma.read(() => marketOf(answer.body), answer.status)
          return 'ok' in read ? read : { ok: true, found: read }
        }
        const answer = await gamma.get('/markets', { query: { condition_ids: key.conditionId }, label: 'market' })
        if (!answer.ok) return answer
        const read = gamma.read(() => {
          if (!Array.isArray(answer.body)) throw new UnreadableAnswerError("Polymarket's Gamma API answered no list")
          const first = answer.body[0]
          return first === undefined ? null : marketOf(first)
        }, answer.status)
        return read !== null && 'ok' in read ? read : { ok: true, found: read }
      },

      async search({ text, limit }) {
        const query = { q: text, limit_per_type: String(limit) }
        const answer = await gamma.get('/public-search', { query, label: 'search' })
        if (!answer.ok) return answer
        // No match is an answer without `events`.
        const read = gamma.read(() => eventsOf(fieldsOf(answer.body).events ?? [], 'search'), answer.status)
        return Array.isArray(read) ? { ok: true, events: read } : read
      },

      available: () => gamma.available(),
    },

    books: {
      async book(tokenId) {
        // An unknown token is a 404 `{ error: "No orderbook exists for the requested token id" }`.
        const answer = await clob.get('/book', { query: { token_id: tokenId }, accept: [404], label: 'book' })
        if (!answer.ok) return answer
        if (answer.status === 404) return { ok: true, found: null }
        const read = clob.read(() => bookOf(answer.body, tokenId), answer.status)
        return 'ok' in read ? read : { ok: true, found: read }
      },
      available: () => clob.available(),
    },

    tape: {
      async trades({ conditionId, limit }) {
        const query = { market: conditionId, limit: String(limit) }
        const answer = await data.get('/trades', { query, label: 'trades' })
        if (!answer.ok) return answer
        const read = data.read(() => {
          if (!Array.isArray(answer.body)) throw new UnreadableAnswerError("Polymarket's data API answered no list")
          return answer.body.map(tradeOf)
        }, answer.status)
        return Array.isArray(read) ? { ok: true, trades: read } : read
      },
      available: () => data.available(),
    },
  }
}

export declare namespace polymarket {
  type Parameters = vendor.Options & {
    /** Gamma API. @example 'https://gamma-api.polymarket.com' */
    gammaUrl: string
    /** CLOB API. @example 'https://clob.polymarket.com' */
    clobUrl: string
    /** Data API. @example 'https://data-api.polymarket.com' */
    dataUrl: string
    /** User-Agent naming the gateway. */
    userAgent: string
  }
}

/** A boolean, or `null`. */
function booleanOf(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null
}

/** A figure as Polymarket writes it (a number or a decimal string), or `null`. */
function figureOf(value: unknown): PredictionMarket.Figure {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? value : null
}

/** An id Polymarket writes as a string or a number. */
function idOf(value: unknown, what: string): string {
  if (typeof value === 'string' && value !== '') return value
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  throw new UnreadableAnswerError(`Polymarket's Gamma API answered a ${what} without an id`)
}

/** A Gamma market (`outcomes`, `outcomePrices` and `clobTokenIds` are JSON lists in strings, passed on as written). */
function marketOf(value: unknown): PredictionMarket.Market {
  const market = fieldsOf(value)
  return {
    id: idOf(market.id, 'market'),
    conditionId: stringOf(market.conditionId),
    question: stringOf(market.question),
    slug: stringOf(market.slug),
    description: stringOf(market.description),
    outcomes: stringOf(market.outcomes),
    outcomePrices: stringOf(market.outcomePrices),
    clobTokenIds: stringOf(market.clobTokenIds),
    volume: figureOf(market.volume),
    volume24hr: figureOf(market.volume24hr),
    liquidity: figureOf(market.liquidity),
    active: booleanOf(market.active),
    closed: booleanOf(market.closed),
    endDate: stringOf(market.endDate),
  }
}

/** A Gamma event with its markets. */
function eventOf(value: unknown): PredictionMarket.Event {
  const event = fieldsOf(value)
  return {
    id: idOf(event.id, 'event'),
    title: stringOf(event.title),
    slug: stringOf(event.slug),
    description: stringOf(event.description),
    active: booleanOf(event.active),
    closed: booleanOf(event.closed),
    volume: figureOf(event.volume),
    liquidity: figureOf(event.liquidity),
    startDate: stringOf(event.startDate),
    endDate: stringOf(event.endDate),
    markets: (Array.isArray(event.markets) ? event.markets : []).map(marketOf),
  }
}

/** A decimal string of at most 18 places, as the CLOB writes prices and sizes. */
const decimal = /^\d+(\.\d{1,18})?$/

/** The levels of one side of a CLOB book: `{ price, size }` decimal strings. */
function levelsOf(value: unknown, side: string): PredictionMarket.Level[] {
  if (!Array.isArray(value)) throw new UnreadableAnswerError(`Polymarket's CLOB answered a book without ${side}`)
  return value.map((item) => {
    const { price, size } = fieldsOf(item)
    if (typeof price !== 'string' || !decimal.test(price) || typeof size !== 'string' || !decimal.test(size))
      throw new UnreadableAnswerError(`Polymarket's CLOB answered a level of ${side} that is not two decimals`)
    return { price, size }
  })
}

/** A CLOB order book summary. */
function bookOf(value: unknown, tokenId: string): PredictionMarket.OrderBook {
  const book = fieldsOf(value)
  return {
    market: stringOf(book.market),
    assetId: stringOf(book.asset_id) ?? tokenId,
    bids: levelsOf(book.bids, 'bids'),
    asks: levelsOf(book.asks, 'asks'),
    lastTradePrice: stringOf(book.last_trade_price),
    tickSize: stringOf(book.tick_size),
    minOrderSize: stringOf(book.min_order_size),
    // The book's time is epoch milliseconds, written as a string.
    timestamp: numberOf(book.timestamp),
    hash: stringOf(book.hash),
  }
}

/** A data API trade. */
function tradeOf(value: unknown): PredictionMarket.Trade {
  const trade = fieldsOf(value)
  return {
    transactionHash: stringOf(trade.transactionHash),
    side: stringOf(trade.side),
    outcome: stringOf(trade.outcome),
    outcomeIndex: numberOf(trade.outcomeIndex),
    asset: stringOf(trade.asset),
    price: figureOf(trade.price),
    size: figureOf(trade.size),
    timestamp: numberOf(trade.timestamp),
    proxyWallet: stringOf(trade.proxyWallet),
  }
}
