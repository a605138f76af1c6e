import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { memory } from '../../../adapters/limiter/memory.js'
import { postgres } from '../../../adapters/limiter/postgres.js'
import { redis } from '../../../adapters/limiter/redis.js'
import type { Limiter } from '../../../core/Limiter.js'
import type * as RateLimit from '../../../core/RateLimit.js'
import { postgresFixture, redisUrl } from '../../support/backends.js'

/** Three calls a minute, in bursts of up to three. */
const perMinute: RateLimit.Options = { capacity: 3, refill: 3, intervalMs: 60_000 }

const databaseUrl = process.env.DATABASE_URL

/**
 * A limiter under test, made in `beforeAll` (a skipped describe's body still runs while collecting); its `close` also
 * ends what the case opened.
 */
type Case = { name: string; skip: boolean; make: () => Promise<Limiter> }

const cases: Case[] = [
  { name: 'memory', skip: false, make: async () => memory() },
  {
    name: 'redis',
    skip: redisUrl === undefined,
    async make() {
      const client = new RedisClient(redisUrl)
      await client.connect()
      // Keys of this run only: the server is shared with other runs and other suites.
      const limiter = redis({ client, prefix: `limit-test-${crypto.randomUUID()}:` })
      return { ...limiter, close: async () => client.close() }
    },
  },
  {
    name: 'postgres',
    skip: databaseUrl === undefined,
    async make() {
      const fixture = await postgresFixture(databaseUrl!, 'limiter', (sql) => postgres({ sql }))
      return { ...fixture.open(), close: fixture.teardown }
    },
  },
]

describe.each(cases)('$name', ({ skip, make }) => {
  let limiter: Limiter
  // Keys unique to this run, so a shared engine's leftovers from earlier runs cannot count.
  const run = crypto.randomUUID()
  beforeAll(async () => {
    if (!skip) limiter = await make()
  })
  afterAll(async () => {
    await limiter?.close()
  })

  test.skipIf(skip)('default: a new bucket admits its capacity, then refuses until a token is back', async () => {
    const key = `${run} burst`
    const taken = []
    for (let index = 0; index < 5; index++) taken.push(await limiter.take(key, perMinute))
    expect(taken.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }])
    const before = Date.now()
    for (const refused of taken.slice(3)) {
      if (refused.ok) throw new Error('A take past capacity was admitted.')
      // One token comes back every 20 s; the engine's clock may differ from ours by a little.
      expect(refused.retryAt).toBeGreaterThan(before + 10_000)
      expect(refused.retryAt).toBeLessThan(before + 30_000)
    }
  })

  test.skipIf(skip)('behavior: keys are separate buckets', async () => {
    for (let index = 0; index < 3; index++) await limiter.take(`${run} a`, perMinute)
    expect((await limiter.take(`${run} a`, perMinute)).ok).toBe(false)
    expect(await limiter.take(`${run} b`, perMinute)).toEqual({ ok: true })
  })

  test.skipIf(skip)('behavior: a token is back at the time a refusal names', async () => {
    const key = `${run} refill`
    const fast = { capacity: 1, refill: 1, intervalMs: 200 }
    expect(await limiter.take(key, fast)).toEqual({ ok: true })
    const refused = await limiter.take(key, fast)
    if (refused.ok) throw new Error('A take past capacity was admitted.')
    // The engine's clock is this machine's: a few ms past the named time, the token is there.
    await Bun.sleep(Math.max(0, refused.retryAt - Date.now()) + 20)
    expect(await limiter.take(key, fast)).toEqual({ ok: true })
  })

  test.skipIf(skip)('behavior: concurrent takes admit exactly the capacity', async () => {
    const key = `${run} race`
    const taken = await Promise.all(Array.from({ length: 40 }, () => limiter.take(key, perMinute)))
    expect(taken.filter((outcome) => outcome.ok)).toHaveLength(3)
  })
})

describe('memory: its own options', () => {
  test('behavior: refills with time, by the clock it is given', async () => {
    let now = 1_000_000
    const limiter = memory({ now: () => now })
    const options = { capacity: 1, refill: 1, intervalMs: 1_000 }
    expect(await limiter.take('k', options)).toEqual({ ok: true })
    expect(await limiter.take('k', options)).toEqual({ ok: false, retryAt: 1_001_000 })
    now += 1_000
    expect(await limiter.take('k', options)).toEqual({ ok: true })
  })

  test('behavior: past maxBuckets the least recently used bucket is evicted (and comes back full)', async () => {
    const limiter = memory({ maxBuckets: 2, now: () => 0 })
    const options = { capacity: 1, refill: 1, intervalMs: 60_000 }
    await limiter.take('a', options)
    await limiter.take('b', options)
    expect((await limiter.take('a', options)).ok).toBe(false)
    await limiter.take('c', options)
    expect((await limiter.take('a', options)).ok).toBe(false)
    expect(await limiter.take('b', options)).toEqual({ ok: true })
  })
})
