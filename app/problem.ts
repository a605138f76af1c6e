import { type BaseError, type Code, InternalError } from '../core/Errors.js'

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

/** Renders a problem as an `application/problem+json` response; `headers` add to or replace the defaults. */
export function toResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  const all = new Headers({ 'content-type': 'application/problem+json', 'cache-control': 'no-store' })
  // Set, not append: a header named in another letter case replaces the default rather than repeating it.
  for (const [name, value] of Object.entries(headers)) all.set(name, value)
  return new Response(JSON.stringify(problem), { status: problem.status, headers: all })
}
