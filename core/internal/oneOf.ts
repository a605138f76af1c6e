import { ValidationError } from '../Errors.js'

/**
 * A vocabulary value as callers may send it, in any case: the accepted word it names, lowercase, or a 400 naming
 * `field` and every accepted word. `undefined` stays `undefined` (the field was not given).
 */
export function oneOf<const word extends string>(
  value: string | undefined,
  accepted: readonly word[],
  field: string,
): word | undefined {
  if (value === undefined) return undefined
  const found = accepted.find((candidate) => candidate === value.toLowerCase())
  if (found === undefined) throw new ValidationError({ field, message: `must be one of ${accepted.join(', ')}` })
  return found
}
