import { BaseError, type Code } from '../core/Errors.js'

/** The one place where an error code becomes an HTTP status. */
export const statusOf = {
  bad_request: 400,
  validation_failed: 400,
  malformed_json: 400,
  payload_too_large: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  unsupported_media_type: 415,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
  method_not_allowed: 405,
  not_implemented: 501,
  upstream_unavailable: 503,
  upstream_failed: 502,
  upstream_rejected: 400,
  upstream_timeout: 504,
  payment_required: 402,
  settlement_pending: 503,
  payment_in_progress: 503,
  idempotency_conflict: 409,
  response_not_retained: 410,
  internal_error: 500,
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
  /** Any further fields safe to show (never request secrets). */
  [extension: string]: unknown
}

/** Builds the problem object of an error raised on purpose. */
export function fromError(error: BaseError, instance?: string): Problem {
  // Details come first so that no detail key can overwrite a standard member such as `status`.
  return {
    ...error.details,
    type: `https://errors.agent-gateway.dev/${error.code}`,
    title: error.title,
    status: statusOf[error.code],
    detail: error.message,
    code: error.code,
    ...(instance === undefined ? {} : { instance }),
  }
}

/** The problem shown for an unexpected fault; the fault itself is logged, never shown. */
export function internal(instance?: string): Problem {
  return {
    type: 'https://errors.agent-gateway.dev/internal_error',
    title: 'Internal error',
    status: 500,
    detail: 'The gateway failed to complete the request. Nothing was charged.',
    code: 'internal_error',
    ...(instance === undefined ? {} : { instance }),
  }
}

/** Renders a problem as an `application/problem+json` response. */
export function toResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...headers },
  })
}
