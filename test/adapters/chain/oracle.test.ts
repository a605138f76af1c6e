import { describe, expect, test } from 'bun:test'
import { feedOracle } from '../../../adapters/chain/oracle.js'
import type { Feed, PriceFeeds, Reading } from '../../../core/PriceFeeds.js'

const eur: Feed = {
  symbol: 'EUR',
  description: 'EUR / USD',
  address: '0x0000000000000000000000000000000000000001',
  heartbeatS: 3_600,
}
const nowMs = 1_800_000_000_000

/** Feeds on chain 8453 whose reads answer `reading`, or throw when it is an Error; counts reads. */
function feedsOf(reading: Omit<Extract<Reading, { ok: true }>, 'feed'> | Error) {
  let reads = 0
  const feeds: PriceFeeds = {
    chainId: 8453,
    feeds: [eur],
    async read() {
      reads++
      if (reading instanceof Error) throw reading
      return [{ feed: eur, ...reading }]
    },
  }
  return { feeds, reads: () => reads }
}

describe('feedOracle: usdPrice', () => {
  test('default: the latest round as a decimal string, with its feed and round; one read serves 60 s', async () => {
    const { feeds, reads } = feedsOf({
      ok: true,
      roundId: 7n,
      answer: 108_123_456n,
      decimals: 8,
      updatedAt: nowMs / 1000 - 60,
    })
    const oracle = feedOracle({ feeds: [feeds], now: () => nowMs })
    expect(await oracle.usdPrice('eur')).toEqual({
      ok: true,
      usd: '1.08123456',
      source: `EUR / USD feed ${eur.address} on chain 8453, round 7`,
      observedAt: new Date(nowMs - 60_000),
    })
    await oracle.usdPrice('EUR')
    expect(reads()).toBe(1)
  })

  test('error: a symbol without a feed is an unknown asset, naming what there is', async () => {
    const oracle = feedOracle({ feeds: [feedsOf(new Error('down')).feeds], now: () => nowMs })
    const quote = await oracle.usdPrice('DOGE')
    expect(quote).toMatchObject({ ok: false, reason: 'unknown_asset' })
    expect(!quote.ok && quote.message).toContain('USD, EUR')
  })

  test('error: a stale round, a non-positive one and a chain that does not answer are unavailable', async () => {
    const stale = feedsOf({ ok: true, roundId: 1n, answer: 1n, decimals: 8, updatedAt: nowMs / 1000 - 3_601 })
    const negative = feedsOf({ ok: true, roundId: 1n, answer: -1n, decimals: 8, updatedAt: nowMs / 1000 })
    for (const { feeds } of [stale, negative, feedsOf(new Error('down'))])
      expect(await feedOracle({ feeds: [feeds], now: () => nowMs }).usdPrice('EUR')).toMatchObject({
        ok: false,
        reason: 'unavailable',
      })
  })
})
