import { describe, expect, test } from 'bun:test'
import * as Errors from '../../core/Errors.js'

/** A concrete error class; each constructor takes a message or a parameters object first. */
type Concrete = new (parameters: unknown) => Errors.BaseError

/** Every concrete error class core/Errors.ts exports, by its exported name. */
const classes = Object.entries(Errors).flatMap(([name, value]) =>
  typeof value === 'function' && value.prototype instanceof Errors.BaseError
    ? [[name, value as unknown as Concrete] as const]
    : [],
)

/** An instance of an error class, whatever its constructor takes. */
function instanceOf(type: Concrete): Errors.BaseError {
  return new type({ message: 'm', field: 'f', limitBytes: 1, retryAt: 0, reason: 'expired' })
}

describe('Errors', () => {
  test('behavior: finds the classes it checks', () => {
    expect(classes.length).toBeGreaterThan(20)
  })

  test.each(classes)('behavior: %s sets its own name, a snake_case code and a title', (exported, type) => {
    const error = instanceOf(type)
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe(exported)
    expect(error.code).toMatch(/^[a-z]+(_[a-z]+)*$/)
    expect(error.title.length).toBeGreaterThan(0)
  })
})
