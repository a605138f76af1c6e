import { describe, expect, test } from 'bun:test'
import * as Holdings from '../../core/Holdings.js'

describe('usdValue', () => {
  test.each([
    // balance, decimals, usd, micro-dollars
    [1_500_000_000_000_000_000n, 18, '3000', 4_500_000_000n],
    [2_500_000_000n, 6, '0.9998', 2_499_500_000n],
    [1n, 18, '3000', 0n],
    [7n, 0, '0.000001', 7n],
    [123_456_789n, 8, '65432.1', 80_780_369_635n],
    [10n ** 30n, 18, '0.000000000012345678901234567890', 12_345_678n],
  ])(
    'behavior: %p atomic units of %p decimals at $%p is %p micro-dollars, rounded down',
    (balance, decimals, usd, value) => {
      expect(Holdings.usdValue({ balance, decimals, usd })).toBe(value)
    },
  )

  test('error: a price that is not a plain decimal prices nothing', () => {
    for (const usd of ['', '1e-7', '-1', '1.', '.5', '1,5', 'NaN'])
      expect(Holdings.usdValue({ balance: 1n, decimals: 0, usd })).toBeUndefined()
  })
})
