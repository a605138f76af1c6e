import type { Availability, Outcome } from './Upstream.js'

/**
 * A prediction-market venue as ports: its listings (events, their markets, and a search over them), its order books
 * and its trade tape, each its own API with its own health. Figures are passed on as the venue writes them (Polymarket
 * writes an event's volume as a number and a market's as a decimal string), so nothing is rounded on the way.
 */

/** A figure as the venue writes it: a JSON number or a decimal string; `null` when it gives none. */
export type Figure = number | string | null

/** One market: a question with its outcomes, each outcome a token traded on the order book. */
export type Market = {
  /** The venue's id of the market, e.g. `516724`. */
  id: string
  /** The market's condition id (`0x` and 64 hex digits), its key on chain and on the order book. */
  conditionId: string | null
  /** The question, e.g. `Will 1 Fed rate cut happen in 2025?`. */
  question: string | null
  /** URL slug. */
  slug: string | null
  /** Resolution rules. */
  description: string | null
  /** The outcomes' names as the venue encodes them: a JSON list in a string, e.g. `["Yes","No"]`. */
  outcomes: string | null
  /** The outcomes' prices (implied probabilities, 0 to 1) in the same order, a JSON list of decimal strings in a string. */
  outcomePrices: string | null
  /** The outcomes' order-book token ids in the same order, a JSON list in a string. */
  clobTokenIds: string | null
  /** USDC traded in all. */
  volume: Figure
  /** USDC traded in the last 24 hours. */
  volume24hr: Figure
  /** USDC of liquidity on the book. */
  liquidity: Figure
  /** Whether the market is listed as active. */
  active: boolean | null
  /** Whether trading has ended. */
  closed: boolean | null
  /** When the market is expected to resolve (ISO 8601). */
  endDate: string | null
}

/** An event: a topic grouping one or more markets. */
export type Event = {
  /** The venue's id of the event, e.g. `16085`. */
  id: string
  /** Title, e.g. `How many Fed rate cuts in 2025?`. */
  title: string | null
  /** URL slug. */
  slug: string | null
  /** Description. */
  description: string | null
  /** Whether the event is listed as active. */
  active: boolean | null
  /** Whether every market of it has ended. */
  closed: boolean | null
  /** USDC traded in all its markets. */
  volume: Figure
  /** USDC of liquidity in all its markets. */
  liquidity: Figure
  /** Start (ISO 8601). */
  startDate: string | null
  /** End (ISO 8601). */
  endDate: string | null
  /** Its markets. */
  markets: Market[]
}

/** One price level of an order book: decimal strings, as the book writes them. */
export type Level = {
  /** Price of one outcome share, USDC, 0 to 1. */
  price: string
  /** Shares resting at that price. */
  size: string
}

/** The order book of one outcome token. */
export type OrderBook = {
  /** The market's condition id. */
  market: string | null
  /** The outcome token's id. */
  assetId: string
  /** Buy orders, in the order the book lists them. */
  bids: Level[]
  /** Sell orders, in the order the book lists them. */
  asks: Level[]
  /** Price of the last trade, decimal string. */
  lastTradePrice: string | null
  /** Smallest price step, decimal string. */
  tickSize: string | null
  /** Smallest order, in shares, decimal string. */
  minOrderSize: string | null
  /** When the book was read, epoch ms. */
  timestamp: number | null
  /** The book's hash. */
  hash: string | null
}

/** One fill on the trade tape. */
export type Trade = {
  /** Hash of the transaction that settled it. */
  transactionHash: string | null
  /** `BUY` or `SELL`, the taker's side. */
  side: string | null
  /** The outcome traded, e.g. `Yes`. */
  outcome: string | null
  /** Its index among the market's outcomes. */
  outcomeIndex: number | null
  /** The outcome token's id. */
  asset: string | null
  /** Price of one share, USDC, 0 to 1. */
  price: Figure
  /** Shares. */
  size: Figure
  /** When, epoch seconds. */
  timestamp: number | null
  /** The trader's proxy wallet. */
  proxyWallet: string | null
}

/** The venue's listings: events, their markets, and a search over them (Polymarket's Gamma API). */
export type Listings = {
  /** A page of events, with their markets. */
  events: (query: {
    /** Only events with this tag slug, e.g. `politics`. */
    tag?: string | undefined
    /** Active (`true`) or inactive (`false`) events. */
    active: boolean
    /** Only closed (`true`) or open (`false`) events. @default either */
    closed?: boolean | undefined
    /** Most events. */
    limit: number
    /** Events skipped. */
    offset: number
  }) => Promise<Outcome<{ events: Event[] }>>
  /** One market by its condition id or the venue's id; `found: null` when the venue knows neither. */
  market: (key: { conditionId: string } | { id: string }) => Promise<Outcome<{ found: Market | null }>>
  /** The events whose words match `text`, with their markets, best first. */
  search: (query: { text: string; limit: number }) => Promise<Outcome<{ events: Event[] }>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** The venue's order books (Polymarket's CLOB). */
export type Books = {
  /** The book of one outcome token; `found: null` when there is none. */
  book: (tokenId: string) => Promise<Outcome<{ found: OrderBook | null }>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** The venue's trade tape (Polymarket's data API). */
export type Tape = {
  /** The latest fills of one market, newest first. */
  trades: (query: { conditionId: string; limit: number }) => Promise<Outcome<{ trades: Trade[] }>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** A prediction-market venue. */
export type Venue = {
  /** Events, markets and search. */
  listings: Listings
  /** Order books. */
  books: Books
  /** Trades. */
  tape: Tape
}

/** A market's condition id: `0x` and 64 hex digits. */
export const conditionIdPattern = /^0x[0-9a-fA-F]{64}$/

/** An outcome token's id: a uint256 in decimal. */
export const tokenIdPattern = /^[0-9]{1,78}$/
