import { describe, expect, test } from 'bun:test'
import * as Price from '../../core/Price.js'

/** 0.01 USD per unit of `size`. */
const perSize: Price.Rule<{ size: number }> = {
  description: '$0.01 per size unit',
  amount: ({ body }) => BigInt(body.size) * 10_000n,
}

const range = Price.fromStated('0.02-0.08')
const input = (size: number) => ({ body: { size }, query: {}, params: {} })

describe('quote', () => {
  test('default: a fixed price is its amount, whatever the request', () => {
    expect(Price.quote({ price: Price.fromStated('0.005') })).toBe(5_000n)
    expect(Price.quote({ price: Price.fromStated('0.005'), rule: perSize, input: input(7) })).toBe(5_000n)
  })

  test('behavior: a range is the rule amount for this request', () => {
    expect(Price.quote({ price: range, rule: perSize, input: input(3) })).toBe(30_000n)
    expect(Price.quote({ price: range, rule: perSize, input: input(5) })).toBe(50_000n)
  })

  test('behavior: an amount outside the range is held at its nearer bound', () => {
    expect(Price.quote({ price: range, rule: perSize, input: input(1) })).toBe(20_000n)
    expect(Price.quote({ price: range, rule: perSize, input: input(2) })).toBe(20_000n)
    expect(Price.quote({ price: range, rule: perSize, input: input(8) })).toBe(80_000n)
    expect(Price.quote({ price: range, rule: perSize, input: input(20) })).toBe(80_000n)
  })

  test('behavior: varies is held within the bounds its rule states; a range ignores them', () => {
    const bounded = { ...perSize, bounds: { min: 15_000n, max: 40_000n } }
    expect(Price.quote({ price: { type: 'varies' }, rule: bounded, input: input(1) })).toBe(15_000n)
    expect(Price.quote({ price: { type: 'varies' }, rule: bounded, input: input(3) })).toBe(30_000n)
    expect(Price.quote({ price: { type: 'varies' }, rule: bounded, input: input(9) })).toBe(40_000n)
    expect(Price.quote({ price: range, rule: bounded, input: input(1) })).toBe(20_000n)
  })

  test('error: a free price, a range without a rule, varies without bounds have no amount', () => {
    expect(() => Price.quote({ price: { type: 'free' } })).toThrow('no amount')
    expect(() => Price.quote({ price: range })).toThrow('needs a rule')
    expect(() => Price.quote({ price: { type: 'varies' }, rule: perSize, input: input(1) })).toThrow('bounds')
  })
})

describe('boundsOf', () => {
  test('default', () => {
    expect(Price.boundsOf(Price.fromStated('0.005'))).toEqual({ min: 5_000n, max: 5_000n })
    expect(Price.boundsOf(range)).toEqual({ min: 20_000n, max: 80_000n })
    expect(Price.boundsOf({ type: 'varies' }, { ...perSize, bounds: { min: 1n, max: 2n } })).toEqual({
      min: 1n,
      max: 2n,
    })
  })

  test('error: bounds that are not a positive range', () => {
    expect(() => Price.boundsOf({ type: 'varies' }, { ...perSize, bounds: { min: 0n, max: 2n } })).toThrow(
      'positive range',
    )
    expect(() => Price.boundsOf({ type: 'varies' }, { ...perSize, bounds: { min: 3n, max: 2n } })).toThrow(
      'positive range',
    )
  })
})
