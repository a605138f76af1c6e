import { ValidationError } from './Errors.js'

/** Decimal places of a USD price; USDC uses the same, so one price unit is one atomic USDC unit. */
export const decimals = 6

/** A price of a catalog entry, as the spec states it. Amounts are 6-decimal USD strings. */
export type Price =
  | { /** No payment, no wallet. */ type: 'free' }
  | { /** One amount per call. */ type: 'fixed'; /** USD, 6 decimals, e.g. `0.005000`. */ amount: string }
  | {
      /** The amount depends on the request (model, size) and lies within the bounds. */
      type: 'range'
      /** Lowest USD amount, 6 decimals. */
      min: string
      /** Highest USD amount, 6 decimals. */
      max: string
    }
  | { /** The amount depends on the request with no stated bounds. */ type: 'varies' }

/**
 * Parses a decimal USD string (`"0.10"`, `"0.005"`) into atomic units (6 decimals).
 * Rejects more than 6 decimal places instead of rounding.
 */
export function toAtomic(value: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value)
  if (!match) throw new ValidationError({ field: 'price', message: `"${value}" is not a decimal amount` })
  const [, whole = '0', fraction = ''] = match
  if (fraction.length > decimals)
    throw new ValidationError({ field: 'price', message: `"${value}" has more than ${decimals} decimals` })
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0'))
}

/** Formats atomic units as a 6-decimal USD string: `5000n` -> `"0.005000"`. */
export function fromAtomic(value: bigint): string {
  const negative = value < 0n
  const magnitude = negative ? -value : value
  const scale = 10n ** BigInt(decimals)
  const text = `${magnitude / scale}.${(magnitude % scale).toString().padStart(decimals, '0')}`
  return negative ? `-${text}` : text
}

/** Normalises a stated decimal (`"0.10"`) to the 6-decimal form (`"0.100000"`). */
export function normalize(value: string): string {
  return fromAtomic(toAtomic(value))
}

/** Parses a price as the spec writes it: `free`, `varies`, `0.02-0.08`, or a single amount. */
export function fromStated(text: string): Price {
  const value = text.trim()
  if (value === 'free') return { type: 'free' }
  if (value === 'varies') return { type: 'varies' }
  const range = /^([\d.]+)\s*-\s*([\d.]+)$/.exec(value)
  if (range) return { type: 'range', min: normalize(range[1]!), max: normalize(range[2]!) }
  return { type: 'fixed', amount: normalize(value) }
}

/** A short text for people: `$0.005000`, `$0.020000-$0.080000`, `free`, `varies`. */
export function toText(price: Price): string {
  switch (price.type) {
    case 'free':
      return 'free'
    case 'varies':
      return 'varies'
    case 'fixed':
      return `$${price.amount}`
    case 'range':
      return `$${price.min}-$${price.max}`
  }
}
