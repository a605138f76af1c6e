import type { TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import { ValidationError } from '../core/Errors.js'
import { echo } from '../core/internal/echo.js'

// Rules every route's input follows, applied by the gateway before any module hook and before any payment is
// asked for. Messages name the field and the rule, never the value: a value may be a secret or very long.

/** Where a request value travels, as problem details name it. */
export type Location = 'path' | 'query' | 'body'

/** The schemas one route validates its input with, by location. */
export type Schemas = {
  /** Path parameters. */
  path?: TSchema | undefined
  /** Query parameters. */
  query?: TSchema | undefined
  /** JSON body. */
  body?: TSchema | undefined
}

/** The request values of one route, by location, as the framework parsed them. */
export type Values = {
  /** Path parameters. */
  path: unknown
  /** Query parameters. */
  query: unknown
  /** JSON body; `undefined` when there is none. */
  body: unknown
}

/** Most schema failures looked at per location, as many as the framework's error formatter reads. */
const maxErrors = 64

/**
 * Refuses, naming the first failing field, input whose schema failures include a value JavaScript cannot turn into
 * a string: a JSON object whose `toString` is not a function, such as `{"toString":1}`. The framework's error
 * formatter interpolates failing values into its message and throws a TypeError on such a value (a 500); refused
 * here first, the failure is an ordinary 400. Other failures are left to the route's own hooks and validation.
 */
export function assertPrintable(schemas: Schemas, values: Values): void {
  for (const location of ['path', 'query', 'body'] as const) {
    const schema = schemas[location]
    const value = values[location]
    if (schema === undefined || value === undefined || Value.Check(schema, value)) continue
    let seen = 0
    for (const error of Value.Errors(schema, value)) {
      if (!printable(error.value)) throw fromValueError(Value.Errors(schema, value).First(), location)
      if (++seen >= maxErrors) break
    }
  }
}

/**
 * Refuses a query that gives one parameter more than once (`?id=a&id=b`, also when one name is percent-encoded):
 * which of the values counts would otherwise be the framework's choice, and a check could read another than the handler.
 */
export function assertSingleQuery(url: string): void {
  const start = url.indexOf('?')
  if (start === -1) return
  const seen = new Set<string>()
  for (const name of new URLSearchParams(url.slice(start + 1)).keys()) {
    if (seen.has(name))
      throw new ValidationError({
        field: echo(name),
        message: 'is given more than once; give each query parameter once (in query)',
      })
    seen.add(name)
  }
}

/**
 * Removes from `query` (in place) the parameters its schema does not name, so a handler that spreads its query never
 * receives one: an undeclared `caller` must not stand in for the verified payer. Routes without a query schema read
 * no query at all.
 */
export function dropUndeclared(schema: TSchema | undefined, query: Record<string, unknown>): void {
  const properties = schema?.properties as Record<string, unknown> | undefined
  if (properties === undefined || schema?.additionalProperties === true) return
  for (const name of Object.keys(query)) if (!Object.hasOwn(properties, name)) delete query[name]
}

/** The ValidationError of a schema failure: the field by its dotted path and the rule it breaks, never the value. */
export function fromValueError(
  error: Pick<ValueError, 'path' | 'message'> | undefined,
  location: Location,
): ValidationError {
  const path =
    error === undefined
      ? ''
      : error.path.replace(/^\//, '').replaceAll('/', '.').replaceAll('~1', '/').replaceAll('~0', '~')
  // The path may hold a key the caller made up (an unknown field).
  return new ValidationError({
    field: path === '' ? location : echo(path),
    message: `${error?.message ?? 'is invalid'} (in ${location})`,
  })
}

/** Whether `${value}` succeeds. */
function printable(value: unknown): boolean {
  try {
    return typeof `${value}` === 'string'
  } catch {
    return false
  }
}
