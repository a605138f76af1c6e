import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { vendor } from '../../../adapters/vendor/vendor.js'
import { clocked, vendorServer } from '../../support/vendor.js'

const server = vendorServer()
afterAll(() => server.stop())
beforeEach(() => server.reset())

/** A client of the stand-in allowing `rateLimit`, on a clock the test moves. */
function limited(rateLimit: vendor.Declaration['rateLimit']) {
  const time = clocked(0)
  const client = vendor({
    id: 'stub',
    name: 'the stub',
    baseUrl: server.url,
    rateLimit,
    retries: 0,
    now: time.now,
    sleep: time.sleep,
  })
  return { ...time, client }
}

const refusal = (at: number) =>
  `the stub takes 1 calls per 3000 ms from this gateway; the next may start at ${new Date(at).toISOString()}.`

describe('rate limit', () => {
  test('behavior: a call waits for the next token when it comes within maxWaitMs', async () => {
    const { client, slept, clock } = limited({ capacity: 1, refill: 1, intervalMs: 3_000, maxWaitMs: 5_000 })
    expect(await client.get('/a')).toMatchObject({ ok: true })
    expect(await client.get('/b')).toMatchObject({ ok: true })
    expect(slept).toEqual([3_000])
    expect(clock.now).toBe(3_000)
    expect(server.seen.map((request) => request.url.pathname)).toEqual(['/api/a', '/api/b'])
  })

  test('behavior: a burst goes at once; the call after it waits for a share of the interval', async () => {
    const { client, slept } = limited({ capacity: 3, refill: 3, intervalMs: 1_000 })
    for (const path of ['/1', '/2', '/3', '/4']) expect((await client.get(path)).ok).toBe(true)
    expect(slept).toEqual([334])
    expect(server.seen).toHaveLength(4)
  })

  test('error: a token further away than maxWaitMs refuses the call, with when to come back, and nothing is sent', async () => {
    const { client, slept } = limited({ capacity: 1, refill: 1, intervalMs: 3_000, maxWaitMs: 1_000 })
    await client.get('/a')
    expect(await client.get('/b')).toEqual({
      ok: false,
      reason: 'unavailable',
      status: undefined,
      message: refusal(3_000),
    })
    expect(slept).toEqual([])
    expect(server.seen).toHaveLength(1)
  })

  test('behavior: maxWaitMs 0 never waits: a call without a token now is refused at once', async () => {
    const { client, slept } = limited({ capacity: 2, refill: 2, intervalMs: 1_000, maxWaitMs: 0 })
    expect((await client.get('/a')).ok).toBe(true)
    expect((await client.get('/b')).ok).toBe(true)
    expect(await client.get('/c')).toMatchObject({ ok: false, reason: 'unavailable' })
    expect(slept).toEqual([])
  })

  test('behavior: available() is false while the next token is beyond the wait budget, true once within it', async () => {
    const { client, clock } = limited({ capacity: 1, refill: 1, intervalMs: 3_000, maxWaitMs: 1_000 })
    expect(client.available()).toEqual({ ok: true })
    await client.post('/submit', {})
    expect(client.available()).toEqual({ ok: false, reason: refusal(3_000) })
    clock.now = 1_999
    expect(client.available().ok).toBe(false)
    clock.now = 2_000
    expect(client.available()).toEqual({ ok: true })
    expect((await client.get('/after')).ok).toBe(true)
  })

  test('behavior: calls waiting together each get their own token, in turn', async () => {
    const { client, clock } = limited({ capacity: 1, refill: 1, intervalMs: 3_000, maxWaitMs: 10_000 })
    const outcomes = await Promise.all(['/a', '/b', '/c'].map((path) => client.get(path)))
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true)
    expect(server.seen).toHaveLength(3)
    // Three calls through a bucket of one token per 3 s take at least two intervals.
    expect(clock.now).toBeGreaterThanOrEqual(6_000)
  })

  test('behavior: a retry takes a token too', async () => {
    const time = clocked(0)
    const client = vendor({
      id: 'stub',
      name: 'the stub',
      baseUrl: server.url,
      rateLimit: { capacity: 1, refill: 1, intervalMs: 3_000, maxWaitMs: 5_000 },
      retries: 1,
      retryDelayMs: 10,
      now: time.now,
      sleep: time.sleep,
    })
    server.state.answer = () =>
      server.seen.length === 1 ? new Response(null, { status: 503 }) : Response.json({ fine: true })
    expect(await client.get('/flaky')).toMatchObject({ ok: true, body: { fine: true } })
    // 10 ms of backoff, then the rest of the interval for a token.
    expect(time.slept).toEqual([10, 2_990])
  })

  test('error: a rate limit that is no bucket fails at construction', () => {
    expect(() =>
      vendor({
        id: 'stub',
        name: 'the stub',
        baseUrl: server.url,
        rateLimit: { capacity: 0, refill: 1, intervalMs: 1_000 },
      }),
    ).toThrow("A rate limit's capacity must be a positive integer")
  })
})
