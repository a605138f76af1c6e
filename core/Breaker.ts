import { BreakerOpenError } from './Errors.js'

/**
 * A circuit breaker for one upstream: after `threshold` failed calls in a row it opens, and calls are refused
 * (before any payment) for `coolDownMs`; then one call goes through as a probe, and its outcome closes the breaker
 * or opens it again.
 *
 * ```
 * closed --failure x threshold--> open --attempt after cool-down--> half_open --success--> closed
 *                                   ^                                    |
 *                                   \------------- failure --------------/
 * ```
 *
 * Times are epoch milliseconds, passed in: the breaker has no clock of its own.
 */

/** Where the breaker stands. */
export type State =
  | {
      /** Calls go through. */
      status: 'closed'
      /** Failed calls in a row so far. */
      failures: number
    }
  | {
      /** Calls are refused until `until`. */
      status: 'open'
      /** Epoch ms when the cool-down ends and one probe may go through. */
      until: number
    }
  | {
      /** One probe is in flight; other calls are refused until it reports. */
      status: 'half_open'
      /** Epoch ms when the probe started. */
      since: number
    }

/** What happened to a call. */
export type Event =
  | { /** A call starts (only when {@link check} admits it). */ type: 'attempt' }
  | { /** A call succeeded. */ type: 'success' }
  | { /** A call failed in a way that says the upstream is unhealthy. */ type: 'failure' }

/** How the breaker trips and recovers. */
export type Options = {
  /** Failed calls in a row that open the breaker. */
  threshold: number
  /** How long an open breaker refuses calls, in ms; also how long a silent probe blocks others. */
  coolDownMs: number
}

/** A new breaker: closed, no failures. */
export const initial: State = { status: 'closed', failures: 0 }

/**
 * Whether a call may start at `now`: yes when closed, or when the cool-down has elapsed (the call is the probe),
 * or when a probe has been silent for a whole cool-down (it is presumed lost). Otherwise, when to try again.
 */
export function check(state: State, parameters: check.Parameters): check.ReturnType {
  const { now, coolDownMs } = parameters
  if (state.status === 'closed') return { ok: true }
  const retryAt = state.status === 'open' ? state.until : state.since + coolDownMs
  return now >= retryAt ? { ok: true } : { ok: false, retryAt }
}

export declare namespace check {
  type Parameters = {
    /** Current time, epoch ms. */
    now: number
    /** Cool-down of the breaker, in ms. */
    coolDownMs: number
  }
  type ReturnType =
    | { ok: true }
    | {
        ok: false
        /** Epoch ms when a call may start again. */
        retryAt: number
      }
}

/** The next state after `event` at `now`; an attempt that {@link check} would refuse throws {@link BreakerOpenError}. */
export function transition(state: State, event: Event, parameters: transition.Parameters): State {
  const { now, threshold, coolDownMs } = parameters
  switch (event.type) {
    case 'attempt': {
      const admitted = check(state, { now, coolDownMs })
      if (!admitted.ok) throw new BreakerOpenError({ retryAt: admitted.retryAt })
      return state.status === 'closed' ? state : { status: 'half_open', since: now }
    }
    case 'success':
      // A call admitted before the breaker opened does not close it early; only the probe does.
      return state.status === 'open' ? state : initial
    case 'failure':
      if (state.status === 'closed' && state.failures + 1 < threshold)
        return { status: 'closed', failures: state.failures + 1 }
      // Failures of calls admitted before the breaker opened do not extend the cool-down.
      if (state.status === 'open') return state
      return { status: 'open', until: now + coolDownMs }
  }
}

export declare namespace transition {
  type Parameters = Options & {
    /** Current time, epoch ms. */
    now: number
  }
}
