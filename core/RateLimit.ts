/**
 * A token bucket for one vendor's rate limit: it holds at most `capacity` tokens, gains `refill` tokens every
 * `intervalMs` (pro rata, millisecond by millisecond), and every call takes one. `capacity: 1, refill: 1,
 * intervalMs: 3_000` is "one call per 3 s"; `capacity: 10, refill: 10, intervalMs: 1_000` is "10 per second, in
 * bursts of up to 10".
 *
 * The level is kept in integer units of token-milliseconds (one token is `intervalMs` units; each millisecond adds
 * `refill` units), so no rounding error ever admits a call early or refuses one late. Times are epoch milliseconds,
 * passed in: the bucket has no clock of its own.
 */

/** How a bucket fills and how much it holds. */
export type Options = {
  /** Most tokens the bucket holds: the largest burst of calls. */
  capacity: number
  /** Tokens added per interval. */
  refill: number
  /** Length of the interval, in ms. */
  intervalMs: number
}

/** What a bucket holds, as of `updatedAt`. */
export type State = {
  /** Tokens held, times `intervalMs` (see the module comment). */
  level: number
  /** Epoch ms when `level` was computed. */
  updatedAt: number
}

/** A full bucket at `now`. */
export function initial(options: Options, now: number): State {
  assert(options)
  return { level: options.capacity * options.intervalMs, updatedAt: now }
}

/** The bucket at `now`: topped up for the time elapsed since it was last computed, never above capacity. */
export function refill(state: State, parameters: Options & { /** Current time, epoch ms. */ now: number }): State {
  const { capacity, refill, intervalMs, now } = parameters
  // A clock that steps back adds nothing (and takes nothing away).
  const elapsed = Math.max(0, now - state.updatedAt)
  return {
    level: Math.min(capacity * intervalMs, state.level + elapsed * refill),
    updatedAt: Math.max(now, state.updatedAt),
  }
}

/**
 * Whether a call may start at `now`, without taking a token: yes when the bucket holds one; otherwise the epoch ms
 * when it will.
 */
export function check(state: State, parameters: check.Parameters): check.ReturnType {
  const { intervalMs, refill: perInterval } = parameters
  const current = refill(state, parameters)
  if (current.level >= intervalMs) return { ok: true }
  return { ok: false, retryAt: current.updatedAt + Math.ceil((intervalMs - current.level) / perInterval) }
}

export declare namespace check {
  type Parameters = Options & {
    /** Current time, epoch ms. */
    now: number
  }
  type ReturnType =
    | { ok: true }
    | {
        ok: false
        /** Epoch ms when a token will be there. */
        retryAt: number
      }
}

/** Takes one token at `now`: the bucket after it, or (the bucket unchanged but topped up) when a token will be there. */
export function take(state: State, parameters: take.Parameters): take.ReturnType {
  const current = refill(state, parameters)
  const checked = check(current, parameters)
  if (!checked.ok) return { ok: false, retryAt: checked.retryAt, state: current }
  return { ok: true, state: { level: current.level - parameters.intervalMs, updatedAt: current.updatedAt } }
}

export declare namespace take {
  type Parameters = check.Parameters
  type ReturnType =
    | {
        /** A token was taken. */
        ok: true
        /** The bucket after it. */
        state: State
      }
    | {
        /** No token now. */
        ok: false
        /** Epoch ms when a token will be there. */
        retryAt: number
        /** The bucket, topped up to `now`. */
        state: State
      }
}

/** Throws when the options describe no bucket: each of capacity, refill and interval a positive integer. */
export function assert(options: Options): void {
  const { capacity, refill, intervalMs } = options
  for (const [name, value] of Object.entries({ capacity, refill, intervalMs }))
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`A rate limit's ${name} must be a positive integer; got ${String(value)}.`)
}
