import { NotFoundError } from '../../core/Errors.js'
import { booleanParameter, integerParameter } from '../../core/internal/queryParameter.js'
import type * as PredictionMarket from '../../core/PredictionMarket.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'

/** What the markets endpoints need from outside. */
export type Deps = {
  /** The venue (Polymarket). */
  venue: PredictionMarket.Venue
}

/** Levels of each side of a book answered, as the original gateway answers them. */
const bookDepth = 20

/** The API each endpoint calls, by catalog key, for readiness before payment. */
const apis: Readonly<Record<string, (venue: PredictionMarket.Venue) => { available: () => Upstream.Availability }>> = {
  'GET /api/v1/markets/polymarket/events': (venue) => venue.listings,
  'GET /api/v1/markets/polymarket/market/:conditionId': (venue) => venue.listings,
  'GET /api/v1/markets/search': (venue) => venue.listings,
  'GET /api/v1/markets/polymarket/orderbook/:tokenId': (venue) => venue.books,
  'GET /api/v1/markets/polymarket/trades/:conditionId': (venue) => venue.tape,
}

/** Why the endpoint of catalog key `key` cannot take calls now (its API's breaker or rate limit); `undefined` if it can. */
export function readiness(venue: PredictionMarket.Venue, key: string): string | undefined {
  const availability = apis[key]?.(venue).available()
  return availability && !availability.ok ? availability.reason : undefined
}

/** A market as the events list answers it (the original gateway's fields). */
function summaryOf(market: PredictionMarket.Market) {
  const { id, question, outcomePrices, outcomes, volume, volume24hr } = market
  return { id, question, outcomePrices, outcomes, volume, volume24h: volume24hr }
}

/** At most `length` characters of `text`, as the original gateway cuts descriptions. */
function cut(text: string | null, length: number): string | null {
  return text === null ? null : text.slice(0, length)
}

/** A query as it arrives: text by name. */
type Query = Readonly<Record<string, unknown>>

/** The events list's query read (before payment too): a 400 naming a parameter out of bounds. */
export function eventsInput(query: Query) {
  return {
    tag: typeof query.query === 'string' ? query.query.toLowerCase() : undefined,
    active: booleanParameter({ value: query.active, field: 'active', fallback: true }),
    closed: booleanParameter({ value: query.closed, field: 'closed', fallback: undefined }),
    limit: integerParameter({ value: query.limit, field: 'limit', min: 1, max: 50, fallback: 10 }),
    offset: integerParameter({ value: query.offset, field: 'offset', min: 0, max: 10_000, fallback: 0 }),
  }
}

/** Events of Polymarket, with their markets, in the original gateway's answer. */
export async function events(deps: Deps, query: Query) {
  const found = Upstream.toValue(await deps.venue.listings.events(eventsInput(query)))
  return {
    source: 'polymarket' as const,
    count: found.events.length,
    events: found.events.map((event) => ({
      id: event.id,
      title: event.title,
      slug: event.slug,
      description: cut(event.description, 300),
      active: event.active,
      closed: event.closed,
      volume: event.volume,
      liquidity: event.liquidity,
      startDate: event.startDate,
      endDate: event.endDate,
      markets: event.markets.map(summaryOf),
    })),
  }
}

/** A JSON list of strings encoded in a string, as Gamma writes outcomes; `[]` when it is not one. */
function listOf(encoded: string | null): string[] {
  if (encoded === null) return []
  try {
    const list: unknown = JSON.parse(encoded)
    return Array.isArray(list) ? list.map((item) => String(item)) : []
  } catch {
    return []
  }
}

/** One market by its condition id (or Polymarket's numeric id), with its outcomes paired with prices and tokens. */
export async function market(deps: Deps, key: string) {
  const lookup = key.startsWith('0x') ? { conditionId: key.toLowerCase() } : { id: key }
  const { found } = Upstream.toValue(await deps.venue.listings.market(lookup))
  if (found === null) throw new NotFoundError(`Polymarket has no market ${key}.`)
  const prices = listOf(found.outcomePrices)
  const tokens = listOf(found.clobTokenIds)
  return {
    source: 'polymarket' as const,
    id: found.id,
    conditionId: found.conditionId,
    question: found.question,
    description: cut(found.description, 500),
    outcomes: found.outcomes,
    outcomePrices: found.outcomePrices,
    volume: found.volume,
    volume24h: found.volume24hr,
    liquidity: found.liquidity,
    active: found.active,
    closed: found.closed,
    endDate: found.endDate,
    tokens: found.clobTokenIds,
    outcomeTokens: listOf(found.outcomes).map((outcome, index) => ({
      outcome,
      price: prices[index] ?? null,
      tokenId: tokens[index] ?? null,
    })),
  }
}

/** Decimal places of a decimal string. */
function placesOf(value: string): number {
  return value.split('.')[1]?.length ?? 0
}

/**
 * The spread (ask less bid) and midpoint of the best bid and ask, exactly, as decimal strings; both `null` when a side
 * is empty. One more place than the prices have keeps the midpoint exact.
 */
export function spreadOf(bid: PredictionMarket.Level | undefined, ask: PredictionMarket.Level | undefined) {
  if (bid === undefined || ask === undefined) return { spread: null, midpoint: null }
  const places = Math.max(placesOf(bid.price), placesOf(ask.price)) + 1
  const best = Units.fromDecimal({ value: bid.price, decimals: places, field: 'bids' })
  const offer = Units.fromDecimal({ value: ask.price, decimals: places, field: 'asks' })
  return { spread: Units.toDecimal(offer - best, places), midpoint: Units.toDecimal((best + offer) / 2n, places) }
}

/** Orders `levels` by price, best first: highest first for bids, lowest first for asks. */
function bestFirst(levels: readonly PredictionMarket.Level[], side: 'bids' | 'asks'): PredictionMarket.Level[] {
  const priced = levels.map((level) => ({
    level,
    price: Units.fromDecimal({ value: level.price, decimals: 18, field: side }),
  }))
  priced.sort((a, b) => (a.price === b.price ? 0 : a.price > b.price === (side === 'bids') ? -1 : 1))
  return priced.map(({ level }) => level)
}

/** The order book of one outcome token: the 20 best levels of each side, the spread and the midpoint. */
export async function orderBook(deps: Deps, tokenId: string) {
  const { found } = Upstream.toValue(await deps.venue.books.book(tokenId))
  if (found === null) throw new NotFoundError(`Polymarket has no order book for token ${tokenId}.`)
  // The CLOB lists each side from its worst price to its best: sorted here so that the first level is the best.
  const bids = bestFirst(found.bids, 'bids')
  const asks = bestFirst(found.asks, 'asks')
  return {
    source: 'polymarket-clob' as const,
    tokenId,
    market: found.market,
    bids: bids.slice(0, bookDepth),
    asks: asks.slice(0, bookDepth),
    ...spreadOf(bids[0], asks[0]),
    lastTradePrice: found.lastTradePrice,
    tickSize: found.tickSize,
    minOrderSize: found.minOrderSize,
    timestamp: found.timestamp === null ? null : new Date(found.timestamp).toISOString(),
  }
}

/** Most trades asked for: `limit`, 1 to 100 (20 by default); a 400 naming it otherwise. */
export function tradesLimit(query: Query): number {
  return integerParameter({ value: query.limit, field: 'limit', min: 1, max: 100, fallback: 20 })
}

/** The latest trades of one market, newest first. */
export async function trades(deps: Deps, conditionId: string, query: Query) {
  const found = Upstream.toValue(
    await deps.venue.tape.trades({ conditionId: conditionId.toLowerCase(), limit: tradesLimit(query) }),
  )
  return {
    source: 'polymarket-data' as const,
    conditionId,
    count: found.trades.length,
    trades: found.trades.map((trade) => ({
      id: trade.transactionHash,
      price: trade.price,
      size: trade.size,
      side: trade.side,
      outcome: trade.outcome,
      timestamp: trade.timestamp,
      asset: trade.asset,
      proxyWallet: trade.proxyWallet,
    })),
  }
}

/** The search's query read (before payment too): a 400 naming a parameter out of bounds. */
export function searchInput(query: Query) {
  return {
    text: String(query.q ?? ''),
    limit: integerParameter({ value: query.limit, field: 'limit', min: 1, max: 20, fallback: 10 }),
    open: booleanParameter({ value: query.active, field: 'active', fallback: true }),
  }
}

/** Markets whose events match `q` (Polymarket's search), each with its event, in the original gateway's answer. */
export async function search(deps: Deps, query: Query) {
  const { text, limit, open } = searchInput(query)
  const found = Upstream.toValue(await deps.venue.listings.search({ text, limit }))
  const markets = found.events
    .filter((event) => !open || event.closed !== true)
    .flatMap((event) =>
      event.markets
        .filter((market) => !open || market.closed !== true)
        .map((market) => ({
          source: 'polymarket' as const,
          id: market.id,
          question: market.question,
          outcomePrices: market.outcomePrices,
          volume: market.volume,
          event: { id: event.id, title: event.title, slug: event.slug },
        })),
    )
  return { source: 'polymarket' as const, query: text, count: markets.length, markets }
}
