import { describe, expect, test } from 'bun:test'
import * as RateLimit from '../../core/RateLimit.js'

/** One call per 3 s, as some public APIs allow. */
const slow: RateLimit.Options = { capacity: 1, refill: 1, intervalMs: 3_000 }
/** Ten calls per second, in bursts of up to ten. */
const burst: RateLimit.Options = { capacity: 10, refill: 10, intervalMs: 1_000 }
/** Three calls per second, one at a time: a token every 333⅓ ms. */
const thirds: RateLimit.Options = { capacity: 1, refill: 3, intervalMs: 1_000 }

/** Takes a token at each time of `times` in turn: for each, `ok` or the time a token will be there. */
function run(options: RateLimit.Options, times: number[], start = times[0] ?? 0): (true | number)[] {
  let state = RateLimit.initial(options, start)
  return times.map((now) => {
    const taken = RateLimit.take(state, { ...options, now })
    state = taken.state
    return taken.ok ? true : taken.retryAt
  })
}

describe('initial', () => {
  test('default: a new bucket is full', () => {
    expect(RateLimit.initial(burst, 500)).toEqual({ level: 10_000, updatedAt: 500 })
    expect(RateLimit.check(RateLimit.initial(slow, 0), { ...slow, now: 0 })).toEqual({ ok: true })
  })

  test.each([
    [{ capacity: 0, refill: 1, intervalMs: 1_000 }, 'capacity'],
    [{ capacity: 1, refill: 0.5, intervalMs: 1_000 }, 'refill'],
    [{ capacity: 1, refill: 1, intervalMs: -1 }, 'intervalMs'],
  ])('error: %j is no bucket', (options, field) => {
    expect(() => RateLimit.initial(options, 0)).toThrow(`A rate limit's ${field} must be a positive integer`)
  })
})

describe('take', () => {
  test.each([
    [
      'one per 3 s: the second call waits for the next token',
      slow,
      [0, 0, 2_999, 3_000, 3_001],
      [true, 3_000, 3_000, true, 6_000],
    ],
    ['one per 3 s: an idle bucket holds no more than its capacity', slow, [0, 60_000, 60_000], [true, true, 63_000]],
    [
      '10 per s: a burst of 10, then one every 100 ms',
      burst,
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 100, 100],
      [true, true, true, true, true, true, true, true, true, true, 100, 100, true, 200],
    ],
    [
      '3 per s: whole milliseconds, never early',
      thirds,
      [0, 0, 333, 334, 334, 667, 1_000],
      [true, 334, 334, true, 668, 668, true],
    ],
  ] as const)('vector: %s', (_, options, times, expected) => {
    expect(run(options, [...times])).toEqual([...expected])
  })

  test('behavior: a refused call takes nothing', () => {
    const empty = RateLimit.take(RateLimit.initial(slow, 0), { ...slow, now: 0 }).state
    const refused = RateLimit.take(empty, { ...slow, now: 1_000 })
    expect(refused).toEqual({ ok: false, retryAt: 3_000, state: { level: 1_000, updatedAt: 1_000 } })
    expect(RateLimit.take(refused.state, { ...slow, now: 3_000 }).ok).toBe(true)
  })

  test('behavior: a clock that steps back neither adds nor removes tokens', () => {
    const empty = RateLimit.take(RateLimit.initial(slow, 10_000), { ...slow, now: 10_000 }).state
    expect(RateLimit.take(empty, { ...slow, now: 5_000 })).toEqual({ ok: false, retryAt: 13_000, state: empty })
  })
})

describe('check', () => {
  test('behavior: says when a token will be there without taking one', () => {
    const empty = RateLimit.take(RateLimit.initial(burst, 0), { ...burst, now: 0 }).state
    const state = { ...empty, level: 0 }
    expect(RateLimit.check(state, { ...burst, now: 40 })).toEqual({ ok: false, retryAt: 100 })
    expect(RateLimit.check(state, { ...burst, now: 100 })).toEqual({ ok: true })
    expect(RateLimit.check(state, { ...burst, now: 100 })).toEqual({ ok: true })
  })
})
