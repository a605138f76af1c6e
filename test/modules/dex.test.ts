import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { dexscreener } from '../../adapters/dex/dexscreener.js'
import { variables } from '../../app/config.js'
import { manifest } from '../../modules/dex/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'
import { offMachine, paidGateway } from '../support/paid.js'
import { type Seen, vendorServer } from '../support/vendor.js'

const weth = '0x4200000000000000000000000000000000000006'
const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const pool = '0xcDAC0d6c6C59727a65F871236188350531885C43'

/** A pair in the shape DexScreener's API reference documents (test data, not a market reading). */
function pairOf(index: number, overrides: Record<string, unknown> = {}) {
  return {
    chainId: 'base',
    dexId: 'aerodrome',
    url: `https://dexscreener.com/base/${pool.toLowerCase()}`,
    pairAddress: index === 0 ? pool : `0x${index.toString(16).padStart(40, '0')}`,
    labels: ['v2'],
    baseToken: { address: weth, name: 'Wrapped Ether', symbol: 'WETH' },
    quoteToken: { address: usdc, name: 'USD Coin', symbol: 'USDC' },
    priceNative: '3012.45',
    priceUsd: '3012.45',
    txns: {
      m5: { buys: 12, sells: 9 },
      h1: { buys: 140, sells: 121 },
      h6: { buys: 800, sells: 760 },
      h24: { buys: 3100, sells: 2900 },
    },
    volume: { h24: 18_250_000.5, h6: 4_100_000, h1: 690_000, m5: 51_000 },
    priceChange: { m5: 0.05, h1: -0.2, h6: 1.1, h24: 2.35 },
    liquidity: { usd: 24_600_000.12, base: 4100.5, quote: 12_300_000 },
    fdv: 9_100_000_000,
    marketCap: 9_100_000_000,
    pairCreatedAt: 1_693_526_400_000,
    info: { imageUrl: 'https://dd.dexscreener.com/ds-data/tokens/base/weth.png', websites: [], socials: [] },
    boosts: { active: 0 },
    ...overrides,
  }
}

/** Boosted tokens as DexScreener's `/token-boosts/latest/v1` answers them (an array; test data). */
const boosts = Array.from({ length: 25 }, (_, index) => ({
  url: `https://dexscreener.com/solana/token${index}`,
  chainId: index % 2 === 0 ? 'solana' : 'base',
  tokenAddress: `Token${index}Address1111111111111111111111`,
  amount: 10,
  totalAmount: 10 + index,
  icon: `https://dd.dexscreener.com/ds-data/tokens/solana/token${index}.png`,
  header: null,
  description: index === 0 ? 'The first boosted token.' : null,
  links: [{ type: 'twitter', url: 'https://x.com/example' }],
}))

const stand = vendorServer()
afterAll(() => stand.stop())
beforeEach(() => stand.reset())

/** The stand-in's answers: DexScreener's routes, a pair only at `pool` on base, and `boosts`. */
function dexscreenerShapes({ url }: Seen): Response {
  const path = url.pathname.replace(/^\/api/, '')
  if (path === '/latest/dex/search')
    return Response.json({ schemaVersion: '1.0.0', pairs: Array.from({ length: 30 }, (_, index) => pairOf(index)) })
  if (path.startsWith('/latest/dex/pairs/')) {
    const [chain, address] = path.slice('/latest/dex/pairs/'.length).split('/')
    return Response.json({ schemaVersion: '1.0.0', pairs: chain === 'base' && address === pool ? [pairOf(0)] : null })
  }
  if (path.startsWith('/latest/dex/tokens/')) {
    const addresses = decodeURIComponent(path.slice('/latest/dex/tokens/'.length)).split(',')
    const known = addresses.includes(weth)
    return Response.json({
      schemaVersion: '1.0.0',
      pairs: known
        ? Array.from({ length: 24 }, (_, index) => pairOf(index, { dexId: index % 2 ? 'uniswap' : 'aerodrome' }))
        : null,
    })
  }
  if (path === '/token-boosts/latest/v1') return Response.json(boosts)
  return Response.json({ error: 'Not found' }, { status: 404 })
}

/** The dex family on the stand-in, its adapter without retries; `env` and `options` override. */
function setup(parameters: { env?: Record<string, string>; options?: Parameters<typeof dexscreener>[0] } = {}) {
  stand.state.answer = dexscreenerShapes
  const index = dexscreener({ baseUrl: stand.url, retries: 0, retryDelayMs: 0, ...parameters.options })
  return moduleGateway(manifest, { ports: { dex: index }, env: parameters.env ?? {} })
}

describe('GET /free/dex/search', () => {
  test("default: the first 20 pairs found, in the original gateway's fields, free", async () => {
    const api = setup()
    const body = await ok(await api.get('/free/dex/search?q=WETH'))
    expect(stand.last().url.pathname).toBe('/api/latest/dex/search')
    expect(stand.last().url.searchParams.get('q')).toBe('WETH')
    expect(body.source).toBe('dexscreener')
    expect(body.query).toBe('WETH')
    expect(body.pairs).toHaveLength(20)
    expect(body.pairs[0]).toEqual({
      chain: 'base',
      dex: 'aerodrome',
      baseToken: { symbol: 'WETH', name: 'Wrapped Ether', address: weth },
      quoteToken: { symbol: 'USDC', name: 'USD Coin' },
      priceUsd: '3012.45',
      priceNative: '3012.45',
      volume24h: 18_250_000.5,
      priceChange24h: 2.35,
      liquidity: 24_600_000.12,
      fdv: 9_100_000_000,
      pairAddress: pool,
      url: `https://dexscreener.com/base/${pool.toLowerCase()}`,
    })
    expect(api.settled).toEqual([])
  })

  test('behavior: the same search within 15 s is answered from memory, without another upstream call', async () => {
    const api = setup()
    await ok(await api.get('/free/dex/search?q=AERO'))
    await ok(await api.get('/free/dex/search?q=AERO'))
    expect(stand.seen).toHaveLength(1)
  })

  test('behavior: a pair the index cannot price in USD has null figures, not made-up ones', async () => {
    const api = setup()
    stand.state.answer = () =>
      Response.json({
        schemaVersion: '1.0.0',
        pairs: [pairOf(0, { priceUsd: undefined, liquidity: undefined, fdv: undefined, volume: {}, priceChange: {} })],
      })
    const [pair] = (await ok(await api.get('/free/dex/search?q=NEW'))).pairs
    expect(pair).toMatchObject({ priceUsd: null, liquidity: null, fdv: null, volume24h: null, priceChange24h: null })
  })

  test('error: no query, or a blank one, is a 400 naming q before any upstream call', async () => {
    const api = setup()
    expect((await refused(await api.get('/free/dex/search'), 400)).field).toBe('q')
    expect((await refused(await api.get('/free/dex/search?q=%20%20'), 400)).field).toBe('q')
    expect(stand.seen).toHaveLength(0)
  })
})

describe('GET /free/dex/pairs/:chain/:pair', () => {
  test('default: the pair in detail (volume, price change and trades by window, liquidity), in any case of chain', async () => {
    const api = setup()
    const body = await ok(await api.get(`/free/dex/pairs/Base/${pool}`))
    expect(stand.last().url.pathname).toBe(`/api/latest/dex/pairs/base/${pool}`)
    const pair = pairOf(0)
    expect(body).toEqual({
      source: 'dexscreener',
      chain: 'base',
      dex: 'aerodrome',
      baseToken: pair.baseToken,
      quoteToken: pair.quoteToken,
      priceUsd: '3012.45',
      priceNative: '3012.45',
      volume: pair.volume,
      priceChange: pair.priceChange,
      liquidity: pair.liquidity,
      fdv: pair.fdv,
      marketCap: pair.marketCap,
      txns: pair.txns,
      pairCreatedAt: pair.pairCreatedAt,
      pairAddress: pool,
      url: pair.url,
    })
  })

  test('behavior: the parameters are taken as a query too', async () => {
    const api = setup()
    expect((await ok(await api.get(`/free/dex/pairs?chain=base&pair=${pool}`))).pairAddress).toBe(pool)
  })

  test('error: a pair the index does not list is a 404', async () => {
    const api = setup()
    const body = await refused(await api.get(`/free/dex/pairs/ethereum/${pool}`), 404)
    expect(body.code).toBe('not_found')
  })

  test('error: a chain or address that is no identifier is a 400 naming it, before any upstream call', async () => {
    const api = setup()
    expect((await refused(await api.get(`/free/dex/pairs/ba$e/${pool}`), 400)).field).toBe('chain')
    expect((await refused(await api.get('/free/dex/pairs/base/0x12%2F..%2F'), 400)).field).toBe('pair')
    expect(stand.seen).toHaveLength(0)
  })
})

describe('GET /free/dex/tokens/:address', () => {
  test('default: how many pairs the token has, and the first 20', async () => {
    const api = setup()
    const body = await ok(await api.get(`/free/dex/tokens/${weth}`))
    expect(body.source).toBe('dexscreener')
    expect(body.token).toBe(weth)
    expect(body.pairCount).toBe(24)
    expect(body.pairs).toHaveLength(20)
    expect(body.pairs[1]).toEqual({
      chain: 'base',
      dex: 'uniswap',
      baseToken: 'WETH',
      quoteToken: 'USDC',
      priceUsd: '3012.45',
      volume24h: 18_250_000.5,
      liquidity: 24_600_000.12,
      pairAddress: `0x${'1'.padStart(40, '0')}`,
    })
  })

  test('behavior: up to 30 addresses at once, in one upstream call; an unknown token has no pairs', async () => {
    const api = setup()
    const body = await ok(await api.get(`/free/dex/tokens?address=${weth},${usdc}`))
    expect(stand.last().url.pathname).toBe(`/api/latest/dex/tokens/${weth},${usdc}`)
    expect(body.pairCount).toBe(24)
    expect(await ok(await api.get(`/free/dex/tokens/${usdc}`))).toEqual({
      source: 'dexscreener',
      token: usdc,
      pairCount: 0,
      pairs: [],
    })
  })

  test('error: more than 30 addresses is a 400 naming address', async () => {
    const api = setup()
    const many = Array.from({ length: 31 }, () => weth).join(',')
    expect((await refused(await api.get(`/free/dex/tokens/${many}`), 400)).field).toBe('address')
    expect(stand.seen).toHaveLength(0)
  })
})

describe('GET /free/dex/trending', () => {
  test('default: the 20 tokens boosted most recently; a boost has no symbol, so none is made up', async () => {
    const api = setup()
    const body = await ok(await api.get('/free/dex/trending'))
    expect(stand.last().url.pathname).toBe('/api/token-boosts/latest/v1')
    expect(body.trending).toHaveLength(20)
    expect(body.trending[0]).toEqual({
      chain: 'solana',
      tokenAddress: 'Token0Address1111111111111111111111',
      symbol: null,
      description: 'The first boosted token.',
      url: 'https://dexscreener.com/solana/token0',
      amount: 10,
      totalAmount: 10,
    })
  })
})

describe('the upstream', () => {
  test('error: a DexScreener error is a 502, a 429 a 503, an answer without pairs a 502; none charged', async () => {
    const api = setup()
    stand.state.answer = () => Response.json({ error: 'internal' }, { status: 500 })
    expect((await refused(await api.get('/free/dex/search?q=a'), 502)).code).toBe('upstream_failed')
    stand.state.answer = () => Response.json({ error: 'Too many requests' }, { status: 429 })
    expect((await refused(await api.get('/free/dex/search?q=b'), 503)).code).toBe('upstream_unavailable')
    stand.state.answer = () => Response.json({ schemaVersion: '1.0.0' })
    expect((await refused(await api.get('/free/dex/search?q=c'), 502)).code).toBe('upstream_failed')
    stand.state.answer = () => Response.json({ schemaVersion: '1.0.0', pairs: [{ chainId: 'base' }] })
    expect((await refused(await api.get('/free/dex/search?q=d'), 502)).code).toBe('upstream_failed')
    expect(api.settled).toEqual([])
  })

  test("behavior: past DexScreener's rate limit in this process, a 503 before any call is sent", async () => {
    const api = setup({ options: { rateLimit: { capacity: 2, refill: 2, intervalMs: 60_000, maxWaitMs: 0 } } })
    await ok(await api.get('/free/dex/search?q=one'))
    await ok(await api.get('/free/dex/search?q=two'))
    const body = await refused(await api.get('/free/dex/search?q=three'), 503)
    expect(body.code).toBe('upstream_unavailable')
    expect(stand.seen).toHaveLength(2)
    // Answers already read are still served from memory.
    await ok(await api.get('/free/dex/search?q=one'))
  })

  test('error: without the index, every route is a 503 that names what is missing', async () => {
    const api = moduleGateway(manifest, { ports: {} })
    const body = await refused(await api.get('/free/dex/trending'), 503)
    expect(body.detail).toContain('DEXSCREENER_URL')
  })
})

describe('per client', () => {
  test('behavior: past DEX_RATE_LIMIT_PER_MINUTE a client gets a 429 with Retry-After, sharing one bucket across /free/dex/*', async () => {
    const api = setup({ env: { DEX_RATE_LIMIT_PER_MINUTE: '2' } })
    await ok(await api.get('/free/dex/trending'))
    await ok(await api.get('/free/dex/search?q=x'))
    const response = await api.get('/free/dex/trending')
    expect(response.status).toBe(429)
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(stand.seen).toHaveLength(2)
  })
})

describe("on the gateway's defaults", () => {
  test("default: DexScreener's public API, keyless; booted against a stand-in, every route answers, free", async () => {
    expect(variables.find(({ name }) => name === 'DEXSCREENER_URL')?.default).toBe('https://api.dexscreener.com')
    expect(offMachine).toContain('DEXSCREENER_URL')
    stand.state.answer = dexscreenerShapes
    const gateway = await paidGateway({ env: { DEXSCREENER_URL: stand.url } })
    try {
      for (const path of [
        '/free/dex/search?q=WETH',
        `/free/dex/pairs/base/${pool}`,
        `/free/dex/tokens/${weth}`,
        '/free/dex/trending',
      ])
        expect({ path, status: (await gateway.fetch(`http://gateway.test${path}`)).status }).toEqual({
          path,
          status: 200,
        })
      expect(stand.seen).toHaveLength(4)
    } finally {
      await gateway.close()
    }
  })
})
