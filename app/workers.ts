import * as Queue from '../core/Queue.js'
import type { createGateway } from './gateway.js'
import { describeError, type Logger } from './log.js'

/**
 * Runs the modules' queue workers: polls each worker's queue, claims due items up to its concurrency (each item goes
 * to one process per lease, whatever the number of processes), runs them and records the outcome. A worker that
 * throws has its item retried with exponential backoff and jitter. The timer only polls: when work is due is
 * decided by the store, so work survives restarts and moves to whichever process is alive.
 */
export function workerRunner(parameters: workerRunner.Parameters): workerRunner.ReturnType {
  const { queue, workers, logger, pollMs = 250, now = () => new Date() } = parameters
  let stopped = false
  const inFlight = new Map<createGateway.Worker, Set<Promise<void>>>(workers.map((worker) => [worker, new Set()]))
  // An item that ends often makes work for another worker (an event fanned out makes deliveries): each end wakes the
  // idle workers, which poll again at once instead of at their next tick.
  const sleeping = new Set<() => void>()
  const ended = () => {
    for (const wake of sleeping) wake()
  }
  /** Waits `pollMs`, or less when an item ends or the runner stops. */
  const idle = () =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        sleeping.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, pollMs)
      sleeping.add(wake)
    })

  const handle = async (worker: createGateway.Worker, item: Queue.Claim) => {
    try {
      const outcome = await worker.run(item)
      if ('done' in outcome) await queue.complete(item, outcome.result)
      else if ('retryAt' in outcome) await queue.retry(item, { at: outcome.retryAt, error: outcome.error })
      else await queue.fail(item, outcome.failed)
    } catch (error) {
      logger.log('error', 'worker_failed', { queue: worker.queue, id: item.id, error: describeError(error) })
      const delay = Queue.backoff(item.attempts, { baseMs: 1_000, maxMs: 300_000 })
      await queue
        .retry(item, { at: new Date(Date.now() + delay), error: describeError(error).names.join(': ') })
        .catch(() => {})
    }
  }

  /** Claims what `worker` has room for and starts it; how many items it claimed. */
  const poll = async (worker: createGateway.Worker) => {
    const running = inFlight.get(worker)!
    const room = worker.concurrency - running.size
    if (room <= 0) return 0
    const claimed = await queue.claim(worker.queue, { limit: room, leaseMs: worker.leaseMs, now: now() })
    for (const item of claimed) {
      const task = handle(worker, item).finally(() => {
        running.delete(task)
        ended()
      })
      running.add(task)
    }
    return claimed.length
  }

  const loops = new Set<Promise<void>>()
  return {
    start() {
      for (const worker of workers) {
        const loop = (async () => {
          while (!stopped) {
            const claimed = await poll(worker).catch((error) => {
              logger.log('error', 'worker_claim_failed', { queue: worker.queue, error: describeError(error) })
              return 0
            })
            if (claimed === 0) await idle()
            else if (inFlight.get(worker)!.size >= worker.concurrency) await Promise.race(inFlight.get(worker)!)
          }
        })()
        loops.add(loop)
      }
    },
    async drain() {
      for (;;) {
        let claimed = 0
        for (const worker of workers) claimed += await poll(worker)
        const running = [...inFlight.values()].flatMap((set) => [...set])
        if (claimed === 0 && running.length === 0) return
        await Promise.all(running)
      }
    },
    async stop() {
      stopped = true
      ended()
      await Promise.all(loops)
      await Promise.all([...inFlight.values()].flatMap((set) => [...set]))
    },
  }
}

export declare namespace workerRunner {
  type Parameters = {
    /** The queue every gateway process shares. */
    queue: Queue.Queue
    /** The mounted modules' workers. */
    workers: readonly createGateway.Worker[]
    /** Where failures go. */
    logger: Logger
    /** How long an idle worker waits before it polls again, in ms. @default 250 */
    pollMs?: number
    /** The clock items fall due by. @default () => new Date() */
    now?: () => Date
  }
  type ReturnType = {
    /** Starts polling in the background. */
    start: () => void
    /** Runs every due item (and what they make due now) to the end; for tests and scripts. */
    drain: () => Promise<void>
    /** Stops polling and waits for the items in hand. */
    stop: () => Promise<void>
  }
}
