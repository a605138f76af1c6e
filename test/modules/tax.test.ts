import { afterAll, describe, expect, test } from 'bun:test'
import { coingecko } from '../../adapters/pricing/coingecko.js'
import { defillama } from '../../adapters/pricing/defillama.js'
import { memory } from '../../adapters/store/memory.js'
import type { HistoricalPrices } from '../../core/HistoricalPrice.js'
import { manifest } from '../../modules/tax/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'

// Tax in the real gateway with the stub facilitator; DefiLlama's coins API and CoinGecko as local servers speaking
// their documented shapes (the prices they hold are the test's own).

const llamaPrices = new Map<string, { price: number; timestamp: number }>()
const llama = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const match = new URL(request.url).pathname.match(/^\/prices\/historical\/(\d+)\/(.+)$/)
    if (!match) return new Response('not found', { status: 404 })
    const coin = decodeURIComponent(match[2]!)
    const known = llamaPrices.get(`${match[1]}/${coin}`)
    return Response.json({ coins: known ? { [coin]: { ...known, symbol: 'X', confidence: 0.99 } } : {} })
  },
})
const geckoKeys: string[] = []
const gecko = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const url = new URL(request.url)
    geckoKeys.push(request.headers.get('x-cg-pro-api-key') ?? '')
    if (url.pathname === '/coins/ethereum/history' && url.searchParams.get('date') === '15-03-2023')
      return Response.json({ id: 'ethereum', market_data: { current_price: { usd: 1650.25, eur: 1500 } } })
    return Response.json({ error: 'coin not found' }, { status: 404 })
  },
})
afterAll(() => {
  llama.stop(true)
  gecko.stop(true)
})

function api(prices: HistoricalPrices | undefined = defillama({ url: `http://127.0.0.1:${llama.port}`, retries: 0 })) {
  return moduleGateway(manifest, {
    ports: { store: memory(), historicalPrices: prices },
    env: { TAX_MAX_TRANSACTIONS: '5' },
    payer: payers.alice,
  })
}

const march = Date.UTC(2023, 2, 15, 12) / 1000
const transactions = [
  { kind: 'sell', asset: 'ETH', amount: '1.5', usdValue: '4500', time: '2023-06-01T00:00:00Z' },
  { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1000', feeUsd: '10', time: '2022-01-01T00:00:00Z' },
  { kind: 'buy', asset: 'ETH', amount: '1', time: '2023-03-15T12:00:00Z' },
  { kind: 'income', asset: 'SOL', amount: '2', price: '20', time: '2023-04-01T00:00:00Z' },
]

describe('POST /api/v1/tax/calculate and GET /api/v1/tax/report', () => {
  test('default: FIFO over sorted transactions, the missing price from DefiLlama recorded with its source', async () => {
    llamaPrices.set(`${march}/coingecko:ethereum`, { price: 1800.5, timestamp: march - 30 })
    const gateway = api()
    const body = await ok(await gateway.post('/api/v1/tax/calculate', { transactions }))
    expect(body.reportId).toMatch(/^tax_[0-9a-f]{32}$/)
    // Lot 1 (2022, basis 1010) whole, long-term; half of lot 2 (basis 900.25), short-term; proceeds 3000 + 1500.
    expect(body.summary).toMatchObject({
      method: 'fifo',
      transactions: 4,
      disposals: 1,
      proceeds: '4500',
      costBasis: '1910.25',
      gain: '2589.75',
      longTerm: { proceeds: '3000', costBasis: '1010', gain: '1990' },
      shortTerm: { proceeds: '1500', costBasis: '900.25', gain: '599.75' },
      income: '40',
      holdings: { ETH: { amount: '0.5', costBasis: '900.25' }, SOL: { amount: '2', costBasis: '40' } },
    })
    expect(body.prices).toEqual([
      {
        index: 2,
        asset: 'ETH',
        usd: '1800.5',
        source: 'defillama',
        priceId: 'coingecko:ethereum',
        at: new Date((march - 30) * 1000).toISOString(),
      },
    ])
    expect(gateway.settled[0]!.value).toBe(80_000n)

    const report = await ok(await gateway.get(`/api/v1/tax/report?reportId=${body.reportId}`))
    expect(report.total).toBe(2)
    expect(report.events.map((event: any) => [event.type, event.index])).toEqual([
      ['income', 3],
      ['disposal', 0],
    ])
    expect(report.events[1].lots).toEqual([
      {
        lot: 1,
        acquired: '2022-01-01T00:00:00.000Z',
        amount: '1',
        costBasis: '1010',
        proceeds: '3000',
        gain: '1990',
        term: 'long',
      },
      {
        lot: 2,
        acquired: '2023-03-15T12:00:00.000Z',
        amount: '0.5',
        costBasis: '900.25',
        proceeds: '1500',
        gain: '599.75',
        term: 'short',
      },
    ])
    expect(gateway.settled[1]!.value).toBe(50_000n)
  })

  test('behavior: with a CoinGecko key the price comes from CoinGecko, by day', async () => {
    const gateway = api(coingecko({ url: `http://127.0.0.1:${gecko.port}`, apiKey: 'gecko-key', retries: 0 }))
    const body = await ok(await gateway.post('/api/v1/tax/calculate', { transactions, method: 'hifo' }))
    expect(body.prices[0]).toMatchObject({ usd: '1650.25', source: 'coingecko', at: '2023-03-15T00:00:00.000Z' })
    expect(geckoKeys.at(-1)).toBe('gecko-key')
    // HIFO takes the dearer March lot (1650.25) whole first, then half of the 2022 lot (505).
    expect(body.summary).toMatchObject({ method: 'hifo', costBasis: '2155.25', gain: '2344.75' })
  })

  test('error: a price nobody has is named per transaction, nothing is charged, nothing assumed zero', async () => {
    const gateway = api()
    const problem = await refused(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [
          { kind: 'buy', asset: 'ETH', amount: '1', time: '2021-01-01T00:00:00Z' },
          { kind: 'buy', asset: 'OBSCURE', amount: '1', time: '2021-01-02T00:00:00Z' },
          // A transfer out needs no USD value, so none is looked up for it.
          { kind: 'transfer_out', asset: 'OBSCURE', amount: '1', time: '2021-01-03T00:00:00Z' },
        ],
      }),
      400,
    )
    expect(problem.missingPrices ?? problem.details?.missingPrices).toMatchObject([
      { index: 0, asset: 'ETH', reason: expect.stringContaining('DefiLlama') },
      { index: 1, asset: 'OBSCURE', reason: expect.stringContaining('no known price id') },
    ])
    expect(gateway.settled).toHaveLength(0)
  })

  test('error: a price source that cannot be reached is an upstream failure, not a missing price; nothing is charged', async () => {
    const gateway = api(defillama({ url: 'http://127.0.0.1:9', retries: 0 }))
    const problem = await refused(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [{ kind: 'buy', asset: 'ETH', amount: '1', time: '2021-01-01T00:00:00Z' }],
      }),
      502,
    )
    expect(problem.code).toBe('upstream_failed')
    expect(problem.detail).toContain('Prices are missing for 1 transaction')
    expect(gateway.settled).toHaveLength(0)
  })

  test('error: bad input is a 400 naming index and field, before any payment', async () => {
    const gateway = api()
    const unpaid = (body: unknown) =>
      gateway.fetch('/api/v1/tax/calculate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const buy = { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1', time: '2023-01-01T00:00:00Z' }
    const cases: [unknown, string][] = [
      [{ transactions: [buy, { ...buy, kind: 'stake' }] }, 'transactions.1.kind'],
      [{ transactions: [{ ...buy, amount: '-2' }] }, 'transactions.0.amount'],
      [
        { transactions: [buy, { ...buy, kind: 'sell', amount: '2', time: '2023-02-01T00:00:00Z' }] },
        'transactions.1.amount',
      ],
      [{ transactions: [buy, buy] }, 'transactions.1'],
      [
        { transactions: Array.from({ length: 6 }, (_, day) => ({ ...buy, time: `2023-01-0${day + 1}T00:00:00Z` })) },
        'transactions',
      ],
      [{ transactions: [buy], method: 'average' }, 'method'],
      [{}, 'transactions'],
      [{ transactions: 'all of them' }, 'transactions'],
      [{ transactions: [{ ...buy, amount: 1e-7 }] }, 'transactions.0.amount'],
      [{ transactions: [buy, { asset: 'ETH', amount: 1, type: 'sale' }] }, 'transactions.1.type'],
      [{ transactions: [buy, { asset: 'ETH', amount: 1 }] }, 'transactions.1.kind'],
      [{ transactions: [{ asset: 'ETH', amount: 1, costBasisUsd: 1, usdValue: '1' }] }, 'transactions.0.usdValue'],
      [{ transactions: [{ ...buy, holdingDays: 3 }] }, 'transactions.0.holdingDays'],
      [{ transactions: [{ asset: 'ETH', amount: 1 }], method: 'fifo' }, 'method'],
      [{ transactions: [{ asset: 'ETH', amount: 1, type: 'buy' }] }, 'transactions.0.type'],
      [
        { transactions: [{ asset: 'ETH', amount: 1, acquisitionDate: 'last spring' }] },
        'transactions.0.acquisitionDate',
      ],
      [{ transactions: [{ asset: 'ETH', amount: 1, disposalDate: 1e300 }] }, 'transactions.0.disposalDate'],
      [
        { transactions: [{ asset: 'ETH', amount: '1.5', priceAtAcquisition: -3 }] },
        'transactions.0.priceAtAcquisition',
      ],
      [{ transactions: [{ asset: 'ETH', amount: 0 }] }, 'transactions.0.amount'],
    ]
    for (const [body, field] of cases) {
      const problem = await refused(await unpaid(body), 400)
      expect(JSON.stringify(problem)).toContain(field)
    }
    await refused(await gateway.fetch('/api/v1/tax/report?reportId=nope'), 400)
    expect(gateway.settled).toHaveLength(0)
  })

  test('security: no payment is a 402; another payer’s report is a 404', async () => {
    const gateway = api()
    const body = await ok(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [{ kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1', time: '2023-01-01T00:00:00Z' }],
      }),
    )
    expect((await gateway.fetch(`/api/v1/tax/report?reportId=${body.reportId}`)).status).toBe(402)
    await refused(await gateway.get(`/api/v1/tax/report?reportId=${body.reportId}`, payers.bob), 404)
    expect((await ok(await gateway.get(`/api/v1/tax/report?reportId=${body.reportId}`))).total).toBe(0)
  })

  test("behavior: the original gateway's per-transaction form, as its MCP tool sends it: each transaction's gain, the original's fields", async () => {
    const gateway = api()
    const body = await ok(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [
          {
            type: 'sale',
            asset: 'eth',
            amount: 1.5,
            costBasisUsd: 3600,
            proceedsUsd: 4800.5,
            holdingDays: 90,
            txHash: '0xabc',
            timestamp: '2024-05-01T00:00:00Z',
          },
          { type: 'swap', asset: 'BTC', amount: '0.1', costBasisUsd: '4000', proceedsUsd: 3000.25, holdingDays: 400 },
        ],
      }),
    )
    expect(body.reportId).toMatch(/^tax_[0-9a-f]{32}$/)
    expect(body.events[0]).toEqual({
      index: 0,
      type: 'sale',
      txHash: '0xabc',
      timestamp: '2024-05-01T00:00:00Z',
      asset: 'ETH',
      amount: 1.5,
      costBasisUsd: 3600,
      proceedsUsd: 4800.5,
      gainLoss: 1200.5,
      holdingDays: 90,
      holdingPeriod: 'short',
      priceSources: { acquisition: 'caller-provided', disposal: 'caller-provided' },
      quantity: '1.5',
      costBasis: '3600',
      proceeds: '4800.5',
      gain: '1200.5',
    })
    expect(body.events[1]).toMatchObject({ gainLoss: -999.75, gain: '-999.75', holdingPeriod: 'long', txHash: null })
    expect(body.summary).toEqual({
      totalTransactions: 2,
      transactionsWithFullData: 2,
      transactionsMissingData: 0,
      totalGainLossUsd: 200.75,
      shortTermGainLoss: 1200.5,
      longTermGainLoss: -999.75,
      unknownTermGainLoss: 0,
      shortTermCount: 1,
      longTermCount: 1,
      unknownTermCount: 0,
      gain: '200.75',
      currency: 'USD',
    })
    expect(body.warnings).toBeUndefined()
    const report = await ok(await gateway.get(`/api/v1/tax/report?reportId=${body.reportId}`))
    expect(report).toMatchObject({ reportId: body.reportId, totalEvents: 2, summary: body.summary })
    expect(report.events).toEqual(body.events)
  })

  test("behavior: the MCP tool's own type words (send, receive, bridge, payroll, escrow_release) are echoed and computed as a swap", async () => {
    const gateway = api()
    const words = ['send', 'receive', 'bridge', 'payroll', 'escrow_release']
    const body = await ok(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: words.map((type) => ({ type, asset: 'USDC', amount: 100, priceAtAcquisition: 1 })),
      }),
    )
    expect(body.events.map((event: { type: string }) => event.type)).toEqual(words)
    // Not a sale: with no disposal price, proceeds are the cost basis (zero gain), with a warning.
    for (const event of body.events) expect(event).toMatchObject({ proceedsUsd: 100, gainLoss: 0 })
    expect(body.warnings).toHaveLength(5)
  })

  test("behavior: the original's handler fields: prices per unit, dates (ISO or unix seconds), the holding period from them, a missing price from the price source", async () => {
    llamaPrices.set(`${march}/coingecko:ethereum`, { price: 1800.5, timestamp: march - 30 })
    const gateway = api()
    const body = await ok(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [
          {
            asset: 'ETH',
            amount: '2',
            acquisitionDate: '2023-01-01T00:00:00Z',
            disposalDate: '2024-06-01T00:00:00Z',
            priceAtAcquisition: 1200.5,
            priceAtDisposal: '3500',
          },
          { type: 'transfer', asset: 'ETH', amount: 1, acquisitionDate: march },
          { type: 'sale', asset: 'OBSCURE', amount: 3, acquisitionDate: march, priceAtDisposal: 2 },
        ],
      }),
    )
    expect(body.events[0]).toMatchObject({
      type: 'swap',
      costBasisUsd: 2401,
      proceedsUsd: 7000,
      gainLoss: 4599,
      holdingDays: 517,
      holdingPeriod: 'long',
      timestamp: '2024-06-01T00:00:00.000Z',
    })
    // No disposal date and not a sale: proceeds are the cost basis, as the original does, and it says so.
    expect(body.events[1]).toMatchObject({
      costBasisUsd: 1800.5,
      proceedsUsd: 1800.5,
      gainLoss: 0,
      holdingPeriod: 'unknown',
      priceSources: { acquisition: 'lookup', disposal: 'none' },
      warnings: ['no disposal price; proceeds set to cost basis (zero gain assumed)'],
    })
    expect(body.prices).toEqual([
      expect.objectContaining({ index: 1, asset: 'ETH', usd: '1800.5', source: 'defillama' }),
    ])
    // A price nobody has is null, with a warning; nothing is assumed zero.
    expect(body.events[2]).toMatchObject({
      costBasisUsd: null,
      proceedsUsd: 6,
      gainLoss: null,
      priceSources: { acquisition: 'unavailable', disposal: 'caller-provided' },
    })
    expect(body.summary).toMatchObject({ transactionsWithFullData: 2, transactionsMissingData: 1, longTermCount: 1 })
    expect(body.warnings).toHaveLength(2)
  })

  test("behavior: tax/report without reportId lists the payer's reports, newest first; another payer's list is empty", async () => {
    const gateway = api()
    const first = await ok(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [{ asset: 'ETH', amount: 1, costBasisUsd: 1, proceedsUsd: 2 }],
      }),
    )
    const second = await ok(
      await gateway.post('/api/v1/tax/calculate', {
        transactions: [{ kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1', time: '2023-01-01T00:00:00Z' }],
      }),
    )
    const list = await ok(await gateway.get('/api/v1/tax/report'))
    expect(list.totalReports).toBe(2)
    expect(list.reports.map((entry: any) => entry.reportId).sort()).toEqual([first.reportId, second.reportId].sort())
    expect(list.reports.find((entry: any) => entry.reportId === first.reportId).transactions).toBe(1)
    expect(await ok(await gateway.get('/api/v1/tax/report', payers.bob))).toMatchObject({
      reports: [],
      totalReports: 0,
    })
    expect((await gateway.fetch('/api/v1/tax/report')).status).toBe(402)
  })
})
