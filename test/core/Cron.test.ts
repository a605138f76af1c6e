import { describe, expect, test } from 'bun:test'
import * as Cron from '../../core/Cron.js'
import { InvalidTransitionError } from '../../core/Errors.js'

const now = new Date('2030-01-01T02:00:01.000Z')
const next = new Date('2030-01-01T04:00:00.000Z')
const scheduled: Cron.Job = {
  maxRuns: 2,
  runs: 0,
  state: 'scheduled',
  nextRun: '2030-01-01T02:00:00.000Z',
  lastRunAt: null,
}

describe('transition', () => {
  test('default: a run fired is counted, when it fired and when the next falls due', () => {
    expect(Cron.transition(scheduled, { type: 'fired', run: 1, next }, now)).toEqual({
      maxRuns: 2,
      runs: 1,
      state: 'scheduled',
      nextRun: next.toISOString(),
      lastRunAt: now.toISOString(),
    })
  })

  test('behavior: the maxRuns-th run completes the job; what else the record holds is kept', () => {
    const job = { ...scheduled, runs: 1, action: 'webhook.trigger' }
    expect(Cron.transition(job, { type: 'fired', run: 2, next: undefined }, now)).toEqual({
      ...job,
      runs: 2,
      state: 'completed',
      nextRun: null,
      lastRunAt: now.toISOString(),
    })
  })

  test('behavior: a scheduled or completed job is cancelled, and has no next run', () => {
    expect(Cron.transition(scheduled, { type: 'cancelled' }, now)).toMatchObject({ state: 'cancelled', nextRun: null })
    const completed: Cron.Job = { ...scheduled, runs: 2, state: 'completed', nextRun: null }
    expect(Cron.transition(completed, { type: 'cancelled' }, now).state).toBe('cancelled')
  })

  test('error: a run fired twice, out of order, or of a job that is not scheduled', () => {
    const fired = Cron.transition(scheduled, { type: 'fired', run: 1, next }, now)
    expect(() => Cron.transition(fired, { type: 'fired', run: 1, next }, now)).toThrow(InvalidTransitionError)
    expect(() => Cron.transition(scheduled, { type: 'fired', run: 2, next }, now)).toThrow(
      "Run 2 is not the job's next run (1).",
    )
    const cancelled = Cron.transition(scheduled, { type: 'cancelled' }, now)
    expect(() => Cron.transition(cancelled, { type: 'fired', run: 1, next }, now)).toThrow(
      'A cancelled job fires no run.',
    )
  })

  test('error: a cancelled job is not cancelled again', () => {
    const cancelled = Cron.transition(scheduled, { type: 'cancelled' }, now)
    expect(() => Cron.transition(cancelled, { type: 'cancelled' }, now)).toThrow(InvalidTransitionError)
  })
})
