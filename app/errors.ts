import { ValidationError as ElysiaValidationError } from 'elysia'
import {
  BaseError,
  MalformedJsonError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  type ValidationError,
} from '../core/Errors.js'
import { echo } from '../core/internal/echo.js'
import { fromFault } from './fault.js'
import * as Input from './input.js'
import { describeError, type Logger } from './log.js'
import type { guard } from './payment/guard.js'
import * as Problem from './problem.js'
import * as RequestId from './request-id.js'

/**
 * How the gateway answers what a request threw, as problem+json: its own errors as they are, a chain's or an
 * upstream's fault as its error (logged, without messages), Elysia's parse, validation and routing failures as the
 * gateway's own, anything else as a 500 that names nothing. A payment held for the request is released first: a call
 * that threw is never charged.
 */
export function errorAnswers(parameters: errorAnswers.Parameters): errorAnswers.ReturnType {
  const { payments, logger, routes } = parameters

  function render(error: BaseError, request: Request): Response {
    const headers = RequestId.headersOf(request)
    if (error instanceof MethodNotAllowedError) headers.allow = ((error.details?.allow ?? []) as string[]).join(', ')
    // A handler's own limit (per payer) says when to come back, as the free endpoints' buckets do.
    if (error instanceof RateLimitedError) headers['retry-after'] = String(error.retryAfterSeconds)
    return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), headers)
  }

  function notFound(request: Request): BaseError {
    const path = new URL(request.url).pathname
    const allowed = routes()
      .filter((route) => route.pattern.test(path))
      .map((route) => route.method)
    if (allowed.length > 0)
      return new MethodNotAllowedError(
        `${echo(request.method)} is not allowed on ${echo(path)}; use ${allowed.join(', ')}.`,
        {
          details: { allow: allowed },
        },
      )
    return new NotFoundError(
      `No operation at ${echo(request.method)} ${echo(path)}. See /openapi.json for every operation.`,
    )
  }

  async function answer({ error, code, request }: { error: unknown; code: unknown; request: Request }) {
    await payments?.release(request, 'handler threw')
    const fault = fromFault(error)
    const problem = fault ?? (error instanceof BaseError ? error : undefined)
    if (problem) {
      if (isFault(problem)) {
        const path = new URL(request.url).pathname
        logger.log('warn', 'upstream_fault', {
          requestId: RequestId.of(request),
          method: request.method,
          path,
          code: problem.code,
          error: describeError(error),
        })
      }
      return render(problem, request)
    }
    // Elysia wraps what the body parser throws; the cause is ours (too large, not JSON, wrong media type).
    if (code === 'PARSE')
      return render(
        error instanceof Error && error.cause instanceof BaseError
          ? error.cause
          : new MalformedJsonError('The request body could not be read.'),
        request,
      )
    if (error instanceof ElysiaValidationError) return render(fromValidation(error), request)
    if (code === 'NOT_FOUND') return render(notFound(request), request)
    logger.log('error', 'unhandled_error', {
      requestId: RequestId.of(request),
      method: request.method,
      path: new URL(request.url).pathname,
      error: describeError(error),
    })
    return Problem.toResponse(
      Problem.internal(Problem.instanceOf(request), RequestId.of(request)),
      RequestId.headersOf(request),
    )
  }

  return { answer, render }
}

export declare namespace errorAnswers {
  type Parameters = {
    /** The payment guard, whose held payment a request that threw releases. */
    payments: guard.ReturnType | undefined
    /** Where faults and unhandled errors are logged. */
    logger: Logger
    /** Every route's method and path pattern, once mounted: a path with other methods is a 405 naming them. */
    routes: () => readonly Route[]
  }
  type ReturnType = {
    /** The answer to what a request threw (`code` is Elysia's name of the failure, such as `PARSE`). */
    answer: (thrown: { error: unknown; code: unknown; request: Request }) => Promise<Response>
    /** One of the gateway's errors as problem+json, with `Allow` or `Retry-After` where the error says them. */
    render: (error: BaseError, request: Request) => Response
  }
  type Route = { method: string; pattern: RegExp }
}

/** A route's method and the pattern of the paths it matches (`:name` segments match any one segment). */
export function routeOf(route: { method: string; path: string }): errorAnswers.Route {
  const pattern = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')
  return { method: route.method, pattern: new RegExp(`^${pattern}/?$`) }
}

/**
 * Whether a problem is a chain node or upstream failing a call, worth a log line (without messages). An upstream
 * found unavailable before the call (not configured, breaker open) has no cause and is no fault of the moment.
 */
function isFault(problem: BaseError): boolean {
  if (problem.code === 'upstream_unavailable') return problem.cause !== undefined
  return problem.code === 'upstream_failed' || problem.code === 'upstream_timeout'
}

// The raw first failure, not Elysia's `all`: `all` formats every failing value into a string, which throws on some.
function fromValidation(error: ElysiaValidationError): ValidationError {
  const location = error.type === 'query' ? 'query' : error.type === 'params' ? 'path' : 'body'
  const first = error.valueError as { path?: unknown; message?: unknown } | undefined
  return Input.fromValueError(
    first && typeof first.path === 'string' && typeof first.message === 'string'
      ? { path: first.path, message: first.message }
      : undefined,
    location,
  )
}
