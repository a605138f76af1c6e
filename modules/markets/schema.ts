import { type Static, type TSchema, Type } from '@sinclair/typebox'
import * as PredictionMarket from '../../core/PredictionMarket.js'

const nullable = <schema extends TSchema>(schema: schema, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {})

/** Digits of a count, checked against its bounds before payment (the gateway does not coerce query strings). */
const count = (max: number, fallback: number, what: string) =>
  Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,5}$',
      examples: [String(fallback)],
      description: `Most ${what}, 1 to ${max}. @default ${fallback}`,
    }),
  )

/** `true` or `false`. */
const flag = (description: string) =>
  Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description }))

/** Query of `GET /api/v1/markets/polymarket/events`. */
export const EventsQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9-]{1,100}$',
      examples: ['politics'],
      description:
        "A tag's slug (`politics`, `crypto`, `sports`, `election`): only events with that tag, as the original gateway reads it (Polymarket's `tag_slug`). For words, use /api/v1/markets/search.",
    }),
  ),
  limit: count(50, 10, 'events'),
  offset: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,5}$', description: 'Events skipped, 0 to 10,000. @default 0' }),
  ),
  active: flag('Active events (`true`) or inactive ones (`false`). @default true'),
  closed: flag('Only closed events (`true`) or only open ones (`false`). @default either'),
})
/** Query of `GET /api/v1/markets/polymarket/events`. */
export type EventsQuery = Static<typeof EventsQuery>

/** A market: its condition id, or Polymarket's numeric id. */
const marketKey = Type.String({
  pattern: '^(0x[0-9a-fA-F]{64}|[0-9]{1,20})$',
  examples: ['0x8e9b6942b4dac3117dadfacac2edb390b6d62d59c14152774bb5fcd983fc134e'],
  description: "The market's condition id (`0x` and 64 hex digits), or Polymarket's numeric market id.",
})

/** An outcome token. */
const tokenId = Type.String({
  pattern: PredictionMarket.tokenIdPattern.source,
  examples: ['71321045679252212594626385532706912750332728571942532289631379312455583992563'],
  description: "An outcome token's id (a market's `tokens`, in decimal), e.g. its `Yes` token.",
})

/** A market's condition id. */
const conditionId = Type.String({
  pattern: PredictionMarket.conditionIdPattern.source,
  examples: ['0x8e9b6942b4dac3117dadfacac2edb390b6d62d59c14152774bb5fcd983fc134e'],
  description: "The market's condition id: `0x` and 64 hex digits.",
})

/** Path of `GET /api/v1/markets/polymarket/market/:conditionId` (or its query, on the bare path). */
export const MarketParams = Type.Object({ conditionId: marketKey })

/** Path of `GET /api/v1/markets/polymarket/orderbook/:tokenId` (or its query, on the bare path). */
export const BookParams = Type.Object({ tokenId })

/** Path of `GET /api/v1/markets/polymarket/trades/:conditionId`. */
export const TradesParams = Type.Object({ conditionId })

/** How many trades. */
const tradesLimit = count(100, 20, 'trades, newest first')

/** Query of `GET /api/v1/markets/polymarket/trades/:conditionId`. */
export const TradesQuery = Type.Object({ limit: tradesLimit })

/** Query of the bare `GET /api/v1/markets/polymarket/trades?conditionId=`. */
export const TradesByQuery = Type.Object({ conditionId, limit: tradesLimit })

/** Query of `GET /api/v1/markets/search`. */
export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 200,
    examples: ['bitcoin'],
    description: 'Words to find in events and their markets, 1 to 200 characters.',
  }),
  source: Type.Optional(
    Type.Union([Type.Literal('all'), Type.Literal('polymarket')], {
      default: 'all',
      description: 'Venues searched: `all` (today Polymarket alone, as at the original gateway) or `polymarket`.',
    }),
  ),
  limit: count(20, 10, 'events searched (every market of each is answered)'),
  active: flag('Only events and markets still open (`true`), or closed ones too (`false`). @default true'),
})
/** Query of `GET /api/v1/markets/search`. */
export type SearchQuery = Static<typeof SearchQuery>

const figure = (description: string) =>
  Type.Union([Type.Number(), Type.String(), Type.Null()], {
    description: `${description}, as Polymarket writes it (a number or a decimal string).`,
  })
const listed = (description: string) =>
  nullable(Type.String(), `${description}: a JSON list in a string, as Polymarket encodes it.`)

/** A market as the events list and the search answer it. */
const MarketSummary = Type.Object({
  id: Type.String({ description: "Polymarket's market id." }),
  question: nullable(Type.String()),
  outcomePrices: listed('Prices of the outcomes (implied probabilities, 0 to 1)'),
  outcomes: listed('Names of the outcomes, e.g. `["Yes","No"]`'),
  volume: figure('USDC traded'),
  volume24h: figure('USDC traded in the last 24 hours'),
})

const EventSummary = Type.Object({
  id: Type.String({ description: "Polymarket's event id." }),
  title: nullable(Type.String()),
  slug: nullable(Type.String()),
  description: nullable(Type.String(), 'The first 300 characters.'),
  active: nullable(Type.Boolean()),
  closed: nullable(Type.Boolean()),
  volume: figure('USDC traded in all its markets'),
  liquidity: figure('USDC of liquidity'),
  startDate: nullable(Type.String()),
  endDate: nullable(Type.String()),
  markets: Type.Array(MarketSummary),
})

const Level = Type.Object({
  price: Type.String({ description: 'USDC per share, 0 to 1, decimal string.' }),
  size: Type.String({ description: 'Shares, decimal string.' }),
})

/** Answers, by catalog key, for discovery. */
export const outputs = {
  'GET /api/v1/markets/polymarket/events': Type.Object({
    source: Type.Literal('polymarket'),
    count: Type.Integer(),
    events: Type.Array(EventSummary),
  }),
  'GET /api/v1/markets/polymarket/market/:conditionId': Type.Object({
    source: Type.Literal('polymarket'),
    id: Type.String(),
    conditionId: nullable(Type.String()),
    question: nullable(Type.String()),
    description: nullable(Type.String(), 'The first 500 characters.'),
    outcomes: listed('Names of the outcomes'),
    outcomePrices: listed('Prices of the outcomes (implied probabilities, 0 to 1)'),
    volume: figure('USDC traded'),
    volume24h: figure('USDC traded in the last 24 hours'),
    liquidity: figure('USDC of liquidity'),
    active: nullable(Type.Boolean()),
    closed: nullable(Type.Boolean()),
    endDate: nullable(Type.String()),
    tokens: listed('Order-book token ids of the outcomes, in their order'),
    outcomeTokens: Type.Array(
      Type.Object({
        outcome: Type.String(),
        price: nullable(Type.String(), 'Implied probability, 0 to 1, decimal string.'),
        tokenId: nullable(Type.String(), 'Its order book: /api/v1/markets/polymarket/orderbook/{tokenId}.'),
      }),
      { description: 'The three lists above, read and paired up.' },
    ),
  }),
  'GET /api/v1/markets/polymarket/orderbook/:tokenId': Type.Object({
    source: Type.Literal('polymarket-clob'),
    tokenId: Type.String(),
    market: nullable(Type.String(), "The market's condition id."),
    bids: Type.Array(Level, { description: 'The 20 best buy orders, highest price first.' }),
    asks: Type.Array(Level, { description: 'The 20 best sell orders, lowest price first.' }),
    spread: nullable(Type.String(), 'Best ask less best bid, decimal string; null when a side is empty.'),
    midpoint: nullable(
      Type.String(),
      'Halfway between the best bid and ask, decimal string; null when a side is empty.',
    ),
    lastTradePrice: nullable(Type.String()),
    tickSize: nullable(Type.String()),
    minOrderSize: nullable(Type.String()),
    timestamp: nullable(Type.String(), 'When the book was read (ISO 8601).'),
  }),
  'GET /api/v1/markets/polymarket/trades/:conditionId': Type.Object({
    source: Type.Literal('polymarket-data'),
    conditionId: Type.String(),
    count: Type.Integer(),
    trades: Type.Array(
      Type.Object({
        id: nullable(Type.String(), 'The transaction hash of the fill (the data API gives fills no id of their own).'),
        price: figure('USDC per share, 0 to 1'),
        size: figure('Shares'),
        side: nullable(Type.String(), "`BUY` or `SELL`: the taker's side."),
        outcome: nullable(Type.String()),
        timestamp: nullable(Type.Integer({ description: 'Epoch seconds.' })),
        asset: nullable(Type.String(), "The outcome token's id."),
        proxyWallet: nullable(Type.String(), "The taker's Polymarket proxy wallet."),
      }),
      { description: 'Newest first.' },
    ),
  }),
  'GET /api/v1/markets/search': Type.Object({
    source: Type.Literal('polymarket'),
    query: Type.String(),
    count: Type.Integer({ description: 'Markets found.' }),
    markets: Type.Array(
      Type.Object({
        source: Type.Literal('polymarket'),
        id: Type.String(),
        question: nullable(Type.String()),
        outcomePrices: listed('Prices of the outcomes (implied probabilities, 0 to 1)'),
        volume: figure('USDC traded'),
        event: Type.Object({ id: Type.String(), title: nullable(Type.String()), slug: nullable(Type.String()) }),
      }),
    ),
  }),
} as const
