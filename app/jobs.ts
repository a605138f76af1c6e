import type { Store } from '../core/Store.js'
import type { createGateway } from './gateway.js'
import { describeError, type Logger } from './log.js'

/** Store collection of claimed job ticks: one record per job and minute, whichever process inserted it first. */
export const collection = 'job_ticks'

/**
 * Runs background jobs so that N processes sharing a store run each tick once: before a tick runs, the runner inserts
 * `{ job, minute }` into the store, and only the process whose insert succeeds runs it. Jobs stay free of locking.
 */
export function jobRunner(parameters: jobRunner.Parameters): jobRunner.ReturnType {
  const { store, logger, now = () => new Date() } = parameters
  const running = new Map<string, number>()
  return {
    running: () => new Map(running),
    async tick(job) {
      if (!job.everyProcess) {
        const at = new Date(Math.floor(now().getTime() / 60_000) * 60_000)
        const minute = at.toISOString()
        const claim = await store.insert({
          collection,
          id: `${job.name}@${minute}`,
          owners: [],
          value: { job: job.name, minute },
          createdAt: at,
        })
        if (!claim.ok) return false
      }
      running.set(job.name, (running.get(job.name) ?? 0) + 1)
      let outcome = 'ok'
      try {
        await job.run()
      } catch (error) {
        outcome = 'failed'
        logger.log('error', 'job_failed', { job: job.name, error: describeError(error) })
      } finally {
        running.set(job.name, running.get(job.name)! - 1)
      }
      // Metrics count this event: job runs by outcome.
      logger.log('debug', 'job_finished', { job: job.name, outcome })
      return true
    },
  }
}

export declare namespace jobRunner {
  type Parameters = {
    /** The store every gateway process shares. */
    store: Store
    /** Where failures go. */
    logger: Logger
    /** The clock. @default () => new Date() */
    now?: () => Date
  }
  type ReturnType = {
    /** Runs one tick of `job` unless another process has claimed this minute's; whether this process ran it. */
    tick: (job: createGateway.Job) => Promise<boolean>
    /** Ticks running now, by job name: the depth of each job's queue in this process. */
    running: () => Map<string, number>
  }
}
