import { InvalidTransitionError } from './Errors.js'

/**
 * Scheduled jobs: a job fires its runs one at a time, in order, on its schedule, until it has fired `maxRuns` of them
 * or its owner cancels it. Reading the schedule (a 5-field cron expression) is the cron module's; the job's record and
 * its one state machine are here. A job's callback, when it has one, is an endpoint record of its own (`Webhooks`).
 */

/** Where a job is: `scheduled` (runs to come), `completed` (it fired its last run) or `cancelled` (by its owner). */
export type State = 'scheduled' | 'completed' | 'cancelled'

/** What the state machine reads and writes of a job's record. */
export type Job = {
  /** Runs before it completes. */
  maxRuns: number
  /** Runs fired so far. */
  runs: number
  /** Where it is. */
  state: State
  /** When the next run falls due, ISO 8601; null once none will. */
  nextRun: string | null
  /** When the last run fired, ISO 8601; null before the first. */
  lastRunAt: string | null
}

/** What happens to a job. */
export type Event =
  | {
      /** Run number `run` fired; the next falls due at `next`, absent after the last. */
      type: 'fired'
      /** The run's number, from 1. */
      run: number
      /** When the next run falls due. */
      next: Date | undefined
    }
  | { /** Its owner cancelled it: no run fires any more. */ type: 'cancelled' }

/**
 * The next state of a job (`Machine.Transition`). Pure, so a store may run it again after a lost race. Only a scheduled
 * job fires, and only its next run (a run claimed twice fires once); its `maxRuns`th run completes it. A cancelled job
 * takes nothing; a completed one may still be cancelled. Throws {@link InvalidTransitionError} otherwise.
 */
export function transition<job extends Job>(job: job, event: Event, now: Date): job {
  switch (event.type) {
    case 'fired':
      if (job.state !== 'scheduled') throw new InvalidTransitionError(`A ${job.state} job fires no run.`)
      if (event.run !== job.runs + 1)
        throw new InvalidTransitionError(`Run ${event.run} is not the job's next run (${job.runs + 1}).`)
      return {
        ...job,
        runs: event.run,
        lastRunAt: now.toISOString(),
        nextRun: event.next ? event.next.toISOString() : null,
        state: event.run >= job.maxRuns ? 'completed' : 'scheduled',
      }
    case 'cancelled':
      if (job.state === 'cancelled') throw new InvalidTransitionError('The job is already cancelled.')
      return { ...job, state: 'cancelled', nextRun: null }
  }
}
