import { ValidationError } from '../Errors.js'

/**
 * Query parameters as they arrive (text), read before validation and payment: an integer in bounds or a boolean, or a
 * 400 naming the parameter. The gateway does not coerce query strings, so a route's schema types these as strings.
 */

/** An integer parameter (digits only) from `min` to `max`; `fallback` when it is absent. */
export function integerParameter<fallback extends number | undefined>(parameters: {
  /** The value as sent. */
  value: unknown
  /** The parameter, named by a refusal. */
  field: string
  /** Smallest value. */
  min: number
  /** Largest value. */
  max: number
  /** What an absent parameter reads as. */
  fallback: fallback
}): number | fallback {
  const { value, field, min, max, fallback } = parameters
  if (value === undefined || value === '') return fallback
  const text = String(value)
  if (!/^[0-9]{1,16}$/.test(text) || Number(text) < min || Number(text) > max)
    throw new ValidationError({ field, message: `must be an integer from ${min} to ${max}` })
  return Number(text)
}

/** A boolean parameter, `true` or `false`; `fallback` when it is absent. */
export function booleanParameter<fallback extends boolean | undefined>(parameters: {
  /** The value as sent. */
  value: unknown
  /** The parameter, named by a refusal. */
  field: string
  /** What an absent parameter reads as. */
  fallback: fallback
}): boolean | fallback {
  const { value, field, fallback } = parameters
  if (value === undefined || value === '') return fallback
  if (value === 'true' || value === true) return true
  if (value === 'false' || value === false) return false
  throw new ValidationError({ field, message: 'must be true or false' })
}
