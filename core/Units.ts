import { type TNumber, type TString, type TUnion, Type } from '@sinclair/typebox'
import { formatUnits } from 'viem'
import { ValidationError } from './Errors.js'

/**
 * Exact conversion between the native units of one asset (`wei` <-> `ether`, `lamports` <-> `sol`, ...),
 * as served by `GET /free/convert`. Pure bigint arithmetic: no rounding, no floats, no price source.
 * Conversion across assets or to fiat needs a price and lives elsewhere.
 */

/** Asset family a unit measures: EVM ether, Solana SOL, XRP, Stellar lumens. */
export type Family = 'eth' | 'sol' | 'xrp' | 'xlm'

/** Every native unit, lowercase, with the power of ten of base units it holds (1 ether = 10^18 wei). */
export const units = {
  /** EVM base unit. */
  wei: { family: 'eth', decimals: 0 },
  /** 10^9 wei; the unit gas prices are quoted in. */
  gwei: { family: 'eth', decimals: 9 },
  /** 10^18 wei. */
  ether: { family: 'eth', decimals: 18 },
  /** Alias of `ether`. */
  eth: { family: 'eth', decimals: 18 },
  /** Solana base unit. */
  lamports: { family: 'sol', decimals: 0 },
  /** 10^9 lamports. */
  sol: { family: 'sol', decimals: 9 },
  /** XRP Ledger base unit. */
  drops: { family: 'xrp', decimals: 0 },
  /** 10^6 drops. */
  xrp: { family: 'xrp', decimals: 6 },
  /** Stellar base unit. */
  stroops: { family: 'xlm', decimals: 0 },
  /** 10^7 stroops. */
  xlm: { family: 'xlm', decimals: 7 },
} as const satisfies Record<string, { family: Family; decimals: number }>

/** Name of a native unit, lowercase. */
export type Unit = keyof typeof units

/** Per asset family: its ticker symbol (as price sources quote it), whole unit and base unit. */
export const families = {
  /** EVM ether. */
  eth: { symbol: 'ETH', whole: 'ether', base: 'wei' },
  /** Solana SOL. */
  sol: { symbol: 'SOL', whole: 'sol', base: 'lamports' },
  /** XRP Ledger XRP. */
  xrp: { symbol: 'XRP', whole: 'xrp', base: 'drops' },
  /** Stellar lumens. */
  xlm: { symbol: 'XLM', whole: 'xlm', base: 'stroops' },
} as const satisfies Record<Family, { symbol: string; whole: Unit; base: Unit }>

/** Most integer digits an amount may carry (a uint256 has 78). */
export const maxIntegerDigits = 78

/** Whether `name` (any case) is a native unit of {@link units}. */
export function isNativeUnit(name: string): boolean {
  return Object.hasOwn(units, name.toLowerCase())
}

/** Asset family of a native unit (any case), or `undefined` when `name` is not a native unit. */
export function family(name: string): Family | undefined {
  const key = name.toLowerCase()
  return Object.hasOwn(units, key) ? units[key as Unit].family : undefined
}

/**
 * The whole unit of the asset `name` (any case) measures, e.g. `gwei` -> ether: what prices are quoted per.
 * Throws {@link ValidationError} (field `unit`) when `name` is not a native unit.
 */
export function wholeUnitOf(name: string): wholeUnitOf.ReturnType {
  const { family } = units[toUnit(name, 'unit')]
  const { symbol, whole } = families[family]
  return { name: whole, symbol, decimals: units[whole].decimals, family }
}

export declare namespace wholeUnitOf {
  type ReturnType = {
    /** Whole unit, lowercase, e.g. `ether`. */
    name: Unit
    /** Ticker symbol a price source quotes, e.g. `ETH`. */
    symbol: string
    /** Base units per whole unit as a power of ten, e.g. 18. */
    decimals: number
    /** Asset family. */
    family: Family
  }
}

/**
 * Converts `amount` from one native unit to another of the same asset, exactly.
 * Throws {@link ValidationError} naming `amount`, `from` or `to`.
 *
 * @example
 * convert({ amount: '1.5', from: 'ether', to: 'wei' })
 * // { amount: '1500000000000000000', from: 'ether', to: 'wei', atomic: '1500000000000000000', exact: true }
 */
export function convert(parameters: convert.Parameters): convert.ReturnType {
  const from = toUnit(parameters.from, 'from')
  const to = toUnit(parameters.to, 'to')
  if (units[from].family !== units[to].family)
    throw new ValidationError({
      field: 'to',
      message: `${from} -> ${to} crosses assets (${units[from].family} -> ${units[to].family}); that conversion needs a price source, not a unit conversion`,
    })
  const atomic = toAtomic(parameters.amount, from)
  return { amount: formatUnits(atomic, units[to].decimals), from, to, atomic: atomic.toString(), exact: true }
}

export declare namespace convert {
  type Parameters = {
    /** Non-negative decimal in the `from` unit, e.g. `1.5`; no sign, no exponent. */
    amount: string
    /** Source unit, any case, e.g. `ether`. */
    from: string
    /** Target unit of the same asset, any case, e.g. `wei`. */
    to: string
  }
  type ReturnType = {
    /** The amount in the `to` unit: exact decimal, no trailing zeros, no exponent. */
    amount: string
    /** Source unit, lowercase. */
    from: Unit
    /** Target unit, lowercase. */
    to: Unit
    /** The amount in the asset's base unit (wei, lamports, drops, stroops) as an integer string. */
    atomic: string
    /** Always true: the conversion never rounds. */
    exact: true
  }
}

/**
 * Parses a decimal `amount` in `unit` into base units. Rejects instead of rounding.
 * Throws {@link ValidationError} with field `amount`.
 */
export function toAtomic(amount: string, unit: Unit): bigint {
  const { decimals } = units[unit]
  return fromDecimal({
    value: amount,
    decimals,
    field: 'amount',
    unitName: decimals === 0 ? `${unit} has no fractional part` : `${unit} has at most ${decimals} decimal places`,
  })
}

/**
 * Parses a human decimal amount of an asset with `decimals` (`"2500"` is 2,500 tokens, `"2500.5"` too; a JSON number
 * is read as the decimal it prints as) into atomic units, exactly. Refuses, naming `field`, more decimal places than
 * the asset has, scientific notation, negatives and anything that is not digits with an optional point: never rounds.
 */
export function fromDecimal(parameters: fromDecimal.Parameters): bigint {
  const { value, decimals, field } = parameters
  const fail = (message: string) => new ValidationError({ field, message })
  const amount = typeof value === 'number' && Number.isFinite(value) ? String(value) : value
  if (typeof amount !== 'string' || amount === '') throw fail('required: a decimal amount such as 1.5')
  if (/[eE]/.test(amount)) throw fail(`"${amount}" uses scientific notation; write the digits out, e.g. 0.000001`)
  if (amount.startsWith('-')) throw fail(`"${amount}" is negative; amounts are non-negative`)
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount)
  if (!match) throw fail(`"${amount}" is not a decimal amount such as 1.5 (digits, optional point and digits)`)
  const [, integer = '0', rawFraction = ''] = match
  if (integer.length > maxIntegerDigits) throw fail(`has more than ${maxIntegerDigits} integer digits`)
  // Trailing zeros carry no value: `1.0 wei` is exactly 1 wei.
  const fraction = rawFraction.replace(/0+$/, '')
  if (fraction.length > decimals)
    throw fail(
      parameters.unitName ??
        (decimals === 0 ? 'is a whole number of tokens here' : `has at most ${decimals} decimal places here`),
    )
  return BigInt(integer) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
}

export declare namespace fromDecimal {
  type Parameters = {
    /** The amount as the caller sent it: a decimal string, or a JSON number. */
    value: unknown
    /** Decimals of the asset (6 for USDC). */
    decimals: number
    /** The request field it came in, named by a refusal (`employees[0].amount`). */
    field: string
    /** What a refusal of too many decimal places says. @default "has at most N decimal places here" */
    unitName?: string | undefined
  }
}

/**
 * How an amount field reads its number: `human`, a decimal of the asset as a person writes it (`"2500"` is 2,500 USDC,
 * at most the asset's decimals); `raw`, an integer of its atomic units (`"2500"` is 0.0025 USDC, no point).
 */
export type Reading = 'human' | 'raw'

/** The schema keyword that gives an amount field's {@link Reading}; the machine description (OpenAPI) shows it. */
export const readingKeyword = 'x-unit'

/**
 * Schema options of an amount field: its {@link Reading} under {@link readingKeyword}, and a description that says it
 * in words (`HUMAN decimal ...`, `RAW ... atomic units`), with an example.
 */
export function amountOptions(parameters: amountOptions.Parameters): amountOptions.ReturnType {
  return { description: parameters.description, [readingKeyword]: parameters.unit }
}

export declare namespace amountOptions {
  type Parameters = {
    /** How the field reads its number. */
    unit: Reading
    /** What the field is, its unit in words (HUMAN or RAW) and an example. */
    description: string
  }
  type ReturnType = {
    /** The description, as given. */
    description: string
    /** The reading, for machines. */
    [readingKeyword]: Reading
  }
}

/**
 * The request schema of a HUMAN decimal amount field, as {@link fromDecimal} reads it: a decimal string (`"2500.5"`)
 * or a JSON number; `description` says the token and an example, and reaches the machine description with the unit.
 */
export function decimalSchema(parameters: { description: string }): TUnion<[TString, TNumber]> {
  return Type.Union(
    [Type.String({ minLength: 1, maxLength: maxIntegerDigits + 40 }), Type.Number({ minimum: 0 })],
    amountOptions({ unit: 'human', description: parameters.description }),
  )
}

/** An atomic amount as the human decimal of an asset with `decimals` (`2500000000n`, 6 -> `"2500"`): no trailing zeros. */
export function toDecimal(value: bigint, decimals: number): string {
  return formatUnits(value, decimals)
}

/** An amount as answers show it: its atomic units and its human decimal, both decimal strings. */
export type Amount<formatted extends string | null = string> = {
  /** Atomic units, e.g. `"2500000"`. */
  raw: string
  /** Whole units as {@link toDecimal} writes them, e.g. `"2.5"`; `null` where the decimals are unknown. */
  formatted: formatted
}

/**
 * An atomic amount of an asset with `decimals` both ways (`2500000n`, 6 -> `{ raw: '2500000', formatted: '2.5' }`);
 * with the decimals unknown (`null`), `formatted` is `null`.
 */
export function toAmount<decimals extends number | null>(
  raw: bigint,
  decimals: decimals,
): Amount<decimals extends number ? string : null> {
  return {
    raw: raw.toString(),
    formatted: (decimals === null ? null : toDecimal(raw, decimals)) as decimals extends number ? string : null,
  }
}

function toUnit(name: string, field: 'from' | 'to' | 'unit'): Unit {
  const key = typeof name === 'string' ? name.toLowerCase() : ''
  if (!Object.hasOwn(units, key))
    throw new ValidationError({
      field,
      message: `"${name}" is not a native unit; expected one of ${Object.keys(units).join(', ')}`,
    })
  return key as Unit
}
