import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { hermes } from '../../../adapters/solana/hermes.js'
import { clocked } from '../../support/vendor.js'
import { btcUsd, hermesStandIn, solUsd } from './stand-ins.js'

const key = 'pyth-test-key-0123456789'
const server = hermesStandIn({ key })
afterAll(() => server.stop())
beforeEach(() => {
  server.faults.length = 0
  server.received.length = 0
  server.state.feedListFails = false
})

/** The adapter on the stand-in, with a clock whose sleeps are recorded, not waited. */
function service(options: Partial<hermes.Parameters> = {}) {
  const time = clocked()
  return { time, service: hermes({ url: server.url, key, now: time.now, sleep: time.sleep, ...options }) }
}

/** The price request among those the stand-in received. */
const priceRequest = () => server.received.find((request) => request.route === 'GET /v2/updates/price/latest')!

describe('hermes: latest', () => {
  test('default: fixed-point prices in the order asked, symbols from the feed list, the key as a bearer token', async () => {
    const { service: prices } = service()
    expect(await prices.latest([btcUsd, solUsd])).toEqual({
      ok: true,
      updates: [
        {
          id: btcUsd,
          symbol: 'Crypto.BTC/USD',
          price: 9_876_543_210_987n,
          confidence: 3_210_000_000n,
          exponent: -8,
          publishTime: 1_763_899_990,
          emaPrice: 9_870_000_000_000n,
          emaExponent: -8,
        },
        {
          id: solUsd,
          symbol: 'Crypto.SOL/USD',
          price: 14_836_012_300n,
          confidence: 7_012_345n,
          exponent: -8,
          publishTime: 1_763_900_000,
          emaPrice: 14_836_012_300n,
          emaExponent: -8,
        },
      ],
    })
    const sent = priceRequest()
    expect(sent.headers.get('authorization')).toBe(`Bearer ${key}`)
    expect(sent.url.searchParams.getAll('ids[]')).toEqual([btcUsd, solUsd])
    expect(sent.url.searchParams.get('parsed')).toBe('true')
    expect(sent.url.searchParams.get('ignore_invalid_price_ids')).toBe('true')
  })

  test('behavior: the feed list is read once and kept', async () => {
    const { service: prices } = service()
    await prices.latest([solUsd])
    await prices.latest([btcUsd])
    expect(server.received.map((request) => request.route)).toEqual([
      'GET /v2/updates/price/latest',
      'GET /v2/price_feeds',
      'GET /v2/updates/price/latest',
    ])
  })

  test("behavior: a feed Hermes does not know is the port's not_found, and never opens the breaker", async () => {
    const { service: prices } = service({ breaker: { threshold: 1 } })
    const unknown = `0x${'ab'.repeat(32)}`
    expect(await prices.latest([solUsd, unknown])).toEqual({
      ok: false,
      reason: 'not_found',
      message: `Pyth Hermes has no price feed ${unknown}.`,
    })
    expect(prices.available()).toEqual({ ok: true })
  })

  test('behavior: without the feed list, prices come without symbols', async () => {
    const { service: prices } = service({ retries: 0 })
    server.state.feedListFails = true
    expect(await prices.latest([solUsd])).toMatchObject({ ok: true, updates: [{ id: solUsd, symbol: undefined }] })
  })

  test('behavior: a 429 with Retry-After is retried after the pause asked for', async () => {
    const { service: prices, time } = service()
    // The first request is the price call, the second the feed list.
    server.faults.push({ status: 429, retryAfter: 5 })
    expect(await prices.latest([solUsd])).toMatchObject({ ok: true })
    expect(time.slept).toEqual([5_000])
  })

  test("error: a wrong key is Hermes' 401, a failure that never shows the key", async () => {
    const { service: prices } = service({ key: 'wrong-key-0123456789' })
    const failure = await prices.latest([solUsd])
    expect(failure).toEqual({ ok: false, reason: 'failed', status: 401, message: 'unauthorized' })
    expect(JSON.stringify(failure)).not.toContain('wrong-key')
  })

  test('error: an unreadable price is a failure naming the field', async () => {
    server.feeds.set('cc'.repeat(32), {
      symbol: 'Crypto.BAD/USD',
      price: '1.5',
      conf: '1',
      expo: -8,
      publishTime: 1_763_900_000,
    })
    const { service: prices } = service()
    expect(await prices.latest([`0x${'cc'.repeat(32)}`])).toEqual({
      ok: false,
      reason: 'failed',
      status: 200,
      message: 'Pyth Hermes answered an unreadable price.price.',
    })
    server.feeds.delete('cc'.repeat(32))
  })
})
