import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWalletClient } from 'viem'
import { aggregatorV3Abi, priceFeeds } from '../../adapters/chain/priceFeeds.js'
import type { PriceFeeds } from '../../core/PriceFeeds.js'
import * as Service from '../../modules/prices/service.js'
import { feedAbi, feedSetter } from '../support/feeds.js'
import { paidGateway } from '../support/paid.js'

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
    expect(body.cached).toBe(true)
    expect(typeof body.age).toBe('number')
    expect(before - (await gateway.balance(payer.address))).toBe(8_000n)
  })

  test('default: only the given tokens', async () => {
    const response = await gateway.paid(gateway.account(6), 'GET', '/api/v1/oracle/prices?tokens=ETH')
    expect(Object.keys(((await response.json()) as Body).prices)).toEqual(['ETH'])
  })
})

describe("GET /api/v1/oracle/prices as the original gateway's clients call it", () => {
  test('behavior: its symbols and addresses; a fed token priced with its fields, another said to be unpriced, and meta', async () => {
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
      address: '0x4200000000000000000000000000000000000006',
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
      source: { description: 'USDC / USD' },
    })
    const priced = Object.values(body.prices).filter((price: any) => price.available).length
    expect(body.prices.cbBTC).toMatchObject({
      symbol: 'cbBTC',
      category: 'major',
      available: false,
      usd: null,
      priceUSD: null,
      reason: 'no_price_source',
    })
    expect(priced).toBeGreaterThanOrEqual(1)
    expect(body.meta).toEqual({
      tokenCount: priced,
      quoteCurrency: 'USD',
      source: 'chainlink-aggregator-v3',
      chain: 'Base',
      chainId: gateway.devnet.chainId,
    })
  })

  test('behavior: category picks the original tokens of that category', async () => {
    const response = await gateway.paid(gateway.account(6), 'GET', '/api/v1/oracle/prices?category=stablecoin')
    const body = (await response.json()) as any
    expect(Object.keys(body.prices)).toEqual(['USDC', 'USDT', 'DAI', 'EURC', 'USDbC'])
    expect(body.meta.tokenCount).toBe(body.prices.USDC.available ? 1 : 0)
    expect(body.prices.USDT).toMatchObject({ available: false, reason: 'no_price_source' })
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
