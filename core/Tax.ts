import { formatUnits, parseUnits } from 'viem'
import { ValidationError } from './Errors.js'

/**
 * Capital gains of crypto transactions by lot matching: pure, exact (every amount and USD value is a bigint of
 * {@link decimals} fractional digits, never a float). Buys, income and transfers in open lots; sells and fees in an
 * asset dispose of lots (FIFO by default, LIFO or HIFO as asked); transfers out move lots away without a gain. A fee
 * paid on a buy, an income or a transfer in is added to the lot's basis; a fee paid on a sell or fee disposal is
 * subtracted from its proceeds. A disposal is long-term for the part of it held more than one year (acquired on day
 * D, long-term from D + 1 year + 1 day), short-term otherwise. A partial lot's basis is its remaining basis pro rata,
 * truncated, and the last unit of a lot takes what remains, so a lot's basis is always used exactly once.
 */

/** Fractional digits of every amount and USD value. */
export const decimals = 18

/** Kinds of transaction. */
export const kinds = ['buy', 'sell', 'transfer_in', 'transfer_out', 'fee', 'income'] as const

/** A kind of transaction. */
export type Kind = (typeof kinds)[number]

/** Lot-matching methods. */
export const methods = ['fifo', 'lifo', 'hifo'] as const

/** A lot-matching method: first in first out, last in first out, highest (unit) cost first out. */
export type Method = (typeof methods)[number]

/** Kinds that open a lot. */
const opening: ReadonlySet<Kind> = new Set(['buy', 'income', 'transfer_in'])

/** Kinds that dispose of lots with a gain or loss. */
const disposing: ReadonlySet<Kind> = new Set(['sell', 'fee'])

/** A transaction as the caller sends it; decimals as strings. */
export type Input = {
  /** Kind. */
  kind: string
  /** Asset symbol or id, e.g. `ETH`. */
  asset: string
  /** Quantity of the asset, a positive decimal string. */
  amount: string
  /** When (ISO 8601). */
  time: string
  /** USD value of the whole amount, decimal string; or give `price`. */
  usdValue?: string | undefined
  /** USD per unit, decimal string; used when `usdValue` is absent. */
  price?: string | undefined
  /** USD fee paid with the transaction, decimal string. @default '0' */
  feeUsd?: string | undefined
  /** Id the price source knows the asset by (e.g. `coingecko:ethereum`), for transactions without a USD value. */
  priceId?: string | undefined
}

/** A transaction parsed: exact values, its place in the input. */
export type Transaction = {
  /** Position in the caller's list. */
  index: number
  /** Kind. */
  kind: Kind
  /** Asset. */
  asset: string
  /** Quantity, scaled by 10^{@link decimals}. */
  amount: bigint
  /** When, epoch ms. */
  time: number
  /** USD value of the whole amount, scaled; `undefined` when it must be priced. */
  usd: bigint | undefined
  /** USD fee, scaled. */
  feeUsd: bigint
  /** Id at the price source. */
  priceId: string | undefined
}

/** A transaction with its USD value known. */
export type Priced = Omit<Transaction, 'usd'> & { usd: bigint }

/** Part of a lot a disposal consumed. */
export type Consumed = {
  /** Index of the transaction that opened the lot. */
  lot: number
  /** When the lot was acquired, epoch ms. */
  acquired: number
  /** Quantity taken, scaled. */
  amount: bigint
  /** Basis of that quantity, scaled USD. */
  basis: bigint
  /** Proceeds allotted to that quantity, scaled USD. */
  proceeds: bigint
  /** Whether it was held more than a year. */
  longTerm: boolean
}

/** One disposal: a sell or a fee paid in an asset. */
export type Disposal = {
  /** Index of the transaction. */
  index: number
  /** Kind. */
  kind: 'sell' | 'fee'
  /** Asset. */
  asset: string
  /** When, epoch ms. */
  time: number
  /** Quantity, scaled. */
  amount: bigint
  /** Proceeds net of the fee, scaled USD. */
  proceeds: bigint
  /** Basis of the lots consumed, scaled USD. */
  basis: bigint
  /** proceeds - basis. */
  gain: bigint
  /** Lots consumed, in the order taken. */
  lots: Consumed[]
}

/** Income received (it also opens a lot at this value). */
export type Income = {
  /** Index of the transaction. */
  index: number
  /** Asset. */
  asset: string
  /** When, epoch ms. */
  time: number
  /** Quantity, scaled. */
  amount: bigint
  /** USD value, scaled. */
  usd: bigint
}

/** Proceeds, basis and gain of a set of disposals. */
export type Totals = { proceeds: bigint; basis: bigint; gain: bigint }

/** An open lot. */
type Lot = {
  index: number
  acquired: number
  amount: bigint
  basis: bigint
  initialAmount: bigint
  initialBasis: bigint
}

/** The result of {@link calculate}. */
export type Report = {
  /** Method used. */
  method: Method
  /** Every disposal, in time order. */
  disposals: Disposal[]
  /** Every income, in time order. */
  income: Income[]
  /** All disposals. */
  total: Totals
  /** The parts held one year or less. */
  shortTerm: Totals
  /** The parts held more than one year. */
  longTerm: Totals
  /** Sum of income, scaled USD. */
  incomeUsd: bigint
  /** What is left per asset: quantity and basis, scaled. */
  holdings: Record<string, { amount: bigint; basis: bigint }>
}

/** A decimal string as a scaled bigint; throws a 400 naming `field`. */
export function toScaled(value: string, field: string, options: { positive?: boolean } = {}): bigint {
  if (!/^\d+(\.\d+)?$/.test(value))
    throw new ValidationError({ field, message: `${JSON.stringify(value)} is not a non-negative decimal` })
  const fraction = value.split('.')[1] ?? ''
  if (fraction.length > decimals) throw new ValidationError({ field, message: `at most ${decimals} fractional digits` })
  const scaled = parseUnits(value, decimals)
  if (options.positive && scaled === 0n) throw new ValidationError({ field, message: 'must be more than zero' })
  return scaled
}

/** A scaled bigint as a decimal string. */
export function toDecimal(value: bigint): string {
  return formatUnits(value, decimals)
}

/**
 * The caller's transactions parsed and checked, sorted by time (ties keep the input order): an unknown kind, a
 * negative or zero amount, a bad time, an exact duplicate, or a disposal or transfer out of more than is held at
 * that moment is a 400 naming the index and the field.
 */
export function parse(inputs: readonly Input[]): Transaction[] {
  const parsed = inputs.map((input, index): Transaction => {
    const field = (name: string) => `transactions.${index}.${name}`
    if (!(kinds as readonly string[]).includes(input.kind))
      throw new ValidationError({ field: field('kind'), message: `unknown kind; one of ${kinds.join(', ')}` })
    if (input.amount.startsWith('-')) throw new ValidationError({ field: field('amount'), message: 'negative' })
    const time = Date.parse(input.time)
    if (!/^\d{4}-\d{2}-\d{2}/.test(input.time) || Number.isNaN(time))
      throw new ValidationError({ field: field('time'), message: 'not an ISO 8601 date-time' })
    const amount = toScaled(input.amount, field('amount'), { positive: true })
    const usd =
      input.usdValue !== undefined
        ? toScaled(input.usdValue, field('usdValue'))
        : input.price !== undefined
          ? (amount * toScaled(input.price, field('price'))) / 10n ** BigInt(decimals)
          : undefined
    const feeUsd = input.feeUsd === undefined ? 0n : toScaled(input.feeUsd, field('feeUsd'))
    return {
      index,
      kind: input.kind as Kind,
      asset: input.asset,
      amount,
      time,
      usd,
      feeUsd,
      priceId: input.priceId,
    }
  })
  const seen = new Map<string, number>()
  for (const transaction of parsed) {
    const input = inputs[transaction.index]!
    const key = JSON.stringify([
      input.kind,
      input.asset,
      transaction.amount.toString(),
      transaction.time,
      transaction.usd?.toString(),
      transaction.feeUsd.toString(),
    ])
    const first = seen.get(key)
    if (first !== undefined)
      throw new ValidationError({
        field: `transactions.${transaction.index}`,
        message: `duplicates transactions.${first} (same kind, asset, amount, time and value)`,
      })
    seen.set(key, transaction.index)
  }
  const sorted = [...parsed].sort((a, b) => a.time - b.time || a.index - b.index)
  const held = new Map<string, bigint>()
  for (const transaction of sorted) {
    const holding = held.get(transaction.asset) ?? 0n
    if (opening.has(transaction.kind)) held.set(transaction.asset, holding + transaction.amount)
    else {
      if (transaction.amount > holding)
        throw new ValidationError({
          field: `transactions.${transaction.index}.amount`,
          message: `${transaction.kind} of ${toDecimal(transaction.amount)} ${transaction.asset} when ${toDecimal(holding)} is held`,
        })
      held.set(transaction.asset, holding - transaction.amount)
    }
  }
  return sorted
}

/** Whether an asset acquired at `acquired` and disposed of at `disposed` (epoch ms) was held more than one year. */
export function isLongTerm(acquired: number, disposed: number): boolean {
  const anniversary = new Date(acquired)
  anniversary.setUTCFullYear(anniversary.getUTCFullYear() + 1)
  // Held "more than one year": the day after the anniversary onwards.
  return disposed >= startOfNextDay(anniversary.getTime())
}

function startOfNextDay(ms: number): number {
  const day = new Date(ms)
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1)
}

/** Matches the lots of `transactions` (sorted, as {@link parse} returns them, each priced) by `method`. */
export function calculate(parameters: calculate.Parameters): Report {
  const { transactions, method = 'fifo' } = parameters
  const lots = new Map<string, Lot[]>()
  const disposals: Disposal[] = []
  const income: Income[] = []
  for (const transaction of transactions) {
    const { asset, amount, index, time } = transaction
    const open = lots.get(asset) ?? []
    lots.set(asset, open)
    if (opening.has(transaction.kind)) {
      const basis = transaction.usd + transaction.feeUsd
      open.push({ index, acquired: time, amount, basis, initialAmount: amount, initialBasis: basis })
      if (transaction.kind === 'income') income.push({ index, asset, time, amount, usd: transaction.usd })
      continue
    }
    const taken = take(open, amount, method)
    if (!disposing.has(transaction.kind)) continue
    // Proceeds net of the fee, allotted to the lots pro rata by quantity; the last lot takes the remainder.
    const proceeds = transaction.usd - transaction.feeUsd
    let allotted = 0n
    const consumed = taken.map((part, position): Consumed => {
      const share = position === taken.length - 1 ? proceeds - allotted : (proceeds * part.amount) / amount
      allotted += share
      return { ...part, proceeds: share, longTerm: isLongTerm(part.acquired, time) }
    })
    const basis = consumed.reduce((sum, part) => sum + part.basis, 0n)
    disposals.push({
      index,
      kind: transaction.kind as 'sell' | 'fee',
      asset,
      time,
      amount,
      proceeds,
      basis,
      gain: proceeds - basis,
      lots: consumed,
    })
  }
  const sum = (parts: { proceeds: bigint; basis: bigint }[]): Totals => {
    const proceeds = parts.reduce((total, part) => total + part.proceeds, 0n)
    const basis = parts.reduce((total, part) => total + part.basis, 0n)
    return { proceeds, basis, gain: proceeds - basis }
  }
  const parts = disposals.flatMap((disposal) => disposal.lots)
  const holdings: Report['holdings'] = {}
  for (const [asset, open] of lots)
    holdings[asset] = {
      amount: open.reduce((total, lot) => total + lot.amount, 0n),
      basis: open.reduce((total, lot) => total + lot.basis, 0n),
    }
  return {
    method,
    disposals,
    income,
    total: sum(disposals),
    shortTerm: sum(parts.filter((part) => !part.longTerm)),
    longTerm: sum(parts.filter((part) => part.longTerm)),
    incomeUsd: income.reduce((total, entry) => total + entry.usd, 0n),
    holdings,
  }
}

export declare namespace calculate {
  type Parameters = {
    /** Transactions sorted by time, each with its USD value. */
    transactions: readonly Priced[]
    /** Lot-matching method. @default 'fifo' */
    method?: Method | undefined
  }
}

/** Takes `amount` from `open` lots in `method`'s order, shrinking and removing them; the parts taken, in order. */
function take(open: Lot[], amount: bigint, method: Method): Omit<Consumed, 'proceeds' | 'longTerm'>[] {
  const parts: Omit<Consumed, 'proceeds' | 'longTerm'>[] = []
  let left = amount
  while (left > 0n) {
    const position = pick(open, method)
    // parse() refused any disposal of more than is held.
    const lot = open[position]!
    const quantity = left < lot.amount ? left : lot.amount
    const basis = quantity === lot.amount ? lot.basis : (lot.basis * quantity) / lot.amount
    parts.push({ lot: lot.index, acquired: lot.acquired, amount: quantity, basis })
    lot.amount -= quantity
    lot.basis -= basis
    left -= quantity
    if (lot.amount === 0n) open.splice(position, 1)
  }
  return parts
}

/** Position of the next lot to take: the oldest (FIFO), the newest (LIFO), or the highest unit cost (HIFO; oldest first among equals). */
function pick(open: readonly Lot[], method: Method): number {
  if (method === 'fifo') return 0
  if (method === 'lifo') return open.length - 1
  let best = 0
  for (let position = 1; position < open.length; position++) {
    const lot = open[position]!
    const top = open[best]!
    // Unit costs compared as cross products: basis / amount of the lot as first acquired.
    if (lot.initialBasis * top.initialAmount > top.initialBasis * lot.initialAmount) best = position
  }
  return best
}
