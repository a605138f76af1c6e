import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { formatUnits } from 'viem'
import { priceFeeds } from '../../adapters/chain/priceFeeds.js'
import * as Service from '../../modules/fx/service.js'
import { feedSetter } from '../support/feeds.js'
import { paidGateway } from '../support/paid.js'
import { devnetQuote } from '../support/quoter.js'
import { vendorServer } from '../support/vendor.js'

/** What the Frankfurter stand-in publishes, by base: test data in Frankfurter's shape. */
const published: Record<string, Record<string, number>> = {
  USD: { EUR: 0.8, GBP: 0.7806, JPY: 156.5, CHF: 0.8, CAD: 1.4, AUD: 1.5385 },
}

const reference = vendorServer()
let gateway: Awaited<ReturnType<typeof paidGateway>>
const nowS = () => Math.floor(Date.now() / 1000)

beforeAll(async () => {
  // A Frankfurter stand-in: the published rates of a base it has, and a server error (it is down) for any other.
  reference.state.answer = ({ url }) => {
    const base = url.searchParams.get('base')!
    const rates = published[base]
    if (!rates) return Response.json({ message: 'internal error' }, { status: 503 })
    const symbols = url.searchParams.get('symbols')!.split(',')
    return Response.json({
      amount: 1,
      base,
      date: '2026-11-20',
      rates: Object.fromEntries(symbols.filter((symbol) => symbol in rates).map((symbol) => [symbol, rates[symbol]])),
    })
  }
  gateway = await paidGateway({ env: { FX_REFERENCE_URL: reference.url } })
  const set = feedSetter(gateway)
  // Before the gateway's first read, which it then serves for 60 s.
  await set('EUR', '1.25')
  await set('GBP', '1.28')
  await set('JPY', '0.0064')
  await set('AUD', '0.65')
  await set('CHF', '1.25', nowS() - 2 * 86_400)
  await set('CAD', '-1')
})
afterAll(async () => {
  await gateway.close()
  reference.stop()
})

type Body = {
  base: string
  rates: Record<string, Record<string, any>>
  rateDecimals: number
  secondOpinion: Record<string, unknown>
  cached: boolean
  age: number
}

async function fx(query = '', account = 3) {
  const response = await gateway.paid(gateway.account(account), 'GET', `/api/v1/oracle/fx${query}`)
  expect(response.status).toBe(200)
  return (await response.json()) as Body
}

describe('GET /api/v1/oracle/fx', () => {
  test('default: unpaid, 402', async () => {
    expect((await gateway.fetch('http://gateway.test/api/v1/oracle/fx')).status).toBe(402)
  })

  test('behavior: against USD, exact quotients of the feeds, each with its feed and the second opinion, for 0.008 USDC', async () => {
    const payer = gateway.account(3)
    const before = await gateway.balance(payer.address)
    const body = await fx('?base=USD')
    expect(before - (await gateway.balance(payer.address))).toBe(8_000n)
    expect(body.base).toBe('USD')
    expect(body.rateDecimals).toBe(10)
    expect(Object.keys(body.rates)).toEqual(['EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD'])
    expect(body.rates.EUR).toMatchObject({
      available: true,
      rate: '0.8',
      secondOpinion: { rate: '0.8', deviationBps: '0' },
    })
    expect(body.rates.GBP).toMatchObject({ rate: '0.78125', secondOpinion: { rate: '0.7806', deviationBps: '-8.32' } })
    expect(body.rates.JPY).toMatchObject({ rate: '156.25', secondOpinion: { rate: '156.5', deviationBps: '16' } })
    // 1 / 0.65, truncated to 10 places; (1.5385 - 1.5384615384) / 1.5384615384 = 0.25 bp.
    expect(body.rates.AUD).toMatchObject({ rate: '1.5384615384', secondOpinion: { deviationBps: '0.25' } })
    const [source] = body.rates.EUR!.sources
    expect(body.rates.EUR!.sources).toHaveLength(1)
    expect(source).toMatchObject({ feed: gateway.devnet.priceFeeds.EUR, description: 'EUR / USD', usd: '1.25' })
    expect(Math.abs(Date.parse(source.updatedAt) / 1000 - nowS())).toBeLessThan(60)
    expect(source.ageSeconds).toBeGreaterThanOrEqual(0)
    expect(body.secondOpinion).toEqual({
      available: true,
      source: 'Frankfurter (ECB reference rates)',
      date: '2026-11-20',
    })
    expect(reference.last().url.searchParams.get('symbols')).toBe('EUR,GBP,JPY,CHF,CAD,AUD')
  })

  test('error: a stale or non-positive feed makes its currency unavailable with the reason, not the answer', async () => {
    const body = await fx('?base=usd', 4)
    expect(body.rates.CHF).toMatchObject({ currency: 'CHF', available: false, reason: 'stale' })
    expect(body.rates.CHF!.rate).toBeUndefined()
    expect(body.rates.CAD).toMatchObject({ currency: 'CAD', available: false, reason: 'invalid_answer' })
    expect(body.rates.EUR!.available).toBe(true)
  })

  test('behavior: another base (any case) divides by its feed; the second opinion down is said, never a failure', async () => {
    const body = await fx('?base=eur', 4)
    expect(body.base).toBe('EUR')
    expect(Object.keys(body.rates)).toEqual(['USD', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD'])
    expect(body.rates.USD).toMatchObject({ rate: '1.25', secondOpinion: null })
    expect(body.rates.JPY).toMatchObject({ rate: '195.3125' })
    expect(body.rates.JPY!.sources.map((source: { description: string }) => source.description)).toEqual([
      'JPY / USD',
      'EUR / USD',
    ])
    expect(body.rates.GBP).toMatchObject({ rate: '0.9765625' })
    expect(body.secondOpinion).toMatchObject({ available: false, source: 'Frankfurter (ECB reference rates)' })
    expect(typeof body.secondOpinion.message).toBe('string')
  })

  test('error: a stale base makes every rate unavailable, each with its own feed’s reason first', async () => {
    const body = await fx('?base=CHF', 5)
    const { CAD, ...others } = body.rates
    expect(CAD).toMatchObject({ available: false, reason: 'invalid_answer' })
    for (const rate of Object.values(others)) expect(rate).toMatchObject({ available: false, reason: 'stale' })
    expect(body.rates.EUR!.message).toContain('CHF / USD')
  })

  test('error: an unknown base is refused before payment, naming `base`', async () => {
    const payer = gateway.account(6)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/oracle/fx?base=XYZ')
    expect(response.status).toBe(400)
    const body = (await response.json()) as { field: string; detail: string }
    expect(body.field).toBe('base')
    expect(body.detail).toContain('XYZ')
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('error: an unknown three-letter base is 400 naming `base`, before any 402', async () => {
    const response = await gateway.fetch('http://gateway.test/api/v1/oracle/fx?base=XYZ')
    expect(response.status).toBe(400)
    expect(((await response.json()) as { field: string }).field).toBe('base')
  })

  test('error: a base that is neither a currency code nor a stablecoin symbol is 400 naming `base`, before any 402', async () => {
    for (const base of ['EURO', 'E1', 'USDCOIN']) {
      const response = await gateway.fetch(`http://gateway.test/api/v1/oracle/fx?base=${base}`)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { field: string }).field).toBe('base')
    }
  })
})

describe("GET /api/v1/oracle/fx: the original gateway's stablecoin bases", () => {
  const quoterSays = (tokenIn: string, tokenOut: string, amountIn: bigint, fee: number) =>
    devnetQuote(gateway.devnet, { tokenIn, tokenOut, amountIn, fee })

  test("default: without base, USDC as the original's clients call it, each rate from its pool, for 0.008 USDC", async () => {
    const payer = gateway.account(7)
    const before = await gateway.balance(payer.address)
    const body = (await fx('', 7)) as any
    expect(before - (await gateway.balance(payer.address))).toBe(8_000n)
    expect(body.base).toBe('USDC')
    expect(Object.keys(body.rates)).toEqual(['USDT', 'DAI', 'EURC', 'USDbC'])
    // USDT: the deep 0.01% pool; the rate is what QuoterV2 gives for 1,000 USDC, over 1,000.
    const usdtOut = await quoterSays('USDC', 'USDT', 1_000_000_000n, 100)
    expect(body.rates.USDT).toMatchObject({
      symbol: 'USDT',
      name: 'Tether USD',
      address: gateway.devnet.tokens.USDT!.address,
      available: true,
      rateDecimal: formatUnits(usdtOut * 10n ** 10n, 6 + 3 + 10),
      feeTier: 100,
      status: 'stable',
      quote: { amountIn: '1000', amountInRaw: '1000000000', amountOutRaw: usdtOut.toString() },
    })
    expect(body.rates.USDT.rate).toBe(Number(Number(formatUnits(usdtOut, 9)).toFixed(6)))
    expect(typeof body.rates.USDT.inverseRate).toBe('number')
    expect(body.rates.USDT.deviation).toMatch(/^0\.\d{3}%$/)
    // DAI: only a $1,000 pool, so 1,000 USDC moves its price far: the answer says so rather than hiding it.
    const daiOut = await quoterSays('USDC', 'DAI', 1_000_000_000n, 3000)
    expect(body.rates.DAI).toMatchObject({ available: true, feeTier: 3000, quote: { amountOutRaw: daiOut.toString() } })
    expect(body.rates.DAI.status).toBe(daiOut < 950n * 10n ** 18n ? 'depeg-warning' : 'minor-deviation')
    // No pool, no contract: unavailable with the reason, never a made-up rate.
    expect(body.rates.EURC).toMatchObject({ available: false, reason: 'no_pool', rate: null, status: null })
    expect(body.rates.USDbC).toMatchObject({ available: false, reason: 'not_deployed', address: null, rate: null })
    expect(body.meta).toMatchObject({ pairCount: 2, source: 'uniswap-v3-onchain', chainId: gateway.devnet.chainId })
  })

  test('behavior: another stablecoin base, any case, quotes from its side of the pools', async () => {
    const body = (await fx('?base=usdt', 8)) as any
    expect(body.base).toBe('USDT')
    const out = await quoterSays('USDT', 'USDC', 1_000_000_000n, 100)
    expect(body.rates.USDC).toMatchObject({ available: true, feeTier: 100, quote: { amountOutRaw: out.toString() } })
    expect(body.rates.DAI).toMatchObject({ available: false, reason: 'no_pool' })
  })

  test('behavior: OpenAPI documents the stablecoin bases and the USDC default', async () => {
    const openapi = (await (await gateway.fetch('http://gateway.test/openapi.json')).json()) as any
    const base = openapi.paths['/api/v1/oracle/fx'].get.parameters.find((parameter: any) => parameter.name === 'base')
    expect(base.description ?? base.schema.description).toContain('USDC, USDT, DAI, EURC, USDbC')
    expect(base.description ?? base.schema.description).toContain('@default USDC')
  })

  test('error: a stablecoin without a contract on this chain is 400 naming `base`, before any 402', async () => {
    const response = await gateway.fetch('http://gateway.test/api/v1/oracle/fx?base=USDbC')
    expect(response.status).toBe(400)
    const body = (await response.json()) as { field: string; detail: string }
    expect(body.field).toBe('base')
    expect(body.detail).toContain('USDbC has no contract on this chain')
  })
})

describe('Service.rates', () => {
  test('behavior: one read serves 60 s (injected clock) and the answer says so; without a reference source it says that', async () => {
    const feeds = await priceFeeds({
      client: gateway.devnet.publicClient,
      chainId: gateway.devnet.chainId,
      feeds: ['EUR', 'JPY'].map((symbol) => ({
        symbol,
        description: `${symbol} / USD`,
        address: gateway.devnet.priceFeeds[symbol]!,
        heartbeatS: 3_600,
      })),
    })
    let now = Date.now()
    const deps = Service.from({ feeds, now: () => now })
    const first = await Service.rates(deps, 'JPY')
    expect(first).toMatchObject({ cached: false, age: 0, rates: { EUR: { rate: '0.00512' }, USD: { rate: '0.0064' } } })
    expect(first.secondOpinion).toEqual({
      available: false,
      source: undefined,
      message: 'No reference-rate source is configured.',
    })
    now += 30_000
    expect(await Service.rates(deps, 'JPY')).toMatchObject({ cached: true, age: 30 })
    now += 30_000
    expect(await Service.rates(deps, 'JPY')).toMatchObject({ cached: false, age: 0 })
  })
})

describe('GET /free/convert through the feeds', () => {
  async function convert(query: string) {
    const response = await gateway.fetch(`http://gateway.test/free/convert?${query}`)
    return { status: response.status, body: (await response.json()) as Record<string, any> }
  }

  test('behavior: crypto to fiat, fiat to fiat, crypto to crypto and native units to USD, from the devnet feeds', async () => {
    const eth = await convert('amount=2&from=ETH&to=EUR')
    expect(eth.status).toBe(200)
    // 2 × 3000 USD / 1.25 USD per EUR.
    expect(eth.body).toMatchObject({ amount: '4800', from: 'ETH', to: 'EUR', exact: false })
    expect(eth.body.rates.ETH.usd).toBe('3000')
    expect(eth.body.rates.EUR.usd).toBe('1.25')
    expect(eth.body.rates.EUR.source).toContain('EUR / USD')
    expect(eth.body.rates.EUR.source).toContain(gateway.devnet.priceFeeds.EUR)
    expect((await convert('amount=1&from=USD&to=JPY')).body.amount).toBe('156.25')
    expect((await convert('amount=3&from=SOL&to=ETH')).body.amount).toBe('0.15')
    expect((await convert('amount=2&from=gwei&to=USD')).body.amount).toBe('0.000006')
  })

  test('error: an unknown symbol is 400 naming the parameter that named it', async () => {
    expect(await convert('amount=1&from=ETH&to=DOGE')).toMatchObject({ status: 400, body: { field: 'to' } })
    expect(await convert('amount=1&from=DOGE&to=ETH')).toMatchObject({ status: 400, body: { field: 'from' } })
  })

  test('error: a stale feed is 503 with the reason', async () => {
    const { status, body } = await convert('amount=1&from=CHF&to=USD')
    expect(status).toBe(503)
    expect(body.code).toBe('upstream_unavailable')
    expect(body.detail).toContain('heartbeat')
  })
})
