import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import { outputs } from '../../modules/markets/schema.js'
import { spreadOf } from '../../modules/markets/service.js'
import * as charged from '../support/charged.js'
import { origin, paidGateway } from '../support/paid.js'
import { type Seen, vendorServer } from '../support/vendor.js'

// The prediction-market endpoints on the devnet, paid for real, against one local stand-in that speaks Polymarket's
// documented shapes: Gamma under /gamma, the CLOB under /clob, the data API under /data. An unknown market or token
// is a 404, an upstream 429 a 503 and a 5xx a 502, none of them charged; bad input is a 400 before any 402.

const conditionId = '0x8e9b6942b4dac3117dadfacac2edb390b6d62d59c14152774bb5fcd983fc134e'
const closedConditionId = `0x${'ab'.repeat(32)}`
const yesToken = '71321045679252212594626385532706912750332728571942532289631379312455583992563'
const noToken = '52114319501245915516055106046884209969926127482827954674443846427813813222426'

/** A Gamma market as `/markets` and `/events` write it: outcome lists are JSON in strings, volume a string. */
const gammaMarket = {
  id: '516724',
  question: 'Will 1 Fed rate cut happen in 2025?',
  conditionId,
  slug: 'will-1-fed-rate-cut-happen-in-2025',
  description: `This market will resolve to "Yes" if the Fed cuts once in 2025. ${'Rules. '.repeat(100)}`,
  outcomes: '["Yes", "No"]',
  outcomePrices: '["0.205", "0.795"]',
  volume: '1234567.123',
  volume24hr: 12345.6,
  liquidity: '45678.9',
  active: true,
  closed: false,
  endDate: '2025-12-10T12:00:00Z',
  clobTokenIds: `["${yesToken}", "${noToken}"]`,
  enableOrderBook: true,
}

/** A Gamma event with its markets, one of them closed. */
const gammaEvent = {
  id: '16085',
  ticker: 'how-many-fed-rate-cuts-in-2025',
  slug: 'how-many-fed-rate-cuts-in-2025',
  title: 'How many Fed rate cuts in 2025?',
  description: `How many times will the Fed cut rates in 2025? ${'More. '.repeat(100)}`,
  startDate: '2024-12-29T22:50:33.584839Z',
  endDate: '2025-12-10T12:00:00Z',
  active: true,
  closed: false,
  liquidity: 1234567.89,
  volume: 23456789.12,
  markets: [
    gammaMarket,
    {
      ...gammaMarket,
      id: '516725',
      question: 'Will no Fed rate cut happen in 2025?',
      conditionId: closedConditionId,
      closed: true,
    },
  ],
}

/** A closed event, which search leaves out unless asked. */
const closedEvent = { ...gammaEvent, id: '9001', title: 'Bitcoin above 100k in 2024?', closed: true, markets: [] }

/** The CLOB's `/book`: each side listed from its worst price to its best, as the CLOB answers. */
const book = {
  market: conditionId,
  asset_id: yesToken,
  timestamp: '1735689600000',
  hash: '0x5e6f',
  bids: [
    { price: '0.18', size: '500' },
    { price: '0.19', size: '200' },
    { price: '0.2', size: '120.5' },
  ],
  asks: [
    { price: '0.25', size: '300' },
    { price: '0.23', size: '50' },
    { price: '0.21', size: '75' },
  ],
  min_order_size: '5',
  tick_size: '0.01',
  neg_risk: false,
  last_trade_price: '0.2',
}

/** The data API's `/trades`, newest first. */
const dataTrades = [
  {
    proxyWallet: '0x1111111111111111111111111111111111111111',
    side: 'BUY',
    asset: yesToken,
    conditionId,
    size: 100,
    price: 0.2,
    timestamp: 1735689500,
    title: 'Will 1 Fed rate cut happen in 2025?',
    slug: 'will-1-fed-rate-cut-happen-in-2025',
    outcome: 'Yes',
    outcomeIndex: 0,
    transactionHash: `0x${'c1'.repeat(32)}`,
  },
  {
    proxyWallet: '0x2222222222222222222222222222222222222222',
    side: 'SELL',
    asset: noToken,
    conditionId,
    size: 40.5,
    price: 0.79,
    timestamp: 1735689400,
    title: 'Will 1 Fed rate cut happen in 2025?',
    slug: 'will-1-fed-rate-cut-happen-in-2025',
    outcome: 'No',
    outcomeIndex: 1,
    transactionHash: `0x${'c2'.repeat(32)}`,
  },
]

/** Polymarket's three APIs, by path prefix. */
function polymarket(request: Seen): Response {
  const path = request.url.pathname.replace(/^\/api/, '')
  const query = request.url.searchParams
  if (path === '/gamma/events') return Response.json(query.get('tag_slug') === 'nothing' ? [] : [gammaEvent])
  if (path === '/gamma/markets') return Response.json(query.get('condition_ids') === conditionId ? [gammaMarket] : [])
  if (path === '/gamma/markets/516724') return Response.json(gammaMarket)
  if (path.startsWith('/gamma/markets/'))
    return Response.json({ type: 'not found error', error: 'id not found' }, { status: 404 })
  if (path === '/gamma/public-search') {
    if (query.get('q') === 'overloaded') return Response.json({ error: 'rate limited' }, { status: 429 })
    if (query.get('q') === 'broken') return new Response('upstream exploded', { status: 500 })
    return Response.json({
      events: [gammaEvent, closedEvent],
      tags: [],
      profiles: [],
      pagination: { hasMore: false, totalResults: 2 },
    })
  }
  if (path === '/clob/book')
    return query.get('token_id') === yesToken
      ? Response.json(book)
      : Response.json({ error: 'No orderbook exists for the requested token id' }, { status: 404 })
  if (path === '/data/trades') return Response.json(dataTrades.slice(0, Number(query.get('limit'))))
  return Response.json({ error: 'not found' }, { status: 404 })
}

const vendor = vendorServer()
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  vendor.state.answer = polymarket
  gateway = await paidGateway({
    env: {
      POLYMARKET_GAMMA_URL: `${vendor.url}/gamma`,
      POLYMARKET_CLOB_URL: `${vendor.url}/clob`,
      POLYMARKET_DATA_URL: `${vendor.url}/data`,
    },
  })
})
afterAll(async () => {
  await gateway.close()
  vendor.stop()
})
beforeEach(() => {
  vendor.seen.length = 0
})

/** The catalog price of `GET path` in atomic USDC. */
function priceOf(path: string): bigint {
  const entry = Catalog.entries.find((candidate) => candidate.method === 'GET' && candidate.path === path)
  if (!entry) throw new Error(`no entry ${path}`)
  return Price.quote({ price: entry.price })
}

/** A paid call by account 4 that must succeed at the catalog price of `catalogPath`, as discovery documents it. */
const served = (path: string, catalogPath: string) =>
  charged.served(gateway, gateway.account(4), path, outputs[`GET ${catalogPath}` as keyof typeof outputs])

/** A paid call by account 4 that must fail with `status` and cost nothing. */
const uncharged = (path: string, status: number) => charged.uncharged(gateway, gateway.account(4), path, status)

/** An unpaid GET: status and body. */
async function unpaid(path: string) {
  const response = await gateway.fetch(`${origin}${path}`)
  return { status: response.status, body: (await response.json()) as any }
}

describe('GET /api/v1/markets/polymarket/events', () => {
  test("default: active events with their markets, in the original gateway's fields, for 0.001 USDC", async () => {
    const body = await served('/api/v1/markets/polymarket/events', '/api/v1/markets/polymarket/events')
    expect(vendor.last().url.pathname).toBe('/api/gamma/events')
    expect(Object.fromEntries(vendor.last().url.searchParams)).toEqual({ limit: '10', offset: '0', active: 'true' })
    expect(body.source).toBe('polymarket')
    expect(body.count).toBe(1)
    expect(body.events[0]).toMatchObject({
      id: '16085',
      title: 'How many Fed rate cuts in 2025?',
      slug: 'how-many-fed-rate-cuts-in-2025',
      active: true,
      closed: false,
      volume: 23456789.12,
      liquidity: 1234567.89,
      startDate: '2024-12-29T22:50:33.584839Z',
      endDate: '2025-12-10T12:00:00Z',
    })
    expect(body.events[0].description).toHaveLength(300)
    expect(body.events[0].markets[0]).toEqual({
      id: '516724',
      question: 'Will 1 Fed rate cut happen in 2025?',
      outcomePrices: '["0.205", "0.795"]',
      outcomes: '["Yes", "No"]',
      volume: '1234567.123',
      volume24h: 12345.6,
    })
  })

  test('behavior: query is a tag slug (any case), with limit, offset, active and closed passed on', async () => {
    await served(
      '/api/v1/markets/polymarket/events?query=Politics&limit=5&offset=10&active=false&closed=true',
      '/api/v1/markets/polymarket/events',
    )
    expect(Object.fromEntries(vendor.last().url.searchParams)).toEqual({
      limit: '5',
      offset: '10',
      active: 'false',
      closed: 'true',
      tag_slug: 'politics',
    })
  })

  test('error: a limit past 50, words for a tag or an active that is not a boolean are a 400 before any 402', async () => {
    for (const [query, field] of [
      ['limit=51', 'limit'],
      ['query=us%20election', 'query'],
      ['active=maybe', 'active'],
    ] as const) {
      const { status, body } = await unpaid(`/api/v1/markets/polymarket/events?${query}`)
      expect({ query, status, field: body.field ?? body.errors?.[0]?.field }).toEqual({ query, status: 400, field })
    }
    expect(vendor.seen).toHaveLength(0)
  })
})

describe('GET /api/v1/markets/polymarket/market/:conditionId', () => {
  const path = '/api/v1/markets/polymarket/market/:conditionId'

  test('default: a market by condition id, its outcomes paired with prices and order-book tokens', async () => {
    const body = await served(
      `/api/v1/markets/polymarket/market/${conditionId.toUpperCase().replace('0X', '0x')}`,
      path,
    )
    expect(vendor.last().url.pathname).toBe('/api/gamma/markets')
    expect(vendor.last().url.searchParams.get('condition_ids')).toBe(conditionId)
    expect(body).toMatchObject({
      source: 'polymarket',
      id: '516724',
      conditionId,
      question: 'Will 1 Fed rate cut happen in 2025?',
      outcomes: '["Yes", "No"]',
      outcomePrices: '["0.205", "0.795"]',
      volume: '1234567.123',
      volume24h: 12345.6,
      liquidity: '45678.9',
      active: true,
      closed: false,
      endDate: '2025-12-10T12:00:00Z',
      tokens: `["${yesToken}", "${noToken}"]`,
    })
    expect(body.description).toHaveLength(500)
    expect(body.outcomeTokens).toEqual([
      { outcome: 'Yes', price: '0.205', tokenId: yesToken },
      { outcome: 'No', price: '0.795', tokenId: noToken },
    ])
  })

  test("behavior: Polymarket's numeric market id is read at /markets/{id}", async () => {
    const body = await served('/api/v1/markets/polymarket/market/516724', path)
    expect(vendor.last().url.pathname).toBe('/api/gamma/markets/516724')
    expect(body.conditionId).toBe(conditionId)
  })

  test('error: a market Polymarket does not know is a 404, not charged', async () => {
    const body = await uncharged(`/api/v1/markets/polymarket/market/0x${'00'.repeat(32)}`, 404)
    expect(body.code).toBe('not_found')
    await uncharged('/api/v1/markets/polymarket/market/999', 404)
  })

  test('error: a condition id that is neither 0x and 64 hex digits nor a number is a 400 before any 402', async () => {
    const { status, body } = await unpaid('/api/v1/markets/polymarket/market/0x1234')
    expect(status).toBe(400)
    expect(JSON.stringify(body)).toContain('conditionId')
  })
})

describe('GET /api/v1/markets/polymarket/orderbook/:tokenId', () => {
  const path = '/api/v1/markets/polymarket/orderbook/:tokenId'

  test('default: each side best first, with the spread and midpoint computed exactly', async () => {
    const body = await served(`/api/v1/markets/polymarket/orderbook/${yesToken}`, path)
    expect(vendor.last().url.pathname).toBe('/api/clob/book')
    expect(vendor.last().url.searchParams.get('token_id')).toBe(yesToken)
    expect(body).toEqual({
      source: 'polymarket-clob',
      tokenId: yesToken,
      market: conditionId,
      bids: [
        { price: '0.2', size: '120.5' },
        { price: '0.19', size: '200' },
        { price: '0.18', size: '500' },
      ],
      asks: [
        { price: '0.21', size: '75' },
        { price: '0.23', size: '50' },
        { price: '0.25', size: '300' },
      ],
      spread: '0.01',
      midpoint: '0.205',
      lastTradePrice: '0.2',
      tickSize: '0.01',
      minOrderSize: '5',
      timestamp: '2025-01-01T00:00:00.000Z',
    })
  })

  test('behavior: the bare path takes tokenId in the query, at the same price', async () => {
    const body = await served(`/api/v1/markets/polymarket/orderbook?tokenId=${yesToken}`, path)
    expect(body).toMatchObject({ tokenId: yesToken, spread: '0.01' })
  })

  test('error: a token without a book is a 404, not charged; a token id that is not a number a 400 before any 402', async () => {
    await uncharged(`/api/v1/markets/polymarket/orderbook/${noToken}`, 404)
    expect((await unpaid('/api/v1/markets/polymarket/orderbook/yes')).status).toBe(400)
  })
})

describe('spreadOf', () => {
  test('behavior: exact decimals at one place more than the prices; none for an empty side', () => {
    expect(spreadOf({ price: '0.333', size: '1' }, { price: '0.334', size: '1' })).toEqual({
      spread: '0.001',
      midpoint: '0.3335',
    })
    expect(spreadOf(undefined, { price: '0.5', size: '1' })).toEqual({ spread: null, midpoint: null })
  })
})

describe('GET /api/v1/markets/polymarket/trades/:conditionId', () => {
  test("default: the market's latest fills from the data API, newest first", async () => {
    const body = await served(
      `/api/v1/markets/polymarket/trades/${conditionId}?limit=2`,
      '/api/v1/markets/polymarket/trades/:conditionId',
    )
    expect(vendor.last().url.pathname).toBe('/api/data/trades')
    expect(Object.fromEntries(vendor.last().url.searchParams)).toEqual({ market: conditionId, limit: '2' })
    expect(body).toMatchObject({ source: 'polymarket-data', conditionId, count: 2 })
    expect(body.trades[0]).toEqual({
      id: `0x${'c1'.repeat(32)}`,
      price: 0.2,
      size: 100,
      side: 'BUY',
      outcome: 'Yes',
      timestamp: 1735689500,
      asset: yesToken,
      proxyWallet: '0x1111111111111111111111111111111111111111',
    })
  })

  test('error: a limit past 100 or a condition id that is not 0x and 64 hex digits is a 400 before any 402', async () => {
    expect((await unpaid(`/api/v1/markets/polymarket/trades/${conditionId}?limit=101`)).status).toBe(400)
    expect((await unpaid('/api/v1/markets/polymarket/trades/516724')).status).toBe(400)
    expect(vendor.seen).toHaveLength(0)
  })
})

describe('GET /api/v1/markets/search', () => {
  test('default: the open markets of the events Polymarket finds, each with its event, for 0.002 USDC', async () => {
    const body = await served('/api/v1/markets/search?q=fed%20cuts', '/api/v1/markets/search')
    expect(vendor.last().url.pathname).toBe('/api/gamma/public-search')
    expect(Object.fromEntries(vendor.last().url.searchParams)).toEqual({ q: 'fed cuts', limit_per_type: '10' })
    expect(priceOf('/api/v1/markets/search')).toBe(2_000n)
    expect(body).toEqual({
      source: 'polymarket',
      query: 'fed cuts',
      count: 1,
      markets: [
        {
          source: 'polymarket',
          id: '516724',
          question: 'Will 1 Fed rate cut happen in 2025?',
          outcomePrices: '["0.205", "0.795"]',
          volume: '1234567.123',
          event: { id: '16085', title: 'How many Fed rate cuts in 2025?', slug: 'how-many-fed-rate-cuts-in-2025' },
        },
      ],
    })
  })

  test('behavior: active=false keeps closed events and markets too', async () => {
    const body = await served(
      '/api/v1/markets/search?q=fed&active=false&limit=3&source=polymarket',
      '/api/v1/markets/search',
    )
    expect(vendor.last().url.searchParams.get('limit_per_type')).toBe('3')
    expect(body.markets.map((market: any) => market.id)).toEqual(['516724', '516725'])
  })

  test('error: no q, or a source other than all or polymarket, is a 400 before any 402', async () => {
    expect((await unpaid('/api/v1/markets/search')).status).toBe(400)
    expect((await unpaid('/api/v1/markets/search?q=btc&source=kalshi')).status).toBe(400)
    expect(vendor.seen).toHaveLength(0)
  })

  test('error: Polymarket rate-limiting is a 503 and its failure a 502, neither charged', async () => {
    expect((await uncharged('/api/v1/markets/search?q=overloaded', 503)).code).toBe('upstream_unavailable')
    expect((await uncharged('/api/v1/markets/search?q=broken', 502)).code).toBe('upstream_failed')
  })
})

describe('discovery', () => {
  test("behavior: OpenAPI lists every markets route at the original gateway's price, with its parameters", async () => {
    const openapi = (await (await gateway.fetch(`${origin}/openapi.json`)).json()) as any
    const events = openapi.paths['/api/v1/markets/polymarket/events'].get
    expect(events.parameters.map((parameter: any) => parameter.name).sort()).toEqual(
      ['active', 'closed', 'limit', 'offset', 'query'].sort(),
    )
    expect(openapi.paths['/api/v1/markets/search'].get.parameters.map((parameter: any) => parameter.name)).toContain(
      'q',
    )
    const manifest = (await (await gateway.fetch(`${origin}/.well-known/x402.json`)).json()) as any
    const search = manifest.resources.find((resource: any) => resource.path === '/api/v1/markets/search')
    expect(search.available).toBe(true)
    const llms = await (await gateway.fetch(`${origin}/llms.txt`)).text()
    expect(llms).toContain('/api/v1/markets/polymarket/orderbook/:tokenId')
  })
})
