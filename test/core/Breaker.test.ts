import { describe, expect, test } from 'bun:test'
import * as Breaker from '../../core/Breaker.js'
import { BreakerOpenError } from '../../core/Errors.js'

const options = { threshold: 3, coolDownMs: 1_000 }
const at = (now: number) => ({ ...options, now })

/** Applies `events` from `state`, all at `now`. */
function run(state: Breaker.State, events: Breaker.Event['type'][], now = 0): Breaker.State {
  return events.reduce((current, type) => Breaker.transition(current, { type }, at(now)), state)
}

describe('transition', () => {
  test('default: a new breaker is closed and admits calls', () => {
    expect(Breaker.initial).toEqual({ status: 'closed', failures: 0 })
    expect(Breaker.check(Breaker.initial, { now: 0, coolDownMs: options.coolDownMs })).toEqual({ ok: true })
  })

  test('behavior: failures below the threshold keep it closed; a success resets the count', () => {
    expect(run(Breaker.initial, ['attempt', 'failure', 'attempt', 'failure'])).toEqual({
      status: 'closed',
      failures: 2,
    })
    expect(run(Breaker.initial, ['attempt', 'failure', 'attempt', 'failure', 'attempt', 'success'])).toEqual(
      Breaker.initial,
    )
  })

  test('behavior: `threshold` failures in a row open it for the cool-down', () => {
    const open = run(Breaker.initial, ['attempt', 'failure', 'attempt', 'failure', 'attempt', 'failure'], 5_000)
    expect(open).toEqual({ status: 'open', until: 6_000 })
    expect(Breaker.check(open, { now: 5_999, coolDownMs: options.coolDownMs })).toEqual({ ok: false, retryAt: 6_000 })
    expect(Breaker.check(open, { now: 6_000, coolDownMs: options.coolDownMs })).toEqual({ ok: true })
  })

  test('behavior: after the cool-down one probe goes through; others wait for it', () => {
    const probing = Breaker.transition({ status: 'open', until: 6_000 }, { type: 'attempt' }, at(6_000))
    expect(probing).toEqual({ status: 'half_open', since: 6_000 })
    expect(Breaker.check(probing, { now: 6_500, coolDownMs: options.coolDownMs })).toEqual({
      ok: false,
      retryAt: 7_000,
    })
  })

  test('behavior: the probe succeeding closes it; failing opens it for another cool-down', () => {
    const probing: Breaker.State = { status: 'half_open', since: 6_000 }
    expect(Breaker.transition(probing, { type: 'success' }, at(6_200))).toEqual(Breaker.initial)
    expect(Breaker.transition(probing, { type: 'failure' }, at(6_200))).toEqual({ status: 'open', until: 7_200 })
  })

  test('behavior: a probe silent for a whole cool-down is presumed lost; the next call probes', () => {
    const probing: Breaker.State = { status: 'half_open', since: 6_000 }
    expect(Breaker.check(probing, { now: 7_000, coolDownMs: options.coolDownMs })).toEqual({ ok: true })
    expect(Breaker.transition(probing, { type: 'attempt' }, at(7_000))).toEqual({ status: 'half_open', since: 7_000 })
  })

  test('behavior: calls admitted before it opened neither close it nor extend the cool-down', () => {
    const open: Breaker.State = { status: 'open', until: 6_000 }
    expect(Breaker.transition(open, { type: 'success' }, at(5_500))).toBe(open)
    expect(Breaker.transition(open, { type: 'failure' }, at(5_500))).toBe(open)
  })

  test('error: an attempt while it refuses calls throws BreakerOpenError (upstream_unavailable)', () => {
    const attempt = () => Breaker.transition({ status: 'open', until: 6_000 }, { type: 'attempt' }, at(5_000))
    expect(attempt).toThrow(BreakerOpenError)
    try {
      attempt()
    } catch (error) {
      expect((error as BreakerOpenError).code).toBe('upstream_unavailable')
      expect((error as BreakerOpenError).retryAt).toBe(6_000)
    }
  })
})
