import { ValidationError } from './Errors.js'

/** Decimal places of a USD price; USDC uses the same, so one price unit is one atomic USDC unit. */
export const decimals = 6

/** A price of a catalog entry, as the spec states it. Amounts are 6-decimal USD strings. */
export type Price =
  | { /** No payment, no wallet. */ type: 'free' }
  | {
      /** One amount per call. */
      type: 'fixed'
      /** USD, 6 decimals, e.g. `0.005000`. */
      amount: string
    }
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

/** What a price rule reads: a call's input after schema validation. */
export type Input<body = unknown, query = Record<string, unknown>> = {
  /** The validated body; `undefined` for routes without one. */
  body: body
  /** The validated query parameters. */
  query: query
  /** The path parameters. */
  params: Record<string, string>
}

/** Lowest and highest amount a call may cost, in atomic units, both included. */
export type Bounds = {
  /** Lowest amount, in atomic units. */
  min: bigint
  /** Highest amount, in atomic units. */
  max: bigint
}

/**
 * How the amount of a call to an entry priced as a range or `varies` follows from its validated request (model,
 * size, count). The module that serves the entry declares it, keyed by catalog key; whatever it computes is held
 * within the catalog's range, so the catalog stays the one statement of what a call may cost.
 */
export type Rule<body = unknown, query = Record<string, unknown>> = {
  /** How the amount follows from the request, one line for people; discovery shows it beside the range. */
  description: string
  /** Lowest and highest amount, for an entry priced `varies` (the catalog states none); a range's bounds win. */
  bounds?: Bounds | undefined
  /** The amount for a validated request, in atomic units, before it is held within the bounds. Pure. */
  amount(input: Input<body, query>): bigint
}

/** Price rules by catalog key (`"METHOD path"`). */
export type Rules = Readonly<Record<string, Rule>>

/**
 * The bounds a call's amount is held within: a fixed price's amount, a range's stated bounds, a `varies` entry's
 * rule's bounds. Throws for a free price and for `varies` without a rule that states bounds: such an entry cannot
 * be charged.
 */
export function boundsOf(price: Price, rule?: Rule | undefined): Bounds {
  switch (price.type) {
    case 'fixed': {
      const amount = toAtomic(price.amount)
      return { min: amount, max: amount }
    }
    case 'range':
      return { min: toAtomic(price.min), max: toAtomic(price.max) }
    case 'varies':
      if (!rule?.bounds) throw new Error('A price that varies needs a rule that states its bounds.')
      if (rule.bounds.min <= 0n || rule.bounds.min > rule.bounds.max)
        throw new Error(`The bounds ${rule.bounds.min}-${rule.bounds.max} are not a positive range.`)
      return rule.bounds
    case 'free':
      throw new Error('A free price has no amount to charge.')
  }
}

/**
 * The exact amount a call costs, in atomic units: a fixed price's amount, or the rule's amount for this request held
 * within {@link boundsOf} (below the range: its minimum; above: its maximum). The 402 offers exactly this amount and
 * the payment must be for exactly this amount. Throws for a free price, and for a range or `varies` without a rule.
 */
export function quote(parameters: quote.Parameters): bigint {
  const { price, rule, input } = parameters
  if (price.type === 'fixed') return toAtomic(price.amount)
  if (price.type !== 'free' && !rule)
    throw new Error(`A price of ${toText(price)} needs a rule to compute a call's amount.`)
  const { min, max } = boundsOf(price, rule)
  const amount = rule!.amount(input ?? { body: undefined, query: {}, params: {} })
  return amount < min ? min : amount > max ? max : amount
}

export declare namespace quote {
  type Parameters = {
    /** The entry's price as the catalog states it. */
    price: Price
    /** The entry's rule; required for a range or `varies`, ignored for a fixed price. */
    rule?: Rule | undefined
    /** The call's validated input the rule reads. @default no body, no query, no path parameters */
    input?: Input | undefined
  }
}
