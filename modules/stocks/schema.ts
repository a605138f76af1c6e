import { type Static, type TSchema, Type } from '@sinclair/typebox'
import * as StockData from '../../core/StockData.js'

const nullable = <schema extends TSchema>(schema: schema, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {})

/** A symbol parameter. */
const symbol = Type.String({
  pattern: StockData.symbolPattern.source,
  examples: ['AAPL'],
  description:
    'Ticker symbol, any case, e.g. `AAPL`, `BRK.B`; for an exchange outside the US its suffix, e.g. `BMW.DE`.',
})

/** Query of `GET /api/v1/stocks/price` and `GET /api/v1/stocks/company`. */
export const SymbolQuery = Type.Object({ symbol })

/** Query of `GET /api/v1/stocks/search`. */
export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 100,
    examples: ['apple'],
    description: 'A company name or a ticker, 1 to 100 characters.',
  }),
})

/** Query of `GET /api/v1/stocks/history`. */
export const HistoryQuery = Type.Object({
  symbol,
  resolution: Type.Optional(
    Type.Union(
      StockData.resolutions.map((resolution) => Type.Literal(resolution)),
      {
        default: 'D',
        description:
          'Candle width: minutes (`1`, `5`, `15`, `30`, `60`), a day (`D`), a week (`W`) or a month (`M`). Minute candles reach back as far as the source keeps them (Yahoo Finance: 1-minute 7 days per call within 30, others 60 days).',
      },
    ),
  ),
  from: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,10}$',
      description: 'Start of the range, epoch seconds (before `to`). @default 30 days before `to`',
    }),
  ),
  to: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,10}$',
      description: 'End of the range, epoch seconds, before 2100. @default now',
    }),
  ),
})
/** Query of `GET /api/v1/stocks/history`. */
export type HistoryQuery = Static<typeof HistoryQuery>

const price = (description: string) => nullable(Type.Number(), `${description}, in \`currency\`.`)
const source = Type.String({ description: 'Where the data is from: `finnhub` or `yahoo`.' })

/** Answers, by catalog key, for discovery. */
export const outputs = {
  'GET /api/v1/stocks/price': Type.Object({
    source,
    symbol: Type.String(),
    current: Type.Number({ description: 'Latest price, in `currency`.' }),
    high: price("The day's high"),
    low: price("The day's low"),
    open: price("The day's open"),
    previousClose: price("The previous session's close"),
    change: price('`current` less `previousClose`'),
    changePercent: nullable(Type.Number(), '`change` in percent of `previousClose`, 4 places.'),
    timestamp: Type.Integer({ description: 'When `current` traded, epoch seconds.' }),
    time: Type.String({ description: '`timestamp` in ISO 8601.' }),
    currency: nullable(Type.String(), 'ISO 4217 currency of the prices.'),
    exchange: nullable(Type.String()),
    marketState: nullable(
      Type.Union([Type.Literal('pre'), Type.Literal('regular'), Type.Literal('post'), Type.Literal('closed')]),
      "The symbol's market now: before its session, in it, after it, or closed (`current` is then the last close); null when the source cannot tell.",
    ),
    marketOpen: nullable(Type.Boolean(), 'Whether the regular session is on now.'),
  }),
  'GET /api/v1/stocks/search': Type.Object({
    source,
    query: Type.String(),
    count: Type.Integer({ description: 'Symbols found (the first 20 are answered).' }),
    results: Type.Array(
      Type.Object({
        symbol: Type.String(),
        description: nullable(Type.String()),
        type: nullable(Type.String()),
        displaySymbol: nullable(Type.String()),
        exchange: nullable(Type.String()),
      }),
    ),
  }),
  'GET /api/v1/stocks/history': Type.Object({
    source,
    symbol: Type.String(),
    resolution: Type.String(),
    from: Type.Integer({ description: 'Epoch seconds.' }),
    to: Type.Integer({ description: 'Epoch seconds.' }),
    currency: nullable(Type.String()),
    exchange: nullable(Type.String()),
    count: Type.Integer(),
    candles: Type.Array(
      Type.Object({
        timestamp: Type.Integer({ description: 'Start of the candle, epoch seconds.' }),
        open: Type.Number(),
        high: Type.Number(),
        low: Type.Number(),
        close: Type.Number(),
        volume: nullable(Type.Number(), 'Shares traded.'),
      }),
      { description: 'Oldest first.' },
    ),
    note: Type.Optional(Type.String({ description: 'Present when the range holds no candle.' })),
  }),
  'GET /api/v1/stocks/company': Type.Object({
    source,
    symbol: Type.String(),
    name: nullable(Type.String()),
    country: nullable(Type.String()),
    currency: nullable(Type.String()),
    exchange: nullable(Type.String()),
    ipo: nullable(Type.String(), 'Listing date, `YYYY-MM-DD` (from Yahoo Finance: the first trade it records).'),
    marketCap: nullable(Type.Number(), 'Market capitalization, millions of `currency`.'),
    industry: nullable(Type.String()),
    logo: nullable(Type.String()),
    weburl: nullable(Type.String()),
  }),
} as const
