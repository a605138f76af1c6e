import { describe, expect, test } from 'bun:test'
import { InvalidTransitionError } from '../../core/Errors.js'
import * as SupplyChain from '../../core/SupplyChain.js'

const now = new Date('2030-01-01T00:00:00Z')
const hash = `0x${'cd'.repeat(32)}` as const
const payment: SupplyChain.Payment = {
  from: '0x00000000000000000000000000000000000000b1',
  to: '0x00000000000000000000000000000000000000c2',
  amount: '100',
  token: '0x00000000000000000000000000000000000000d3',
  fromBlock: '7',
}

const eventOf = (type: SupplyChain.Event['type'], outcome: SupplyChain.Outcome = 'verified'): SupplyChain.Event => {
  switch (type) {
    case 'checked':
      return { type, outcome, checks: [] }
    case 'payment_requested':
      return { type, payment }
    case 'paid':
      return { type, transaction: hash, paidAt: now }
  }
}

const stateOf = (status: SupplyChain.Status): SupplyChain.State => ({
  status,
  history: [{ status, at: now.toISOString() }],
  ...(status === 'payment_pending' || status === 'paid' ? { payment } : {}),
})

/** Where each legal (state, event) pair leads; `checked` leads where its outcome says. */
const legal: Record<string, SupplyChain.Status | 'outcome'> = {
  'submitted checked': 'outcome',
  'review_required checked': 'outcome',
  'verified payment_requested': 'payment_pending',
  'payment_pending payment_requested': 'payment_pending',
  'payment_pending paid': 'paid',
}

describe('transition: every state × every event', () => {
  for (const status of SupplyChain.statuses)
    for (const type of SupplyChain.eventTypes) {
      const key = `${status} ${type}`
      const to = legal[key]
      if (to === 'outcome')
        for (const outcome of ['verified', 'review_required', 'rejected'] as const)
          test(`${key} (${outcome}) → ${outcome}`, () => {
            expect(SupplyChain.transition(stateOf(status), eventOf(type, outcome), now).status).toBe(outcome)
          })
      else if (to !== undefined)
        test(`${key} → ${to}`, () => {
          expect(SupplyChain.transition(stateOf(status), eventOf(type), now).status).toBe(to)
        })
      else
        test(`${key} is refused (409)`, () => {
          expect(() => SupplyChain.transition(stateOf(status), eventOf(type), now)).toThrow(InvalidTransitionError)
        })
    }

  test('asking again while pending keeps the block the watcher searches from', () => {
    const again = SupplyChain.transition(
      stateOf('payment_pending'),
      { type: 'payment_requested', payment: { ...payment, fromBlock: '99' } },
      now,
    )
    expect(again.payment?.fromBlock).toBe('7')
  })

  test('paid records the transaction and its time', () => {
    const paid = SupplyChain.transition(stateOf('payment_pending'), eventOf('paid'), now)
    expect(paid.payment).toEqual({ ...payment, transaction: hash, paidAt: now.toISOString() })
  })
})

describe('match', () => {
  const order = {
    supplierId: 'sup_1',
    currency: 'USDC',
    lines: [
      { sku: 'A', quantity: 10n, unitPrice: 1_000n },
      { sku: 'B', quantity: 1n, unitPrice: 50_000n },
    ],
  }
  const base = (lines: SupplyChain.Line[], extra: Partial<SupplyChain.Match['invoice']> = {}): SupplyChain.Match => ({
    order,
    invoice: {
      supplierId: 'sup_1',
      currency: 'usdc',
      number: 'INV 1',
      lines,
      total: SupplyChain.lineTotal(lines),
      ...extra,
    },
    supplierInvoiceNumbers: [],
    billed: [],
    toleranceBps: 100n,
  })
  const failed = (input: SupplyChain.Match) => {
    const result = SupplyChain.match(input)
    return [result.outcome, result.checks.filter((check) => !check.ok).map((check) => check.name)]
  }

  test('an exact invoice is verified, every check listed and passed', () => {
    expect(failed(base([{ sku: 'A', quantity: 10n, unitPrice: 1_000n }]))).toEqual(['verified', []])
  })
  test('a lower price is fine; the tolerance is inclusive, one unit past it needs review', () => {
    expect(failed(base([{ sku: 'A', quantity: 1n, unitPrice: 900n }]))[0]).toBe('verified')
    expect(failed(base([{ sku: 'A', quantity: 1n, unitPrice: 1_010n }]))[0]).toBe('verified')
    expect(failed(base([{ sku: 'A', quantity: 1n, unitPrice: 1_011n }]))).toEqual(['review_required', ['unit_prices']])
  })
  test('quantities count what other invoices billed', () => {
    const input = {
      ...base([{ sku: 'A', quantity: 4n, unitPrice: 1_000n }]),
      billed: [{ sku: 'A', quantity: 7n, unitPrice: 1n }],
    }
    expect(failed(input)).toEqual(['rejected', ['quantities']])
  })
  test('supplier, currency, duplicate number, unknown line, total and repeated lines each reject', () => {
    const line = { sku: 'A', quantity: 1n, unitPrice: 1_000n }
    expect(failed(base([line], { supplierId: 'sup_2' }))).toEqual(['rejected', ['supplier']])
    expect(failed(base([line], { currency: 'DAI' }))).toEqual(['rejected', ['currency']])
    expect(failed({ ...base([line]), supplierInvoiceNumbers: ['inv1'] })).toEqual([
      'rejected',
      ['duplicate_invoice_number'],
    ])
    expect(failed(base([{ sku: 'Z', quantity: 1n, unitPrice: 1n }]))).toEqual(['rejected', ['lines_on_order']])
    expect(failed(base([line], { total: 999n }))).toEqual(['rejected', ['total']])
    expect(failed(base([line, line]))).toEqual(['rejected', ['distinct_lines']])
  })
  test('a rejection outranks a review', () => {
    expect(failed(base([{ sku: 'A', quantity: 11n, unitPrice: 2_000n }]))).toEqual([
      'rejected',
      ['quantities', 'unit_prices'],
    ])
  })
})
