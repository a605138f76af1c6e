import { describe, expect, test } from 'bun:test'
import * as Units from '../../core/Units.js'
import { fieldOf } from '../support/errors.js'

describe('units', () => {
  test('default', () => {
    expect(
      Object.fromEntries(Object.entries(Units.units).map(([name, unit]) => [name, `${unit.family}/${unit.decimals}`])),
    ).toMatchInlineSnapshot(`
      {
        "drops": "xrp/0",
        "eth": "eth/18",
        "ether": "eth/18",
        "gwei": "eth/9",
        "lamports": "sol/0",
        "sol": "sol/9",
        "stroops": "xlm/0",
        "wei": "eth/0",
        "xlm": "xlm/7",
        "xrp": "xrp/6",
      }
    `)
  })

  test('behavior: every family has its whole and base unit in the table', () => {
    for (const [family, { whole, base }] of Object.entries(Units.families)) {
      expect(Units.units[whole].family).toBe(family as Units.Family)
      expect(Units.units[base]).toEqual({ family: family as Units.Family, decimals: 0 })
    }
  })
})

describe('isNativeUnit', () => {
  test('default', () => {
    expect(Units.isNativeUnit('wei')).toBe(true)
  })

  test('behavior: case-insensitive', () => {
    expect(Units.isNativeUnit('GWei')).toBe(true)
    expect(Units.isNativeUnit('LAMPORTS')).toBe(true)
  })

  test('behavior: fiat, tickers of other assets and prototype keys are not native units', () => {
    for (const name of ['usd', 'btc', 'usdc', '', 'constructor', 'toString', '__proto__', ' wei'])
      expect(Units.isNativeUnit(name)).toBe(false)
  })
})

describe('family', () => {
  test('default', () => {
    expect(Units.family('gwei')).toBe('eth')
  })

  test.each([
    ['wei', 'eth'],
    ['ETH', 'eth'],
    ['lamports', 'sol'],
    ['Sol', 'sol'],
    ['drops', 'xrp'],
    ['xrp', 'xrp'],
    ['stroops', 'xlm'],
    ['XLM', 'xlm'],
  ] as const)('behavior: %s -> %s', (name, expected) => {
    expect(Units.family(name)).toBe(expected)
  })

  test('behavior: undefined for anything else', () => {
    expect(Units.family('usd')).toBeUndefined()
    expect(Units.family('hasOwnProperty')).toBeUndefined()
  })
})

describe('wholeUnitOf', () => {
  test('default', () => {
    expect(Units.wholeUnitOf('gwei')).toEqual({ name: 'ether', symbol: 'ETH', decimals: 18, family: 'eth' })
  })

  test.each([
    ['lamports', 'sol', 'SOL', 9],
    ['DROPS', 'xrp', 'XRP', 6],
    ['stroops', 'xlm', 'XLM', 7],
    ['eth', 'ether', 'ETH', 18],
  ] as const)('behavior: %s -> %s (%s, %i decimals)', (unit, name, symbol, decimals) => {
    expect(Units.wholeUnitOf(unit)).toMatchObject({ name, symbol, decimals })
  })

  test('error: not a native unit', () => {
    expect(fieldOf(() => Units.wholeUnitOf('usd'))).toBe('unit')
  })
})

describe('convert', () => {
  test('default', () => {
    expect(Units.convert({ amount: '1.5', from: 'ether', to: 'wei' })).toEqual({
      amount: '1500000000000000000',
      from: 'ether',
      to: 'wei',
      atomic: '1500000000000000000',
      exact: true,
    })
  })

  test.each([
    // amount, from, to, expected amount, expected atomic
    ['1', 'wei', 'ether', '0.000000000000000001', '1'],
    ['1', 'wei', 'gwei', '0.000000001', '1'],
    ['1', 'gwei', 'wei', '1000000000', '1000000000'],
    ['1', 'ether', 'gwei', '1000000000', '1000000000000000000'],
    ['0.000000001', 'ether', 'gwei', '1', '1000000000'],
    ['1.000000000000000001', 'ether', 'wei', '1000000000000000001', '1000000000000000001'],
    ['21000', 'gwei', 'eth', '0.000021', '21000000000000'],
    ['2.5', 'eth', 'ether', '2.5', '2500000000000000000'],
    ['1', 'lamports', 'sol', '0.000000001', '1'],
    ['0.5', 'sol', 'lamports', '500000000', '500000000'],
    ['12', 'drops', 'xrp', '0.000012', '12'],
    ['100', 'xrp', 'drops', '100000000', '100000000'],
    ['100', 'stroops', 'xlm', '0.00001', '100'],
    ['1.2345678', 'xlm', 'stroops', '12345678', '12345678'],
    ['0', 'ether', 'wei', '0', '0'],
    ['0.0', 'gwei', 'ether', '0', '0'],
    ['7', 'wei', 'wei', '7', '7'],
    ['1.50', 'ether', 'ether', '1.5', '1500000000000000000'],
    ['007', 'wei', 'gwei', '0.000000007', '7'],
    ['1.0', 'wei', 'ether', '0.000000000000000001', '1'],
  ])('behavior: %s %s -> %s %s', (amount, from, to, expected, atomic) => {
    const result = Units.convert({ amount, from, to })
    expect(result.amount).toBe(expected)
    expect(result.atomic).toBe(atomic)
    expect(result.exact).toBe(true)
  })

  test('behavior: names come back lowercase', () => {
    expect(Units.convert({ amount: '1', from: 'ETHER', to: 'GWei' })).toMatchObject({ from: 'ether', to: 'gwei' })
  })

  test('behavior: exact at 78 integer digits, beyond uint256, with no exponent in the output', () => {
    const integer = '9'.repeat(78)
    const toWei = Units.convert({ amount: `${integer}.999999999999999999`, from: 'ether', to: 'wei' })
    expect(toWei.amount).toBe(`${integer}999999999999999999`)
    expect(toWei.atomic).toBe(toWei.amount)
    const toEther = Units.convert({ amount: integer, from: 'wei', to: 'ether' })
    expect(toEther.amount).toBe(`${'9'.repeat(60)}.${'9'.repeat(18)}`)
    expect(toEther.amount).not.toMatch(/e/i)
  })

  test('behavior: exact where a float would round', () => {
    // 2^53 + 1 wei and 0.1 + 0.2 style inputs stay exact.
    expect(Units.convert({ amount: '9007199254740993', from: 'wei', to: 'gwei' }).amount).toBe('9007199.254740993')
    expect(Units.convert({ amount: '0.3', from: 'ether', to: 'wei' }).amount).toBe('300000000000000000')
  })

  test('behavior: round-trips every unit pair of one family exactly', () => {
    const amount = '123456789.000000001'
    for (const from of ['gwei', 'sol'] as const) {
      const family = Units.units[from].family
      for (const to of Object.keys(Units.units) as Units.Unit[]) {
        if (Units.units[to].family !== family) continue
        const there = Units.convert({ amount, from, to })
        expect(Units.convert({ amount: there.amount, from: to, to: from }).amount).toBe(amount)
      }
    }
  })

  test.each([
    ['0.5', 'wei', 'ether', 'wei has no fractional part'],
    ['1.5', 'lamports', 'sol', 'lamports has no fractional part'],
    ['0.1', 'drops', 'xrp', 'drops has no fractional part'],
    ['0.1', 'stroops', 'xlm', 'stroops has no fractional part'],
    ['0.0000000001', 'gwei', 'wei', 'gwei has at most 9 decimal places'],
    ['0.0000001', 'xrp', 'drops', 'xrp has at most 6 decimal places'],
    ['0.00000001', 'xlm', 'stroops', 'xlm has at most 7 decimal places'],
    ['1.0000000000000000001', 'ether', 'wei', 'ether has at most 18 decimal places'],
  ])('error: %s %s is finer than the base unit', (amount, from, to, message) => {
    expect(() => Units.convert({ amount, from, to })).toThrow(`amount: ${message}`)
    expect(fieldOf(() => Units.convert({ amount, from, to }))).toBe('amount')
  })

  test.each([
    ['1e18', 'scientific notation'],
    ['1E-9', 'scientific notation'],
    ['-1', 'negative'],
    ['+1', 'not a decimal amount'],
    ['.5', 'not a decimal amount'],
    ['5.', 'not a decimal amount'],
    ['1,5', 'not a decimal amount'],
    [' 1', 'not a decimal amount'],
    ['0x10', 'not a decimal amount'],
    ['Infinity', 'not a decimal amount'],
    ['NaN', 'not a decimal amount'],
    ['', 'required'],
    ['1'.repeat(79), 'more than 78 integer digits'],
  ])('error: amount %p', (amount, message) => {
    expect(() => Units.convert({ amount, from: 'ether', to: 'wei' })).toThrow(message)
    expect(fieldOf(() => Units.convert({ amount, from: 'ether', to: 'wei' }))).toBe('amount')
  })

  test('error: unknown source unit names field from', () => {
    expect(fieldOf(() => Units.convert({ amount: '1', from: 'finney', to: 'wei' }))).toBe('from')
    expect(() => Units.convert({ amount: '1', from: 'finney', to: 'wei' })).toThrow('expected one of wei, gwei')
  })

  test('error: unknown target unit names field to', () => {
    expect(fieldOf(() => Units.convert({ amount: '1', from: 'wei', to: 'usd' }))).toBe('to')
  })

  test.each([
    ['wei', 'sol'],
    ['lamports', 'ether'],
    ['xrp', 'xlm'],
    ['stroops', 'drops'],
  ])('error: %s -> %s crosses assets and needs a price source', (from, to) => {
    expect(fieldOf(() => Units.convert({ amount: '1', from, to }))).toBe('to')
    expect(() => Units.convert({ amount: '1', from, to })).toThrow('needs a price source')
  })
})

describe('fromDecimal', () => {
  test.each([
    ['2500', 6, 2_500_000_000n],
    ['2500.5', 6, 2_500_500_000n],
    [2500, 6, 2_500_000_000n],
    [0.5, 18, 500_000_000_000_000_000n],
    ['1.000000', 6, 1_000_000n],
    ['0.000001', 6, 1n],
  ])('behavior: %p with %p decimals is %p atomic units', (value, decimals, expected) => {
    expect(Units.fromDecimal({ value, decimals, field: 'amount' })).toBe(expected)
  })

  test.each([
    ['0.0000001', 'has at most 6 decimal places here'],
    ['1e6', 'scientific notation'],
    [1e21, 'scientific notation'],
    ['-1', 'negative'],
    ['', 'required'],
    [null, 'required'],
    ['1,5', 'not a decimal amount'],
  ])('error: %p is refused, naming the field', (value, message) => {
    expect(() => Units.fromDecimal({ value, decimals: 6, field: 'employees[0].amount' })).toThrow(message)
    expect(fieldOf(() => Units.fromDecimal({ value, decimals: 6, field: 'employees[0].amount' }))).toBe(
      'employees[0].amount',
    )
  })

  test('behavior: toDecimal gives the human decimal back', () => {
    expect(Units.toDecimal(2_500_500_000n, 6)).toBe('2500.5')
    expect(Units.toDecimal(2_500_000_000n, 6)).toBe('2500')
  })
})

describe('toAmount', () => {
  test('default: atomic units and the human decimal, both decimal strings', () => {
    expect(Units.toAmount(2_500_000n, 6)).toEqual({ raw: '2500000', formatted: '2.5' })
    expect(Units.toAmount(2n ** 256n - 1n, 18).raw).toBe((2n ** 256n - 1n).toString())
  })

  test('behavior: with the decimals unknown, formatted is null', () => {
    expect(Units.toAmount(42n, null)).toEqual({ raw: '42', formatted: null })
  })
})
