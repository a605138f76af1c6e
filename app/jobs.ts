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
  return {
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
      try {
        await job.run()
      } catch (error) {
        logger.log('error', 'job_failed', { job: job.name, error: describeError(error) })
      }
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
  }
}
