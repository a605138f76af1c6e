import { describe, expect, test } from 'bun:test'
import { memory } from '../../../adapters/ledger/memory.js'
import type { Logger } from '../../../app/log.js'
import { processLease } from '../../../app/payment/lease.js'
import type { Ledger } from '../../../core/Ledger.js'

// Every lease here runs on a clock of the test's own: time passes when the test moves it, never by waiting.

/** Lease options on `ledger` that count its renewals and record the events logged; every process id runs. */
function setup(ledger: Ledger = memory()) {
  let renewals = 0
  const counted: Ledger = {
    ...ledger,
    renew(parameters) {
      renewals++
      return ledger.renew(parameters)
    },
  }
  const events: string[] = []
  const logger: Logger = { log: (_level, event) => events.push(event) }
  return { options: { ledger: counted, logger, isRunning: () => true }, events, renewals: () => renewals }
}

/** A clock at `at` ms since the epoch, moved with `clock.at = ...`. */
function clock(at: number) {
  const state = { at, now: () => new Date(state.at) }
  return state
}

const start = Date.parse('2025-01-01T00:00:00Z')

describe('processLease.current', () => {
  test('default: a lease whose heartbeat is younger than ttl minus one heartbeat is answered without a round trip', async () => {
    const { options, renewals } = setup()
    const time = clock(start)
    const lease = await processLease({ ...options, ttlMs: 15_000, heartbeatMs: 5_000, now: time.now })
    time.at = start + 9_999
    expect(await lease.current()).toMatchObject({ id: lease.id, slot: 0 })
    expect(renewals()).toBe(0)
    await lease.stop()
  })

  test('behavior: a lease past ttl minus one heartbeat is renewed before it is answered, and keeps its slot', async () => {
    const { options, renewals } = setup()
    const time = clock(start)
    const lease = await processLease({ ...options, ttlMs: 15_000, heartbeatMs: 5_000, now: time.now })
    const id = lease.id
    time.at = start + 10_000
    expect(await lease.current()).toMatchObject({ id, slot: 0 })
    expect(renewals()).toBe(1)
    // Renewed at 10 s: held without a round trip until 20 s.
    time.at = start + 19_999
    await lease.current()
    expect(renewals()).toBe(1)
    await lease.stop()
  })

  test('behavior: a process paused past the ttl, whose slot another process took meanwhile, answers a new lease in another slot', async () => {
    const shared = memory()
    const paused = setup(shared)
    const time = clock(start)
    const first = await processLease({ ...paused.options, ttlMs: 15_000, heartbeatMs: 5_000, now: time.now, pid: 1 })
    const old = first.id
    expect(first.slot).toBe(0)
    // 20 s without a heartbeat: a process starting then takes the first one for dead and takes its slot.
    const later = clock(start + 20_000)
    const second = await processLease({
      ...setup(shared).options,
      ttlMs: 15_000,
      heartbeatMs: 5_000,
      now: later.now,
      pid: 2,
    })
    expect(second.slot).toBe(0)

    time.at = start + 20_000
    const now = await first.current()
    expect(now.id).not.toBe(old)
    expect(now.slot).toBe(1)
    expect(first.slot).toBe(1)
    expect(first.id).toBe(now.id)
    expect(paused.events).toContain('lease_lost')
    await first.stop()
    await second.stop()
  })

  test('behavior: askers meanwhile share one renewal', async () => {
    const { options, renewals } = setup()
    const time = clock(start)
    const lease = await processLease({ ...options, ttlMs: 15_000, heartbeatMs: 5_000, now: time.now })
    time.at = start + 12_000
    const answers = await Promise.all([lease.current(), lease.current(), lease.current()])
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1)
    expect(renewals()).toBe(1)
    await lease.stop()
  })

  test('error: a ledger that does not answer when the lease must be renewed rejects: nothing is answered as held', async () => {
    const shared = memory()
    const { options } = setup(shared)
    const { ledger } = options
    const time = clock(start)
    let down = false
    const lease = await processLease({
      ...options,
      ledger: {
        ...ledger,
        renew: (parameters) => (down ? Promise.reject(new Error('connection refused')) : ledger.renew(parameters)),
      },
      ttlMs: 15_000,
      heartbeatMs: 5_000,
      now: time.now,
    })
    down = true
    time.at = start + 11_000
    await expect(lease.current()).rejects.toThrow('connection refused')
    down = false
    expect(await lease.current()).toMatchObject({ id: lease.id, slot: 0 })
    await lease.stop()
  })
})
