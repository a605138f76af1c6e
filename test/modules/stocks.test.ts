import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { finnhub } from '../../adapters/stocks/finnhub.js'
import { stocks as stocksProvider } from '../../app/providers/stocks.js'
import * as StockData from '../../core/StockData.js'
import * as stocks from '../../modules/stocks/index.js'
import { outputs } from '../../modules/stocks/schema.js'
import * as charged from '../support/charged.js'
import { moduleGateway } from '../support/gateway.js'
import { origin, paidGateway } from '../support/paid.js'
import { type Seen, vendorServer } from '../support/vendor.js'

// The stock endpoints on the devnet, paid for real: keyless against a Yahoo Finance stand-in (its chart and search
// answers as its site receives them), keyed against a Finnhub stand-in speaking Finnhub's documented shapes. An
// unknown symbol is a 404, a key or plan Finnhub refuses a 503, an upstream 5xx a 502, none of them charged; bad input
// is a 400 before any 402; without any source the endpoints answer 503 before payment.

const now = () => Math.floor(Date.now() / 1000)

/** Apple's quote at the close of 2025-01-02, as both sources state it. */
const appleQuote = {
  symbol: 'AAPL',
  current: 243.85,
  high: 244.18,
  low: 241.89,
  open: 248.93,
  previousClose: 250.42,
  change: -6.57,
  changePercent: -2.6236,
  timestamp: 1735851600,
  time: '2025-01-02T21:00:00.000Z',
  currency: 'USD',
}

/** Yahoo's trading sessions of the day: around now for a US symbol in session, all past for one whose market closed. */
function sessionsOf(open: boolean) {
  const start = open ? now() - 3_600 : now() - 86_400
  const session = (from: number, to: number) => ({ timezone: 'EST', start: from, end: to, gmtoffset: -18000 })
  return {
    pre: session(start - 19_800, start),
    regular: session(start, start + 23_400),
    post: session(start + 23_400, start + 37_800),
  }
}

/** Yahoo's `/v8/finance/chart/{symbol}` answer: `meta`, and the series with float32 noise, as Yahoo writes them. */
function yahooChart(symbol: string, open: boolean, bars: { time: number; values: (number | null)[] }[]) {
  return {
    chart: {
      result: [
        {
          meta: {
            currency: symbol === 'SAP.DE' ? 'EUR' : 'USD',
            symbol,
            exchangeName: symbol === 'SAP.DE' ? 'GER' : 'NMS',
            fullExchangeName: symbol === 'SAP.DE' ? 'XETRA' : 'NasdaqGS',
            instrumentType: 'EQUITY',
            firstTradeDate: 345479400,
            regularMarketTime: 1735851600,
            hasPrePostMarketData: true,
            gmtoffset: -18000,
            timezone: 'EST',
            exchangeTimezoneName: 'America/New_York',
            regularMarketPrice: 243.85,
            fiftyTwoWeekHigh: 260.1,
            fiftyTwoWeekLow: 164.08,
            regularMarketDayHigh: 244.18,
            regularMarketDayLow: 241.89,
            regularMarketVolume: 40858800,
            longName: 'Apple Inc.',
            shortName: 'Apple Inc.',
            chartPreviousClose: 250.42,
            priceHint: 2,
            currentTradingPeriod: sessionsOf(open),
            dataGranularity: '1d',
            range: '1d',
            validRanges: ['1d', '5d', '1mo', '3mo', '6mo', '1y', '2y', '5y', '10y', 'ytd', 'max'],
          },
          timestamp: bars.map((bar) => bar.time),
          indicators: {
            quote: [
              {
                open: bars.map((bar) => bar.values[0]),
                high: bars.map((bar) => bar.values[1]),
                low: bars.map((bar) => bar.values[2]),
                close: bars.map((bar) => bar.values[3]),
                volume: bars.map((bar) => bar.values[4]),
              },
            ],
          },
        },
      ],
      error: null,
    },
  }
}

/** Yahoo's `/v1/finance/search` answer. */
const yahooSearch = {
  explains: [],
  count: 2,
  quotes: [
    {
      exchange: 'NMS',
      shortname: 'Apple Inc.',
      quoteType: 'EQUITY',
      symbol: 'AAPL',
      index: 'quotes',
      score: 31734,
      typeDisp: 'Equity',
      longname: 'Apple Inc.',
      exchDisp: 'NASDAQ',
      sector: 'Technology',
      sectorDisp: 'Technology',
      industry: 'Consumer Electronics',
      industryDisp: 'Consumer Electronics',
      isYahooFinance: true,
    },
    {
      exchange: 'NYQ',
      shortname: 'Apple Hospitality REIT, Inc.',
      quoteType: 'EQUITY',
      symbol: 'APLE',
      index: 'quotes',
      score: 20045,
      typeDisp: 'Equity',
      longname: 'Apple Hospitality REIT, Inc.',
      exchDisp: 'NYSE',
      isYahooFinance: true,
    },
    { index: '78ddc07626ff4bbcae663e11a9b5ec6e', name: 'Apple', permalink: 'apple', isYahooFinance: false },
  ],
  news: [],
  nav: [],
  lists: [],
  totalTime: 20,
}

const notFound = {
  chart: { result: null, error: { code: 'Not Found', description: 'No data found, symbol may be delisted' } },
}

/** Yahoo Finance's chart and search. */
function yahoo(request: Seen): Response {
  const path = request.url.pathname.replace(/^\/api/, '')
  const query = request.url.searchParams
  if (path === '/v1/finance/search') return Response.json(yahooSearch)
  const symbol = decodeURIComponent(path.replace('/v8/finance/chart/', ''))
  if (symbol === 'BROKEN') return new Response('<html>Service Unavailable</html>', { status: 503 })
  if (symbol !== 'AAPL' && symbol !== 'SAP.DE') return Response.json(notFound, { status: 404 })
  if (query.get('interval') === '1m')
    return Response.json(
      {
        chart: {
          result: null,
          error: {
            code: 'Unprocessable Entity',
            description: '1m data not available for startTime=1. Only 7 days worth of 1m granularity data are allowed.',
          },
        },
      },
      { status: 422 },
    )
  if (query.get('range') === '1d')
    return Response.json(
      yahooChart(symbol, symbol === 'AAPL', [
        {
          time: 1735828200,
          values: [248.92999267578125, 249.10000610351562, 241.82000732421875, 243.85000610351562, 55740700],
        },
      ]),
    )
  return Response.json(
    yahooChart(symbol, true, [
      { time: 1735741800, values: [251.5, 253.10000610351562, 249.5, 250.4199981689453, 39480700] },
      // A gap in trading: Yahoo writes the bar with nulls.
      { time: 1735756200, values: [null, null, null, null, null] },
      {
        time: 1735828200,
        values: [248.92999267578125, 249.10000610351562, 241.82000732421875, 243.85000610351562, 55740700],
      },
    ]),
  )
}

/** Finnhub, as its API reference documents each answer; every call must carry the key in `X-Finnhub-Token`. */
function finnhubAnswer(request: Seen): Response {
  const path = request.url.pathname.replace(/^\/api/, '')
  const query = request.url.searchParams
  if (request.headers.get('x-finnhub-token') !== 'fh-test-key')
    return Response.json({ error: 'Invalid API key.' }, { status: 401 })
  const symbol = query.get('symbol')
  if (path === '/quote')
    return Response.json(
      symbol === 'AAPL'
        ? { c: 243.85, d: -6.57, dp: -2.6236, h: 244.18, l: 241.89, o: 248.93, pc: 250.42, t: 1735851600 }
        : { c: 0, d: null, dp: null, h: 0, l: 0, o: 0, pc: 0, t: 0 },
    )
  if (path === '/stock/profile2')
    return Response.json(
      symbol === 'AAPL'
        ? {
            country: 'US',
            currency: 'USD',
            estimateCurrency: 'USD',
            exchange: 'NASDAQ NMS - GLOBAL MARKET',
            finnhubIndustry: 'Technology',
            ipo: '1980-12-12',
            logo: 'https://static2.finnhub.io/file/publicdatany/finnhubimage/stock_logo/AAPL.png',
            marketCapitalization: 3682456.5,
            name: 'Apple Inc',
            phone: '14089961010',
            shareOutstanding: 15115.82,
            ticker: 'AAPL',
            weburl: 'https://www.apple.com/',
          }
        : {},
    )
  if (path === '/stock/market-status')
    return Response.json({
      exchange: 'US',
      holiday: null,
      isOpen: false,
      session: null,
      timezone: 'America/New_York',
      t: now(),
    })
  if (path === '/search')
    return Response.json({
      count: 2,
      result: [
        { description: 'APPLE INC', displaySymbol: 'AAPL', symbol: 'AAPL', type: 'Common Stock' },
        { description: 'APPLE INC', displaySymbol: 'AAPL.SW', symbol: 'AAPL.SW', type: 'Common Stock' },
      ],
    })
  if (path === '/stock/candle') {
    if (request.headers.get('x-finnhub-token') === 'fh-test-key' && query.get('symbol') !== 'PAID')
      return Response.json({ error: "You don't have access to this resource." }, { status: 403 })
  }
  return Response.json({ error: 'not found' }, { status: 404 })
}

const yahooServer = vendorServer()
const finnhubServer = vendorServer()
let keyless: Awaited<ReturnType<typeof paidGateway>>
let keyed: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  yahooServer.state.answer = yahoo
  finnhubServer.state.answer = finnhubAnswer
  keyless = await paidGateway({ env: { YAHOO_FINANCE_URL: yahooServer.url } })
  keyed = await paidGateway({ env: { FINNHUB_URL: finnhubServer.url, FINNHUB_API_KEY: 'fh-test-key' } })
})
afterAll(async () => {
  await keyless.close()
  await keyed.close()
  yahooServer.stop()
  finnhubServer.stop()
})
beforeEach(() => {
  yahooServer.seen.length = 0
  finnhubServer.seen.length = 0
})

/** A paid call by account 5 on `on` that must succeed at its catalog price, as discovery documents it. */
const served = (on: typeof keyless, path: string) =>
  charged.served(on, on.account(5), path, outputs[`GET ${path.split('?')[0]}` as keyof typeof outputs])

/** A paid call by account 5 on `on` that must fail with `status` and cost nothing. */
const uncharged = (on: typeof keyless, path: string, status: number) =>
  charged.uncharged(on, on.account(5), path, status)

describe('keyless (Yahoo Finance)', () => {
  test("default: a quote says its source, currency, exchange, time and session, in the original gateway's fields", async () => {
    const body = await served(keyless, '/api/v1/stocks/price?symbol=aapl')
    expect(yahooServer.last().url.pathname).toBe('/api/v8/finance/chart/AAPL')
    expect(Object.fromEntries(yahooServer.last().url.searchParams)).toEqual({ range: '1d', interval: '1d' })
    expect(yahooServer.last().headers.get('user-agent')).toContain('pay-per-call-gateway/')
    // Yahoo's series carry float32 noise (its open is 248.92999267578125): rounded to the symbol's 2 places.
    expect(body).toEqual({
      source: 'yahoo',
      ...appleQuote,
      exchange: 'NasdaqGS',
      marketState: 'regular',
      marketOpen: true,
    })
  })

  test('behavior: a market whose sessions are over says it is closed', async () => {
    const body = await served(keyless, '/api/v1/stocks/price?symbol=SAP.DE')
    expect(body).toMatchObject({
      symbol: 'SAP.DE',
      currency: 'EUR',
      exchange: 'XETRA',
      marketState: 'closed',
      marketOpen: false,
    })
  })

  test("behavior: search answers symbols only (not Yahoo's other hits), with their exchange", async () => {
    const body = await served(keyless, '/api/v1/stocks/search?q=apple')
    expect(Object.fromEntries(yahooServer.last().url.searchParams)).toMatchObject({ q: 'apple', newsCount: '0' })
    expect(body).toEqual({
      source: 'yahoo',
      query: 'apple',
      count: 2,
      results: [
        { symbol: 'AAPL', description: 'Apple Inc.', type: 'Equity', displaySymbol: 'AAPL', exchange: 'NASDAQ' },
        {
          symbol: 'APLE',
          description: 'Apple Hospitality REIT, Inc.',
          type: 'Equity',
          displaySymbol: 'APLE',
          exchange: 'NYSE',
        },
      ],
    })
  })

  test('behavior: history answers daily candles oldest first, a gap in trading left out, rounded to the quoted places', async () => {
    const body = await served(keyless, '/api/v1/stocks/history?symbol=AAPL&from=1735700000&to=1735900000')
    expect(Object.fromEntries(yahooServer.last().url.searchParams)).toEqual({
      period1: '1735700000',
      period2: '1735900000',
      interval: '1d',
    })
    expect(body).toEqual({
      source: 'yahoo',
      symbol: 'AAPL',
      resolution: 'D',
      from: 1735700000,
      to: 1735900000,
      currency: 'USD',
      exchange: 'NasdaqGS',
      count: 2,
      candles: [
        { timestamp: 1735741800, open: 251.5, high: 253.1, low: 249.5, close: 250.42, volume: 39480700 },
        { timestamp: 1735828200, open: 248.93, high: 249.1, low: 241.82, close: 243.85, volume: 55740700 },
      ],
    })
  })

  test('behavior: history defaults to the last 30 days; minute candles Yahoo refuses are a 400, not charged', async () => {
    const body = await served(keyless, '/api/v1/stocks/history?symbol=AAPL&resolution=W')
    expect(body.to - body.from).toBe(30 * 86_400)
    expect(Math.abs(body.to - now())).toBeLessThan(60)
    expect(yahooServer.last().url.searchParams.get('interval')).toBe('1wk')
    const refused = await uncharged(
      keyless,
      '/api/v1/stocks/history?symbol=AAPL&resolution=1&from=1&to=1735900000',
      400,
    )
    expect(refused.code).toBe('upstream_rejected')
    expect(refused.detail).toContain('Only 7 days worth of 1m granularity data')
  })

  test("behavior: company is the chart with the search's industry; what Yahoo does not give is null", async () => {
    const body = await served(keyless, '/api/v1/stocks/company?symbol=AAPL')
    expect(body).toEqual({
      source: 'yahoo',
      symbol: 'AAPL',
      name: 'Apple Inc.',
      country: null,
      currency: 'USD',
      exchange: 'NasdaqGS',
      ipo: '1980-12-12',
      marketCap: null,
      industry: 'Consumer Electronics',
      logo: null,
      weburl: null,
    })
  })

  test('error: an unknown symbol is a 404 and a failing Yahoo a 502, neither charged', async () => {
    expect((await uncharged(keyless, '/api/v1/stocks/price?symbol=NOPE', 404)).code).toBe('not_found')
    expect((await uncharged(keyless, '/api/v1/stocks/company?symbol=NOPE', 404)).code).toBe('not_found')
    expect((await uncharged(keyless, '/api/v1/stocks/price?symbol=BROKEN', 502)).code).toBe('upstream_failed')
  })

  test('error: a bad symbol, resolution or range is a 400 naming it, before any 402', async () => {
    for (const [query, field] of [
      ['price?symbol=AA%20PL', 'symbol'],
      ['price', 'symbol'],
      ['search?q=', 'q'],
      ['history?symbol=AAPL&resolution=2', 'resolution'],
      ['history?symbol=AAPL&from=1735900000&to=1735700000', 'from'],
      ['history?symbol=AAPL&to=99999999999', 'to'],
    ] as const) {
      const response = await keyless.fetch(`${origin}/api/v1/stocks/${query}`)
      const body = (await response.json()) as any
      expect({ query, status: response.status, field: body.field }).toEqual({ query, status: 400, field })
    }
    expect(yahooServer.seen).toHaveLength(0)
  })
})

describe('keyed (Finnhub)', () => {
  test("default: the quote is Finnhub's, with the profile's currency and exchange and the US market status", async () => {
    const body = await served(keyed, '/api/v1/stocks/price?symbol=AAPL')
    const paths = finnhubServer.seen.map((seen) => `${seen.url.pathname}${seen.url.search}`).sort()
    expect(paths).toEqual([
      '/api/quote?symbol=AAPL',
      '/api/stock/market-status?exchange=US',
      '/api/stock/profile2?symbol=AAPL',
    ])
    // The key travels in a header, never in a URL.
    for (const seen of finnhubServer.seen) expect(seen.url.href).not.toContain('fh-test-key')
    expect(body).toEqual({
      source: 'finnhub',
      ...appleQuote,
      exchange: 'NASDAQ NMS - GLOBAL MARKET',
      marketState: 'closed',
      marketOpen: false,
    })
  })

  test("behavior: search and company in the original gateway's fields", async () => {
    const search = await served(keyed, '/api/v1/stocks/search?q=apple')
    expect(search).toMatchObject({ source: 'finnhub', query: 'apple', count: 2 })
    expect(search.results[0]).toEqual({
      symbol: 'AAPL',
      description: 'APPLE INC',
      type: 'Common Stock',
      displaySymbol: 'AAPL',
      exchange: null,
    })
    const company = await served(keyed, '/api/v1/stocks/company?symbol=AAPL')
    expect(company).toEqual({
      source: 'finnhub',
      symbol: 'AAPL',
      name: 'Apple Inc',
      country: 'US',
      currency: 'USD',
      exchange: 'NASDAQ NMS - GLOBAL MARKET',
      ipo: '1980-12-12',
      marketCap: 3682456.5,
      industry: 'Technology',
      logo: 'https://static2.finnhub.io/file/publicdatany/finnhubimage/stock_logo/AAPL.png',
      weburl: 'https://www.apple.com/',
    })
  })

  test("error: an unknown symbol is a 404; candles the key's plan lacks a 503 saying so; neither charged", async () => {
    expect((await uncharged(keyed, '/api/v1/stocks/price?symbol=ZZZZ', 404)).code).toBe('not_found')
    expect((await uncharged(keyed, '/api/v1/stocks/company?symbol=ZZZZ', 404)).code).toBe('not_found')
    const refused = await uncharged(keyed, '/api/v1/stocks/history?symbol=AAPL', 503)
    expect(refused.detail).toContain("Finnhub has no candles on this key's plan")
    expect(JSON.stringify(refused)).not.toContain('fh-test-key')
  })
})

describe('finnhub', () => {
  test('behavior: candles of `{ s: "ok" }` are read column by column; `no_data` is an empty range', async () => {
    const server = vendorServer()
    server.state.answer = (request) =>
      request.url.searchParams.get('symbol') === 'AAPL'
        ? Response.json({
            c: [250.42, 243.85],
            h: [253.1, 249.1],
            l: [249.5, 241.82],
            o: [251.5, 248.93],
            s: 'ok',
            t: [1735741800, 1735828200],
            v: [39480700, 55740700],
          })
        : Response.json({ s: 'no_data' })
    try {
      const source = finnhub({ baseUrl: server.url, apiKey: 'paid-plan-key' })
      const query = { resolution: 'D' as const, from: 1735700000, to: 1735900000 }
      const found = await source.candles({ symbol: 'AAPL', ...query })
      expect(found).toEqual({
        ok: true,
        found: {
          currency: null,
          exchange: null,
          candles: [
            { time: 1735741800, open: '251.5', high: '253.1', low: '249.5', close: '250.42', volume: 39480700 },
            { time: 1735828200, open: '248.93', high: '249.1', low: '241.82', close: '243.85', volume: 55740700 },
          ],
        },
      })
      expect(server.last().url.search).toBe('?symbol=AAPL&resolution=D&from=1735700000&to=1735900000')
      expect(await source.candles({ symbol: 'NONE', ...query })).toEqual({
        ok: true,
        found: { currency: null, exchange: null, candles: [] },
      })
    } finally {
      server.stop()
    }
  })
})

describe('StockData.changeOf', () => {
  test('behavior: exact differences and percents to 4 places, half away from zero', () => {
    expect(StockData.changeOf({ current: '243.85', previous: '250.42' })).toEqual({
      change: '-6.57',
      changePercent: '-2.6236',
    })
    // 0.00005 % exactly, half away from zero either way.
    expect(StockData.changeOf({ current: '20.00001', previous: '20' })).toEqual({
      change: '0.00001',
      changePercent: '0.0001',
    })
    expect(StockData.changeOf({ current: '19.99999', previous: '20' })).toEqual({
      change: '-0.00001',
      changePercent: '-0.0001',
    })
    expect(StockData.changeOf({ current: '10', previous: '0' })).toEqual({ change: null, changePercent: null })
    expect(StockData.changeOf({ current: '10', previous: null })).toEqual({ change: null, changePercent: null })
  })
})

describe('StockData.stateAt', () => {
  test('behavior: the session a moment falls in, closed outside them', () => {
    const sessions = { pre: { start: 0, end: 10 }, regular: { start: 10, end: 20 }, post: { start: 20, end: 30 } }
    expect([5, 10, 25, 30].map((time) => StockData.stateAt({ time, sessions }))).toEqual([
      'pre',
      'regular',
      'post',
      'closed',
    ])
  })
})

describe('unconfigured', () => {
  test('error: without a source the endpoints are a 503 before payment, and discovery says why', async () => {
    const bare = moduleGateway(stocks.manifest)
    const response = await bare.get('/api/v1/stocks/price?symbol=AAPL')
    expect(response.status).toBe(503)
    expect(((await response.json()) as any).detail).toContain('FINNHUB_API_KEY')
    expect(bare.settled).toHaveLength(0)
    const manifest = (await (await bare.handle(new Request(`${origin}/.well-known/x402.json`))).json()) as any
    const entry = manifest.resources.find((resource: any) => resource.path === '/api/v1/stocks/price')
    expect(entry.available).toBe(false)
  })

  test('behavior: STOCKS_SOURCE=finnhub builds no source until the key is set; auto falls back to Yahoo', async () => {
    const env = {
      STOCKS_SOURCE: 'finnhub' as const,
      FINNHUB_URL: finnhubServer.url,
      FINNHUB_CALLS_PER_MINUTE: 60,
      YAHOO_FINANCE_URL: yahooServer.url,
    }
    const build = (overrides: Partial<typeof env> & { FINNHUB_API_KEY?: string }) =>
      stocksProvider.build({ env: { ...env, ...overrides }, shared: undefined as never, ports: {} })
    expect(await build({})).toBeUndefined()
    expect((await build({ FINNHUB_API_KEY: 'k' }))?.source).toBe('finnhub')
    expect((await build({ STOCKS_SOURCE: 'auto' as never }))?.source).toBe('yahoo')
  })
})
