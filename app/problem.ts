import { type BaseError, type Code, InternalError } from '../core/Errors.js'
import { echo } from '../core/internal/echo.js'

/** The one place where an error code becomes an HTTP status. */
export const statusOf = {
  bad_request: 400,
  rate_limited: 429,
  validation_failed: 400,
  malformed_json: 400,
  payload_too_large: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  unsupported_media_type: 415,
  not_found: 404,
  no_route: 422,
  forbidden: 403,
  conflict: 409,
  method_not_allowed: 405,
  not_implemented: 501,
  upstream_unavailable: 503,
  upstream_failed: 502,
  upstream_rejected: 400,
  upstream_timeout: 504,
  payment_required: 402,
  payment_in_progress: 503,
  idempotency_conflict: 409,
  response_not_retained: 410,
  internal_error: 500,
  // A refused payment is answered with the offer again; an undecided settlement is no refusal but a retry later.
  invalid_signature: 402,
  amount_mismatch: 402,
  wrong_payee: 402,
  wrong_network: 402,
  wrong_asset: 402,
  not_yet_valid: 402,
  expired: 402,
  replayed: 402,
  insufficient_funds: 402,
  challenge_mismatch: 402,
  malformed_payment: 402,
  settlement_failed: 402,
  settlement_pending: 503,
  // x402 `upto`: the payer has not approved Permit2 and sent no EIP-2612 permit; one approval, then retry.
  allowance_required: 412,
} as const satisfies Record<Code, number>

/** An RFC 9457 problem details object, with the project's stable `code`. */
export type Problem = {
  /** URI reference naming the problem type. */
  type: string
  /** Short human summary of the type. */
  title: string
  /** HTTP status. */
  status: number
  /** Human explanation of this occurrence. */
  detail: string
  /** Stable snake_case code. */
  code: Code
  /** Request path of this occurrence. */
  instance?: string
  /** Id of the request, as in its `X-Request-Id` response header and the logs. */
  requestId?: string
  /** Any further fields safe to show (never request secrets). */
  [extension: string]: unknown
}

/**
 * Builds the problem object of an error: the one function every problem document comes from, 402 included. The
 * error's details become extension members.
 */
export function fromError(error: BaseError, instance?: string, requestId?: string): Problem {
  // Details come first so that no detail key can overwrite a standard member such as `status`.
  return {
    ...error.details,
    type: `https://errors.agent-gateway.dev/${error.code}`,
    title: error.title,
    status: statusOf[error.code],
    detail: error.message,
    code: error.code,
    ...(instance === undefined ? {} : { instance }),
    ...(requestId === undefined ? {} : { requestId }),
  }
}

/** The problem shown for an unexpected fault; the fault itself is logged (with `requestId`), never shown. */
export function internal(instance?: string, requestId?: string): Problem {
  return fromError(new InternalError(), instance, requestId)
}

/** Most characters of the request path a problem's `instance` repeats: every route's path fits, a made-up one is cut. */
const maxInstanceLength = 128

/** The `instance` of a problem: the request path, bounded. */
export function instanceOf(request: Request): string {
  return echo(new URL(request.url).pathname, maxInstanceLength)
}

/** Renders a problem as an `application/problem+json` response; `headers` add to or replace the defaults. */
export function toResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return respond(problem.status, JSON.stringify(problem), headers)
}

/**
 * The problem document of `error` for any instance and request id, as {@link fromError} and {@link toResponse} write
 * it, byte for byte: everything but those two members is serialized once, for an answer given again and again (a
 * route's plain 402).
 */
export function template(error: BaseError): {
  status: number
  render: (instance: string, requestId?: string) => string
} {
  const problem = fromError(error)
  if ('instance' in problem || 'requestId' in problem)
    throw new Error(`The details of ${error.code} name a member the template appends.`)
  const head = JSON.stringify(problem).slice(0, -1)
  return {
    status: problem.status,
    render: (instance, requestId) =>
      `${head},"instance":${JSON.stringify(instance)}${requestId === undefined ? '' : `,"requestId":${JSON.stringify(requestId)}`}}`,
  }
}

/** An `application/problem+json` response of a serialized problem; `headers` add to or replace the defaults. */
export function respond(status: number, json: string, headers: Record<string, string> = {}): Response {
  return new Response(json, { status, headers: withDefaults(headers) })
}

/**
 * The headers of an answer given again and again (a route's plain 402): the defaults and `fixed`, checked and copied
 * into a `Headers` once; `with` clones them and sets what changes from one answer to the next.
 */
export function fixedHeaders(fixed: Record<string, string>): { with: (varying: Record<string, string>) => Headers } {
  const headers = new Headers(withDefaults(fixed))
  return {
    with(varying) {
      const cloned = new Headers(headers)
      for (const name in varying) cloned.set(name, varying[name]!)
      return cloned
    },
  }
}

/** The defaults of a problem answer and `headers`, by lowercase name: another letter case replaces a default. */
function withDefaults(headers: Record<string, string>): Record<string, string> {
  const all: Record<string, string> = { 'content-type': 'application/problem+json', 'cache-control': 'no-store' }
  for (const name in headers) all[name.toLowerCase()] = headers[name]!
  return all
}
