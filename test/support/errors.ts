import { expect } from 'bun:test'
import { ValidationError } from '../../core/Errors.js'

/** Runs `fn`, expects a ValidationError, and returns the field it names. */
export function fieldOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError)
    return (error as ValidationError).field
  }
  throw new Error('expected a ValidationError')
}
