import { describe, expect, test } from 'bun:test'
import * as Batch from '../../../core/Batch.js'
import { ValidationError } from '../../../core/Errors.js'
import { echo, maxEchoLength } from '../../../core/internal/echo.js'

describe('echo', () => {
  test('default: a short string is repeated as it is', () => {
    expect(echo('0xabc')).toBe('0xabc')
    expect(echo('a'.repeat(maxEchoLength))).toBe('a'.repeat(maxEchoLength))
  })

  test('behavior: a long string is cut to 64 characters with an ellipsis', () => {
    expect(echo('a'.repeat(3000))).toBe(`${'a'.repeat(64)}…`)
    expect(echo('abcdef', 3)).toBe('abc…')
  })

  test('behavior: cuts whole code points, never half a surrogate pair', () => {
    expect(echo('😀'.repeat(100))).toBe(`${'😀'.repeat(64)}…`)
    expect(echo('😀'.repeat(64))).toBe('😀'.repeat(64))
  })
})

describe('Batch.validateRecipients', () => {
  test('security: a long recipient or amount is quoted at most 64 characters long', () => {
    for (const parameters of [
      { recipients: ['z'.repeat(3000)], amounts: ['1'] },
      { recipients: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'], amounts: [`-${'9'.repeat(3000)}`] },
    ]) {
      try {
        Batch.validateRecipients(parameters)
        throw new Error('expected a ValidationError')
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError)
        expect((error as Error).message.length).toBeLessThan(300)
        expect((error as Error).message).toContain('…')
      }
    }
  })
})
