import type * as Breaker from './Breaker.js'
import {
  type BaseError,
  UpstreamFailedError,
  UpstreamRejectedError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from './Errors.js'

/**
 * What every vendor port has in common: a call's outcome comes back as data, and the port says whether calls may
 * start at all, so the gateway refuses an unhealthy upstream's endpoints before any payment.
 */

/** Why an upstream call produced no answer. */
export type Reason =
  /** The upstream judged the caller's input invalid (HTTP 400 or 422). */
  | 'rejected'
  /** The upstream asks us to slow down (HTTP 429). */
  | 'rate_limited'
  /** Any other error status, a network fault, or an answer that is not what the API documents. */
  | 'failed'
  /** No answer within the time limit. */
  | 'timeout'
  /** The answer is larger than the adapter accepts. */
  | 'too_large'
  /** Refused before anything was sent: the circuit breaker is open, the rate limit has no token soon enough, or no key is set. */
  | 'unavailable'

/** A call that produced no answer. */
export type Failure = {
  /** No answer. */
  ok: false
  /** Why. */
  reason: Reason
  /** HTTP status the upstream answered, when it answered one. */
  status: number | undefined
  /** One sentence, safe to show the caller (never a key). */
  message: string
}

/** The outcome of an upstream call: a value, or a {@link Failure}. */
export type Outcome<value> = ({ ok: true } & value) | Failure

/** Whether an upstream's calls may start now. */
export type Availability =
  | { /** Calls may start. */ ok: true }
  | {
      /** Calls are refused. */
      ok: false
      /** One sentence. */
      reason: string
    }

/** How a vendor has fared in this process, for the operator's metrics and dashboard. */
export type Health = {
  /** Stable id of the vendor. */
  id: string
  /** Name of the vendor. */
  name: string
  /** Calls made (one per call, however many times it was sent). */
  calls: number
  /** Calls that said the vendor is unhealthy (timeouts, 5xx, unreachable). */
  failures: number
  /** Latency of the most recent calls, in seconds, oldest first. */
  seconds: number[]
  /** The breaker's state now (of the client that called last). */
  breaker: () => Breaker.State['status']
}

/** Every {@link Reason}. */
const reasons: ReadonlySet<string> = new Set<Reason>([
  'rejected',
  'rate_limited',
  'failed',
  'timeout',
  'too_large',
  'unavailable',
])

/**
 * Whether a port's answer is an upstream {@link Failure} rather than one of the port's own results. A port's own
 * refusals (`{ ok: false, reason }` in the vendor's codes, such as Horizon's `tx_bad_seq`) never carry `status`; a
 * failure always does, even when it is `undefined`. That is how the two are told apart.
 */
export function isFailure<value>(value: value | Failure): value is Failure {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as { ok?: unknown; reason?: unknown; message?: unknown }
  return (
    candidate.ok === false &&
    'status' in candidate &&
    typeof candidate.message === 'string' &&
    reasons.has(String(candidate.reason))
  )
}

/** The reason an HTTP error status stands for. */
export function reasonOf(status: number): Exclude<Reason, 'timeout' | 'too_large' | 'unavailable'> {
  if (status === 400 || status === 422) return 'rejected'
  if (status === 429) return 'rate_limited'
  return 'failed'
}

/**
 * Whether a failure says the upstream is unhealthy, and so counts toward its circuit breaker. Input the upstream
 * rejected says nothing about its health; an answer that is too large is one call's problem.
 */
export function isUnhealthy(failure: Failure): boolean {
  return failure.reason === 'failed' || failure.reason === 'timeout' || failure.reason === 'rate_limited'
}

/** The value of a port's outcome; its failure is thrown as {@link toError} makes it (503 and friends, nothing charged). */
export function toValue<value>(outcome: Outcome<value>): value {
  if (!outcome.ok) throw toError(outcome)
  return outcome
}

/** The error a handler throws for an upstream's failure; a handler that throws charges nothing. */
export function toError(failure: Failure): BaseError {
  const details = { upstream: { status: failure.status ?? null, reason: failure.reason, message: failure.message } }
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`
  switch (failure.reason) {
    case 'rejected':
      return new UpstreamRejectedError(`The upstream refused the request${status}: ${failure.message}`, { details })
    case 'timeout':
      return new UpstreamTimeoutError(`The upstream did not answer in time: ${failure.message}`, { details })
    case 'rate_limited':
    case 'unavailable':
      return new UpstreamUnavailableError(`The upstream is unavailable for now${status}: ${failure.message}`, {
        details,
      })
    case 'failed':
    case 'too_large':
      return new UpstreamFailedError(`The upstream failed${status}: ${failure.message}`, { details })
  }
}
