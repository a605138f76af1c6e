import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWalletClient, formatUnits } from 'viem'
import { aggregatorV3Abi, priceFeeds } from '../../adapters/chain/priceFeeds.js'
import { eip1193 } from '../../adapters/rpc/eip1193.js'
import type { PriceFeeds } from '../../core/PriceFeeds.js'
import * as Uniswap from '../../core/Uniswap.js'
import * as Service from '../../modules/prices/service.js'
import { feedAbi, feedSetter } from '../support/feeds.js'
import { paidGateway } from '../support/paid.js'
import { baseQuoter, devnetQuote } from '../support/quoter.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
let set: ReturnType<typeof feedSetter>
const nowS = () => Math.floor(Date.now() / 1000)

/** The devnet's feeds as the gateway opens them, with a counter of reads. */
async function counted(): Promise<{ feeds: PriceFeeds; reads: () => number }> {
  const opened = await priceFeeds({
    client: gateway.devnet.publicClient,
    chainId: gateway.devnet.chainId,
    feeds: ['USDC', 'ETH', 'SOL'].map((symbol) => ({
      symbol,
      description: `${symbol} / USD`,
      address: gateway.devnet.priceFeeds[symbol]!,
      heartbeatS: 3_600,
    })),
  })
  let reads = 0
  return {
    feeds: {
      ...opened,
      read: () => {
        reads++
        return opened.read()
      },
    },
    reads: () => reads,
  }
}

beforeAll(async () => {
  gateway = await paidGateway()
  set = feedSetter(gateway)
  // Before the gateway's first read, which it then serves for 60 s.
  await set('ETH', '3150.25')
  await set('SOL', '142.5', nowS() - 2 * 86_400)
  await set('USDC', '-1')
})
afterAll(async () => {
  await gateway.close()
})

type Body = {
  currency: string
  prices: Record<string, Record<string, unknown> & { source: Record<string, unknown> }>
  cached: boolean
  age: number
}

describe('GET /free/prices', () => {
  test('default: USDC, ETH and SOL, free; the set ETH price as a decimal string with its feed, update time and age', async () => {
    const response = await gateway.fetch('http://gateway.test/free/prices')
    expect(response.status).toBe(200)
    const body = (await response.json()) as Body
    expect(body.currency).toBe('USD')
    expect(Object.keys(body.prices)).toEqual(['USDC', 'ETH', 'SOL'])
    const eth = body.prices.ETH!
    expect(eth.available).toBe(true)
    // The original gateway's clients read `usd` as a number; the feed's exact decimal is beside it.
    expect(eth.usd).toBe(3150.25)
    expect(eth.priceUSD).toBe(3150.25)
    expect(eth.usdDecimal).toBe('3150.25')
    expect(eth.source.feed).toBe(gateway.devnet.priceFeeds.ETH)
    expect(eth.source.description).toBe('ETH / USD')
    expect(eth.source.roundId).toBe('2')
    expect(typeof eth.updatedAt).toBe('string')
    expect(Math.abs(Date.parse(eth.updatedAt as string) / 1000 - nowS())).toBeLessThan(60)
    expect(eth.ageSeconds).toBeGreaterThanOrEqual(0)
    expect(eth.ageSeconds).toBeLessThan(60)
  })

  test('behavior: an answer read again from memory says so, with the age of the reading', async () => {
    const first = (await (await gateway.fetch('http://gateway.test/free/prices')).json()) as Body
    const again = (await (await gateway.fetch('http://gateway.test/free/prices')).json()) as Body
    // The module's first reading was taken by the test above; every answer within 60 s is from memory.
    expect(first.cached).toBe(true)
    expect(again.cached).toBe(true)
    expect(again.age).toBeGreaterThanOrEqual(first.age)
    expect(again.age).toBeLessThan(60)
  })

  test('error: a round older than its heartbeat is refused as stale for that token only', async () => {
    const body = (await (await gateway.fetch('http://gateway.test/free/prices')).json()) as Body
    expect(body.prices.SOL).toMatchObject({ token: 'SOL', available: false, reason: 'stale' })
    expect(body.prices.SOL!.usd).toBeNull()
    expect(body.prices.ETH!.available).toBe(true)
  })

  test('error: a negative answer is refused', async () => {
    const body = (await (await gateway.fetch('http://gateway.test/free/prices')).json()) as Body
    expect(body.prices.USDC).toMatchObject({ token: 'USDC', available: false, reason: 'invalid_answer' })
    expect(body.prices.USDC!.source.feed).toBe(gateway.devnet.priceFeeds.USDC)
  })
})

describe('GET /api/v1/prices', () => {
  test('default: unpaid, 402', async () => {
    expect((await gateway.fetch('http://gateway.test/api/v1/prices?token=ETH')).status).toBe(402)
  })

  test('default: one token, charging exactly 0.002 USDC', async () => {
    const payer = gateway.account(3)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/prices?token=eth')
    expect(response.status).toBe(200)
    const body = (await response.json()) as Body
    expect(Object.keys(body.prices)).toEqual(['ETH'])
    expect(body.prices.ETH).toMatchObject({ usd: 3150.25, priceUSD: 3150.25, usdDecimal: '3150.25' })
    expect(before - (await gateway.balance(payer.address))).toBe(2_000n)
  })

  test('default: many tokens', async () => {
    const response = await gateway.paid(gateway.account(4), 'GET', '/api/v1/prices?tokens=SOL,ETH')
    expect(response.status).toBe(200)
    expect(Object.keys(((await response.json()) as Body).prices)).toEqual(['SOL', 'ETH'])
  })

  test('error: an unknown token is refused before payment', async () => {
    const payer = gateway.account(5)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/prices?tokens=ETH,DOGE')
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('DOGE')
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test.each([
    ['/api/v1/prices?tokens=ETH,DOGE', 'tokens'],
    ['/api/v1/prices?token=DOGE', 'token'],
    ['/api/v1/oracle/prices?tokens=DOGE', 'tokens'],
  ])('error: %p is a 400 naming %p before any 402', async (path, field) => {
    const response = await gateway.fetch(`http://gateway.test${path}`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { field: string }).field).toBe(field)
  })
})

describe('GET /api/v1/oracle/prices', () => {
  test('default: every token without `tokens`, charging exactly 0.008 USDC', async () => {
    const payer = gateway.account(6)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/oracle/prices')
    expect(response.status).toBe(200)
    const body = (await response.json()) as Body
    // The original gateway's tokens (ETH once), then the feeds' others.
    expect(Object.keys(body.prices)).toEqual([
      'ETH',
      'cbBTC',
      'USDC',
      'USDT',
      'DAI',
      'EURC',
      'USDbC',
      'AERO',
      'DEGEN',
      'BRETT',
      'TOSHI',
      'SOL',
    ])
    // The feeds were read by an earlier call; the pools are read for the first time.
    expect(body.cached).toBe(false)
    expect(typeof body.age).toBe('number')
    expect(before - (await gateway.balance(payer.address))).toBe(8_000n)
  })

  test('default: only the given tokens', async () => {
    const response = await gateway.paid(gateway.account(6), 'GET', '/api/v1/oracle/prices?tokens=ETH')
    expect(Object.keys(((await response.json()) as Body).prices)).toEqual(['ETH'])
  })
})

describe("GET /api/v1/oracle/prices as the original gateway's clients call it", () => {
  test('behavior: its symbols and addresses; a fed token priced with its fields, one not on this chain said so, and meta', async () => {
    const response = await gateway.paid(
      gateway.account(6),
      'GET',
      '/api/v1/oracle/prices?tokens=ETH,cbbtc,0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    )
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(Object.keys(body.prices)).toEqual(['ETH', 'cbBTC', 'USDC'])
    expect(body.prices.ETH).toMatchObject({
      symbol: 'ETH',
      name: 'Ether',
      address: gateway.devnet.tokens.WETH!.address,
      decimals: 18,
      category: 'major',
      available: true,
      feeTier: null,
      confidence: 'high',
    })
    expect(body.prices.ETH.priceUSD).toBe(Number(body.prices.ETH.usdDecimal))
    expect(body.prices.ETH.source.type).toBe('chainlink-aggregator-v3')
    // USDC is priced by its feed (an earlier test left that feed's answer refused: then it says why).
    expect(body.prices.USDC).toMatchObject({
      symbol: 'USDC',
      category: 'stablecoin',
      address: gateway.devnet.tokens.USDC!.address,
      source: { description: 'USDC / USD' },
    })
    const priced = Object.values(body.prices).filter((price: any) => price.available).length
    // The devnet has no cbBTC: said so, never priced from nothing.
    expect(body.prices.cbBTC).toMatchObject({
      symbol: 'cbBTC',
      name: 'Coinbase Wrapped BTC',
      category: 'major',
      address: null,
      available: false,
      usd: null,
      priceUSD: null,
      reason: 'not_deployed',
    })
    expect(priced).toBeGreaterThanOrEqual(1)
    expect(body.meta).toEqual({
      tokenCount: priced,
      quoteCurrency: 'USD',
      source: 'chainlink-aggregator-v3',
      chain: 'Base',
      chainId: gateway.devnet.chainId,
      tokenList: { name: 'Uniswap Labs Default', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) },
    })
  })

  test("behavior: category picks the original tokens of that category, the chain's priced from its pools", async () => {
    const response = await gateway.paid(gateway.account(6), 'GET', '/api/v1/oracle/prices?category=stablecoin')
    const body = (await response.json()) as any
    expect(Object.keys(body.prices)).toEqual(['USDC', 'USDT', 'DAI', 'EURC', 'USDbC'])
    // USDT and DAI have pools; EURC has none; USDbC is not on the devnet.
    expect(body.prices.USDT).toMatchObject({ available: true, source: { type: 'uniswap-v3-pool' } })
    expect(body.prices.DAI).toMatchObject({ available: true, source: { type: 'uniswap-v3-pool' } })
    expect(body.prices.EURC).toMatchObject({ available: false, reason: 'no_pool', priceUSD: null, confidence: null })
    expect(body.prices.USDbC).toMatchObject({ available: false, reason: 'not_deployed' })
    expect(body.meta.tokenCount).toBe(2 + (body.prices.USDC.available ? 1 : 0))
    expect(body.meta.source).toBe('chainlink-aggregator-v3+uniswap-v3-onchain')
  })

  test.each([
    ['category=bluechip', 'category'],
    ['tokens=ETH,DOGE', 'tokens'],
  ])('error: %p is a 400 naming %p before any 402', async (query, field) => {
    const response = await gateway.fetch(`http://gateway.test/api/v1/oracle/prices?${query}`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { field: string }).field).toBe(field)
  })
})

describe('prices from Uniswap v3 pools', () => {
  const quoterSays = (tokenIn: string, tokenOut: string, amountIn: bigint, fee: number) =>
    devnetQuote(gateway.devnet, { tokenIn, tokenOut, amountIn, fee })

  /** The devnet's node as the gateway reads it, counting the `eth_call`s sent. */
  function counting() {
    let calls = 0
    const { devnet } = gateway
    const chain = eip1193({
      name: 'base',
      chainId: devnet.chainId,
      request: (method, params) => {
        if (method === 'eth_call') calls++
        return devnet.request(method, params)
      },
    })
    return { chain, calls: () => calls }
  }

  test("default: a devnet token from its real pool: 1,000 USDT into USDC on the 0.01% pool, QuoterV2's answer over 1,000", async () => {
    const response = await gateway.paid(gateway.account(8), 'GET', '/api/v1/oracle/prices?tokens=usdt')
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    const out = await quoterSays('USDT', 'USDC', 1_000_000_000n, 100)
    const usdt = body.prices.USDT
    expect(usdt).toMatchObject({
      symbol: 'USDT',
      name: 'Tether USD',
      address: gateway.devnet.tokens.USDT!.address,
      category: 'stablecoin',
      available: true,
      // USD per USDT: out (6 decimals) over 1,000.
      usdDecimal: formatUnits(out, 9),
      feeTier: 100,
      source: {
        type: 'uniswap-v3-pool',
        chainId: gateway.devnet.chainId,
        quoter: gateway.devnet.uniswap.quoterV2,
        route: 'USDT > USDC',
        pools: [
          {
            address: Uniswap.poolAddress({
              factory: gateway.devnet.uniswap.factory,
              tokenA: gateway.devnet.tokens.USDT!.address,
              tokenB: gateway.devnet.tokens.USDC!.address,
              fee: 100,
            }),
            fee: 100,
            amountIn: '1000000000',
            amountOut: out.toString(),
          },
        ],
      },
    })
    expect(usdt.priceUSD).toBe(Number(usdt.usdDecimal))
    expect(usdt.confidence).toBe(Math.abs(usdt.priceUSD - 1) < 0.005 ? 'pegged' : 'depeg-warning')
    // Dated by the block read (the devnet runs an eth_call at the clock's time, which may pass the block's by a second).
    const block = await gateway.devnet.publicClient.getBlock({ blockNumber: BigInt(usdt.source.blockNumber) })
    expect(Math.abs(Date.parse(usdt.updatedAt) / 1000 - Number(block.timestamp))).toBeLessThan(60)
    expect(usdt.ageSeconds).toBeGreaterThanOrEqual(0)
  })

  test('behavior: through WETH when that quotes more than the thin direct pool: the WETH valued at its own quote', async () => {
    const body = (await (await gateway.paid(gateway.account(8), 'GET', '/api/v1/prices?token=dai')).json()) as any
    const dai = body.prices.DAI
    const thousand = 1_000n * 10n ** 18n
    const direct = ((await quoterSays('DAI', 'USDC', thousand, 3000)) * 10n ** 36n) / (thousand * 10n ** 6n)
    const toWeth = await quoterSays('DAI', 'WETH', thousand, 3000)
    const wethToUsdc = await quoterSays('WETH', 'USDC', 10n ** 18n, 500)
    const viaWeth = (toWeth * wethToUsdc * 10n ** 36n) / (thousand * 10n ** 18n * 10n ** 6n)
    expect(viaWeth).toBeGreaterThan(direct)
    expect(dai).toMatchObject({
      symbol: 'DAI',
      address: gateway.devnet.tokens.DAI!.address,
      decimals: 18,
      available: true,
      usdDecimal: formatUnits(viaWeth, 18),
      source: {
        route: 'DAI > WETH > USDC',
        pools: [
          { fee: 3000, amountIn: thousand.toString(), amountOut: toWeth.toString() },
          { fee: 500, amountIn: (10n ** 18n).toString(), amountOut: wethToUsdc.toString() },
        ],
      },
    })
    expect(body).toMatchObject({ network: 'base', chainId: gateway.devnet.chainId, tokenCount: 1 })
  })

  test('error: a token without a pool is unavailable with the reason, never a made-up price', async () => {
    const body = (await (await gateway.paid(gateway.account(8), 'GET', '/api/v1/prices?tokens=EURC')).json()) as any
    expect(body.prices.EURC).toMatchObject({
      token: 'EURC',
      available: false,
      usd: null,
      priceUSD: null,
      reason: 'no_pool',
      source: { type: 'uniswap-v3-pool', quoter: gateway.devnet.uniswap.quoterV2 },
    })
  })

  test('behavior: every pool-priced token in one eth_call, served again for 60 s; a feed-priced ask reads no pool', async () => {
    const { feeds } = await counted()
    const { chain, calls } = counting()
    let now = Date.now()
    const deps = Service.from({ feeds, chain, now: () => now })
    expect(deps.pools!.tokens.map((token) => token.symbol)).toEqual(['USDT', 'EURC', 'DAI'])
    await Service.tokenPrices(deps, Service.select(deps, { tokens: 'ETH' }))
    expect(calls()).toBe(0)
    const first = await Service.oraclePrices(deps, Service.select(deps, { tokens: 'USDT,EURC,DAI' }))
    expect(calls()).toBe(1)
    expect(first.cached).toBe(false)
    now += 59_000
    const again = await Service.oraclePrices(deps, Service.select(deps, { tokens: 'USDT' }))
    expect(calls()).toBe(1)
    expect(again).toMatchObject({ cached: true, age: 59 })
    now += 1_000
    await Service.oraclePrices(deps, Service.select(deps, { tokens: 'DAI' }))
    expect(calls()).toBe(2)
  })

  test('behavior: without a chain, the tokens no feed prices say there is no price source', async () => {
    const { feeds } = await counted()
    const deps = Service.from({ feeds })
    const body = await Service.oraclePrices(deps, Service.select(deps, { tokens: 'USDT,ETH' }))
    expect(body.prices.USDT).toMatchObject({ available: false, reason: 'no_price_source' })
    expect(body.prices.ETH).toMatchObject({ available: true })
  })
})

describe("prices on Base: Uniswap's default token list, priced in bounded batches", () => {
  const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
  const weth = '0x4200000000000000000000000000000000000006'
  const cbBTC = '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf'
  const toshi = '0xAC1Bd2486aAf3B5C0fc3Fd868558b082a531B2B4'
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
  /** Base's feeds as the port gives them, answering ETH at 3,000 USD (no chain is read for them). */
  const feeds: PriceFeeds = {
    chainId: 8453,
    feeds: ['USDC', 'ETH', 'SOL'].map((symbol) => ({
      symbol,
      description: `${symbol} / USD`,
      address: '0x0000000000000000000000000000000000000001',
      heartbeatS: 86_400,
    })),
    read: async () =>
      feeds.feeds.map((feed) => ({
        feed,
        ok: true,
        roundId: 1n,
        answer: feed.symbol === 'ETH' ? 300_000_000_000n : 100_000_000n,
        decimals: 8,
        updatedAt: nowS(),
      })),
  }

  test('default: every listed token no feed prices, 20 per eth_call; cbBTC direct, TOSHI through WETH, BRETT without a pool', async () => {
    // A stand-in Base node: cbBTC/USDC 0.05% at 100,000 USDC, TOSHI/WETH 1% at 10^-7 WETH, WETH/USDC 0.05% at 3,000.
    const { endpoint, asked } = baseQuoter({
      quote: ({ tokens, fees, amountIn }) => {
        const [tokenIn, tokenOut] = tokens as [string, string]
        if (same(tokenIn, cbBTC) && same(tokenOut, usdc) && fees[0] === 500) return (amountIn * 100_000n) / 100n
        if (same(tokenIn, toshi) && same(tokenOut, weth) && fees[0] === 10000) return amountIn / 10_000_000n
        if (same(tokenIn, weth) && same(tokenOut, usdc) && fees[0] === 500) return (amountIn * 3_000n) / 10n ** 12n
        return undefined
      },
    })
    const deps = Service.from({ feeds, chain: endpoint, now: () => 1_767_225_612_000 })
    const pooled = deps.pools!.tokens
    expect(pooled.length).toBeGreaterThanOrEqual(100)
    const body = await Service.oraclePrices(deps, Service.select(deps, {}))
    // Bounded: one aggregate3 per 20 tokens, each of 2 block reads, 4 WETH quotes and 8 quotes per token at most.
    expect(asked).toHaveLength(Math.ceil(pooled.length / Uniswap.pricedPerCall))
    for (const batch of asked) expect(batch.length).toBeLessThanOrEqual(4 + 8 * Uniswap.pricedPerCall)
    const prices = body.prices as Record<string, any>
    expect(Object.keys(prices).length).toBeGreaterThanOrEqual(100)
    expect(prices.cbBTC).toMatchObject({
      address: cbBTC,
      decimals: 8,
      available: true,
      usdDecimal: '100000',
      feeTier: 500,
      confidence: 'high',
      source: { type: 'uniswap-v3-pool', chainId: 8453, route: 'cbBTC > USDC', blockNumber: '30000000' },
      updatedAt: '2026-01-01T00:00:00.000Z',
      ageSeconds: 12,
    })
    // 10^-7 WETH at 3,000 USD: 0.0003 USD, exactly.
    expect(prices.TOSHI).toMatchObject({
      available: true,
      usdDecimal: '0.0003',
      feeTier: 10000,
      confidence: 'medium',
      source: { route: 'TOSHI > WETH > USDC' },
    })
    expect(prices.BRETT).toMatchObject({ available: false, reason: 'no_pool', address: expect.any(String) })
    // A token of the list beyond the original's, named as the list names it, with no category of the original's.
    expect(prices.cbETH).toMatchObject({ name: 'Coinbase Wrapped Staked ETH', category: null, available: false })
    // ETH, USDC and SOL by their feeds, cbBTC and TOSHI by pools.
    expect(body.meta).toMatchObject({
      tokenCount: 5,
      chainId: 8453,
      source: 'chainlink-aggregator-v3+uniswap-v3-onchain',
    })
  })
})

describe('Service.prices', () => {
  test('behavior: one read serves 60 s (injected clock); the next read sees the new answer', async () => {
    const { feeds, reads } = await counted()
    let now = Date.now()
    const deps = Service.from({ feeds, now: () => now })
    const first = await Service.prices(deps, ['ETH'])
    await set('ETH', '3200.5')
    now += 59_000
    const cached = await Service.prices(deps, ['ETH'])
    expect(reads()).toBe(1)
    expect(first.prices.ETH).toMatchObject({ usdDecimal: '3150.25' })
    expect(first).toMatchObject({ cached: false, age: 0 })
    expect(cached.prices.ETH).toMatchObject({ usdDecimal: '3150.25' })
    expect(cached).toMatchObject({ cached: true, age: 59 })
    now += 1_000
    const fresh = await Service.prices(deps, ['ETH'])
    expect(reads()).toBe(2)
    expect(fresh.prices.ETH).toMatchObject({ available: true, usd: 3200.5, usdDecimal: '3200.5' })
    expect(fresh).toMatchObject({ cached: false, age: 0 })
    // The callers of one second share one judgement of the feeds; the next second is judged again.
    expect((await Service.prices(deps, ['ETH'])).prices).toBe(fresh.prices)
    expect(Object.keys((await Service.prices(deps, ['SOL'])).prices)).toEqual(['SOL'])
    const { ageSeconds } = fresh.prices.ETH as { ageSeconds: number }
    now += 1_000
    const later = await Service.prices(deps, ['ETH'])
    expect(later.prices).not.toBe(fresh.prices)
    expect(later.prices.ETH).toMatchObject({ ageSeconds: ageSeconds + 1 })
    expect(later).toMatchObject({ cached: true, age: 1 })
    // Concurrent calls share one read.
    now += 60_000
    await Promise.all([Service.prices(deps, ['ETH']), Service.prices(deps, ['SOL'])])
    expect(reads()).toBe(3)
  })

  test('behavior: the round turns stale once its age passes the heartbeat', async () => {
    const { feeds } = await counted()
    await set('ETH', '3300')
    const deps = Service.from({ feeds, now: () => (nowS() + 3_601 + 5) * 1000 })
    const answer = await Service.prices(deps, ['ETH'])
    expect(answer.prices.ETH).toMatchObject({ available: false, reason: 'stale' })
    const { feeds: same } = await counted()
    expect((await Service.prices(Service.from({ feeds: same }), ['ETH'])).prices.ETH).toMatchObject({
      available: true,
      usdDecimal: '3300',
    })
  })

  test('error: a feed answering another pair refuses the start', async () => {
    await expect(
      priceFeeds({
        client: gateway.devnet.publicClient,
        chainId: gateway.devnet.chainId,
        feeds: [{ symbol: 'ETH', description: 'ETH / USD', address: gateway.devnet.priceFeeds.SOL!, heartbeatS: 60 }],
      }),
    ).rejects.toThrow('is "SOL / USD", not "ETH / USD"')
  })

  test('error: the feeds are the deployer’s: another account cannot set an answer', async () => {
    const other = createWalletClient({
      account: gateway.account(7),
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    await expect(
      other.writeContract({
        address: gateway.devnet.priceFeeds.ETH!,
        abi: feedAbi,
        functionName: 'setAnswer',
        args: [1n],
      }),
    ).rejects.toThrow()
    const [, answer] = await gateway.devnet.publicClient.readContract({
      address: gateway.devnet.priceFeeds.ETH!,
      abi: aggregatorV3Abi,
      functionName: 'latestRoundData',
    })
    expect(answer).toBe(330_000_000_000n)
  })
})
