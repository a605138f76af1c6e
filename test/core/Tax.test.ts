import { describe, expect, test } from 'bun:test'
import { ValidationError } from '../../core/Errors.js'
import * as Tax from '../../core/Tax.js'

/** Parses and calculates, every transaction carrying its USD value. */
function run(inputs: Tax.Input[], method?: Tax.Method) {
  return Tax.calculate({ transactions: Tax.parse(inputs) as Tax.Priced[], method })
}

const usd = (value: string) => (value.startsWith('-') ? -1n : 1n) * Tax.toScaled(value.replace('-', ''), 'test')

describe('calculate', () => {
  const twoLots: Tax.Input[] = [
    { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1000', time: '2023-01-01T00:00:00Z' },
    { kind: 'buy', asset: 'ETH', amount: '1', price: '2000', time: '2023-02-01T00:00:00Z' },
    { kind: 'sell', asset: 'ETH', amount: '1.5', usdValue: '4500', time: '2023-06-01T00:00:00Z' },
  ]

  test('default: FIFO takes the first lot whole and half of the second', () => {
    const report = run(twoLots)
    const [sale] = report.disposals
    expect(sale!.lots.map((lot) => [lot.lot, Tax.toDecimal(lot.amount), Tax.toDecimal(lot.basis)])).toEqual([
      [0, '1', '1000'],
      [1, '0.5', '1000'],
    ])
    expect(Tax.toDecimal(sale!.basis)).toBe('2000')
    expect(Tax.toDecimal(sale!.gain)).toBe('2500')
    expect(report.shortTerm.gain).toBe(usd('2500'))
    expect(report.longTerm.gain).toBe(0n)
    expect(report.holdings.ETH).toEqual({ amount: usd('0.5'), basis: usd('1000') })
  })

  test('behavior: LIFO and HIFO take the dearer, later lot first', () => {
    for (const method of ['lifo', 'hifo'] as const) {
      const report = run(twoLots, method)
      expect(report.disposals[0]!.lots.map((lot) => lot.lot)).toEqual([1, 0])
      expect(Tax.toDecimal(report.total.gain)).toBe('2000')
      expect(report.holdings.ETH).toEqual({ amount: usd('0.5'), basis: usd('500') })
    }
    // HIFO differs from LIFO when the latest lot is the cheapest.
    const cheapLast: Tax.Input[] = [
      { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '3000', time: '2023-01-01T00:00:00Z' },
      { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1000', time: '2023-02-01T00:00:00Z' },
      { kind: 'sell', asset: 'ETH', amount: '1', usdValue: '2000', time: '2023-03-01T00:00:00Z' },
    ]
    expect(Tax.toDecimal(run(cheapLast, 'hifo').total.gain)).toBe('-1000')
    expect(Tax.toDecimal(run(cheapLast, 'lifo').total.gain)).toBe('1000')
  })

  test('behavior: a buy fee is basis, a sell fee comes off the proceeds', () => {
    const report = run([
      { kind: 'buy', asset: 'BTC', amount: '2', usdValue: '20000', feeUsd: '100', time: '2023-01-01T00:00:00Z' },
      { kind: 'sell', asset: 'BTC', amount: '1', usdValue: '15000', feeUsd: '50', time: '2023-02-01T00:00:00Z' },
    ])
    expect(report.total).toEqual({ proceeds: usd('14950'), basis: usd('10050'), gain: usd('4900') })
  })

  test('behavior: across the one-year boundary a sale splits into long- and short-term parts', () => {
    const lots: Tax.Input[] = [
      { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1000', time: '2022-03-01T10:00:00Z' },
      { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '3000', time: '2023-01-15T00:00:00Z' },
    ]
    const dayAfter = run([
      ...lots,
      { kind: 'sell', asset: 'ETH', amount: '2', usdValue: '4000', time: '2023-03-02T00:00:00Z' },
    ])
    expect(dayAfter.longTerm).toEqual({ proceeds: usd('2000'), basis: usd('1000'), gain: usd('1000') })
    expect(dayAfter.shortTerm).toEqual({ proceeds: usd('2000'), basis: usd('3000'), gain: usd('-1000') })
    expect(dayAfter.total.gain).toBe(0n)
    // Exactly one year later is not more than a year.
    const anniversary = run([
      ...lots,
      { kind: 'sell', asset: 'ETH', amount: '2', usdValue: '4000', time: '2023-03-01T23:00:00Z' },
    ])
    expect(anniversary.longTerm.proceeds).toBe(0n)
    expect(anniversary.shortTerm.gain).toBe(0n)
  })

  test('behavior: several assets, income opens a lot at its value, a transfer out moves lots without a gain', () => {
    const report = run([
      { kind: 'income', asset: 'SOL', amount: '10', usdValue: '200', time: '2023-01-01T00:00:00Z' },
      { kind: 'buy', asset: 'ETH', amount: '2', usdValue: '2000', time: '2023-01-02T00:00:00Z' },
      { kind: 'transfer_out', asset: 'ETH', amount: '1', time: '2023-01-03T00:00:00Z', usdValue: '0' },
      { kind: 'sell', asset: 'SOL', amount: '5', usdValue: '150', time: '2023-01-04T00:00:00Z' },
      { kind: 'fee', asset: 'ETH', amount: '0.1', usdValue: '120', time: '2023-01-05T00:00:00Z' },
    ])
    expect(report.incomeUsd).toBe(usd('200'))
    expect(report.disposals.map((disposal) => [disposal.kind, disposal.asset, Tax.toDecimal(disposal.gain)])).toEqual([
      ['sell', 'SOL', '50'],
      ['fee', 'ETH', '20'],
    ])
    expect(report.holdings.ETH).toEqual({ amount: usd('0.9'), basis: usd('900') })
  })

  test('behavior: a third of a lot takes a truncated third of its basis; the rest takes what remains', () => {
    const report = run([
      { kind: 'buy', asset: 'X', amount: '3', usdValue: '100', time: '2023-01-01T00:00:00Z' },
      { kind: 'sell', asset: 'X', amount: '1', usdValue: '0', time: '2023-01-02T00:00:00Z' },
      { kind: 'sell', asset: 'X', amount: '2', usdValue: '0', time: '2023-01-03T00:00:00Z' },
    ])
    expect(Tax.toDecimal(report.disposals[0]!.basis)).toBe('33.333333333333333333')
    expect(Tax.toDecimal(report.disposals[1]!.basis)).toBe('66.666666666666666667')
    expect(report.total.basis).toBe(usd('100'))
  })
})

describe('parse', () => {
  const buy = { kind: 'buy', asset: 'ETH', amount: '1', usdValue: '1', time: '2023-01-01T00:00:00Z' }
  const refusal = (inputs: Tax.Input[]) => {
    try {
      Tax.parse(inputs)
    } catch (error) {
      if (error instanceof ValidationError) return error.message
      throw error
    }
    throw new Error('accepted')
  }

  test('behavior: unsorted times are sorted, ties keep the input order', () => {
    const parsed = Tax.parse([
      { ...buy, time: '2023-03-01T00:00:00Z' },
      { ...buy, time: '2023-01-01T00:00:00Z', usdValue: '2' },
      { ...buy, time: '2023-01-01T00:00:00Z', usdValue: '3' },
    ])
    expect(parsed.map((transaction) => transaction.index)).toEqual([1, 2, 0])
  })

  test('error: each refusal names the index and the field', () => {
    expect(refusal([buy, { ...buy, kind: 'swap' }])).toStartWith('transactions.1.kind')
    expect(refusal([{ ...buy, amount: '-1' }])).toStartWith('transactions.0.amount: negative')
    expect(refusal([{ ...buy, amount: '0' }])).toStartWith('transactions.0.amount')
    expect(refusal([{ ...buy, usdValue: '1e3' }])).toStartWith('transactions.0.usdValue')
    expect(refusal([{ ...buy, time: 'yesterday' }])).toStartWith('transactions.0.time')
    expect(refusal([buy, { ...buy, kind: 'sell', amount: '1.5', time: '2023-02-01T00:00:00Z' }])).toBe(
      'transactions.1.amount: sell of 1.5 ETH when 1 is held',
    )
    // Sold before it was bought, once sorted.
    expect(refusal([buy, { ...buy, kind: 'sell', time: '2022-12-31T00:00:00Z' }])).toStartWith('transactions.1.amount')
    expect(refusal([buy, { ...buy, usdValue: '2' }, buy])).toBe(
      'transactions.2: duplicates transactions.0 (same kind, asset, amount, time and value)',
    )
  })
})

/** A small seeded generator (mulberry32): the same seed gives the same transactions on every run. */
function generator(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (below: number) => Math.floor(next() * below)
  /** A decimal with up to 18 fractional digits, at most `max` whole units. */
  const decimal = (max: number) =>
    `${int(max)}.${String(int(1e9)).padStart(9, '0')}${String(int(1e9)).padStart(9, '0')}`
  return { next, int, decimal }
}

/** Random valid transactions: acquisitions, and disposals and transfers of at most what is held. */
function transactions(seed: number, count: number, withTransfers: boolean): Tax.Input[] {
  const random = generator(seed)
  const held = new Map<string, bigint>()
  const inputs: Tax.Input[] = []
  let time = Date.UTC(2020, 0, 1)
  for (let position = 0; position < count; position++) {
    time += random.int(40 * 86_400_000)
    const asset = ['ETH', 'BTC', 'SOL'][random.int(3)]!
    const holding = held.get(asset) ?? 0n
    const roll = random.next()
    const common = {
      asset,
      time: new Date(time).toISOString(),
      usdValue: random.decimal(5000),
      feeUsd: random.decimal(20),
    }
    if (holding === 0n || roll < 0.45) {
      const kind = (['buy', 'income', 'transfer_in'] as const)[random.int(3)]!
      const amount = random.decimal(10)
      if (Tax.toScaled(amount, 'amount') === 0n) continue
      held.set(asset, holding + Tax.toScaled(amount, 'amount'))
      inputs.push({ ...common, kind, amount })
      continue
    }
    // A share of the holding, sometimes all of it.
    const share = roll > 0.9 ? holding : (holding * BigInt(random.int(1000) + 1)) / 1000n
    if (share === 0n) continue
    const kind = withTransfers && roll < 0.55 ? 'transfer_out' : roll < 0.6 ? 'fee' : 'sell'
    held.set(asset, holding - share)
    inputs.push({ ...common, kind, amount: Tax.toDecimal(share) })
  }
  return inputs
}

describe('properties', () => {
  test('behavior: proceeds - basis = gain over all disposals, and every disposal adds up over its lots', () => {
    for (let seed = 1; seed <= 40; seed++)
      for (const method of Tax.methods) {
        const report = run(transactions(seed, 120, true), method)
        let gains = 0n
        for (const disposal of report.disposals) {
          gains += disposal.gain
          expect(disposal.gain).toBe(disposal.proceeds - disposal.basis)
          expect(disposal.lots.reduce((sum, lot) => sum + lot.amount, 0n)).toBe(disposal.amount)
          expect(disposal.lots.reduce((sum, lot) => sum + lot.basis, 0n)).toBe(disposal.basis)
          expect(disposal.lots.reduce((sum, lot) => sum + lot.proceeds, 0n)).toBe(disposal.proceeds)
        }
        expect(gains).toBe(report.total.gain)
        expect(report.total.proceeds - report.total.basis).toBe(report.total.gain)
        expect(report.shortTerm.gain + report.longTerm.gain).toBe(report.total.gain)
      }
  })

  test('behavior: lots are never over-consumed, and without transfers out every unit of basis is used once', () => {
    for (let seed = 100; seed <= 140; seed++)
      for (const method of Tax.methods) {
        const inputs = transactions(seed, 120, false)
        const parsed = Tax.parse(inputs)
        const report = Tax.calculate({ transactions: parsed as Tax.Priced[], method })
        const opened = new Map(
          parsed
            .filter((transaction) => ['buy', 'income', 'transfer_in'].includes(transaction.kind))
            .map((transaction) => [transaction.index, transaction]),
        )
        const consumed = new Map<number, { amount: bigint; basis: bigint }>()
        for (const lot of report.disposals.flatMap((disposal) => disposal.lots)) {
          const sum = consumed.get(lot.lot) ?? { amount: 0n, basis: 0n }
          consumed.set(lot.lot, { amount: sum.amount + lot.amount, basis: sum.basis + lot.basis })
        }
        for (const [index, sum] of consumed) {
          const lot = opened.get(index)!
          expect(sum.amount <= lot.amount).toBe(true)
          expect(sum.basis <= lot.usd! + lot.feeUsd).toBe(true)
          if (sum.amount === lot.amount) expect(sum.basis).toBe(lot.usd! + lot.feeUsd)
        }
        const openedBasis = [...opened.values()].reduce((sum, lot) => sum + lot.usd! + lot.feeUsd, 0n)
        const heldBasis = Object.values(report.holdings).reduce((sum, holding) => sum + holding.basis, 0n)
        expect(heldBasis + report.total.basis).toBe(openedBasis)
      }
  })
})
