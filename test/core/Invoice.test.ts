import { describe, expect, test } from 'bun:test'
import { decodeFunctionData, erc20Abi, maxUint256, zeroAddress } from 'viem'
import { InvalidTransitionError } from '../../core/Errors.js'
import * as Invoice from '../../core/Invoice.js'
import { fieldOf } from '../support/errors.js'

const alice = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const bob = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const carol = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const usdc: Invoice.Token = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 }
const createdAt = new Date('2030-01-01T00:00:00.000Z')
const dueDate = new Date('2030-01-31T00:00:00.000Z')
const txHash = `0x${'ab'.repeat(32)}` as const

function open(parameters: Partial<Invoice.from.Parameters> = {}): Invoice.Open {
  return Invoice.from({
    id: 'inv_1',
    creator: alice,
    recipient: bob,
    token: usdc,
    amount: 1_500_000n,
    dueDate,
    chainId: 8453,
    createdAt,
    createdAtBlock: 100n,
    ...parameters,
  })
}

function payment(parameters: Partial<Invoice.Payment> = {}): Invoice.Payment {
  return {
    txHash,
    from: carol,
    blockNumber: 101n,
    logIndex: 0,
    paidAt: new Date('2030-01-02T00:00:00.000Z'),
    ...parameters,
  }
}

const later = new Date('2030-01-05T00:00:00.000Z')
const afterDue = new Date('2030-02-01T00:00:00.000Z')

describe('from', () => {
  test('default: an open invoice carrying the transfer that pays it', () => {
    const invoice = open()
    expect(invoice.status).toBe('open')
    expect(invoice.scannedThroughBlock).toBe(100n)
    expect(invoice.transaction).toMatchObject({ to: usdc.address, value: '0', chainId: 8453 })
    expect(decodeFunctionData({ abi: erc20Abi, data: invoice.transaction.data })).toEqual({
      functionName: 'transfer',
      args: [bob, 1_500_000n],
    })
  })

  test('behavior: the recipient defaults to the creator', () => {
    const invoice = open({ recipient: undefined })
    expect(invoice.recipient).toBe(alice)
    expect(decodeFunctionData({ abi: erc20Abi, data: invoice.transaction.data }).args).toEqual([alice, 1_500_000n])
  })

  test('behavior: a memo of 280 code points is accepted, counting emoji as one', () => {
    expect(open({ memo: '🧾'.repeat(280) }).memo).toHaveLength(560)
  })

  test.each([
    ['amount', 'zero', { amount: 0n }],
    ['amount', 'above a uint256', { amount: maxUint256 + 1n }],
    ['recipient', 'the zero address', { recipient: zeroAddress }],
    ['memo', 'of 281 characters', { memo: 'x'.repeat(281) }],
    ['reference', 'empty', { reference: '' }],
    ['reference', 'of 65 characters', { reference: 'r'.repeat(65) }],
    ['dueDate', 'equal to the creation time', { dueDate: createdAt }],
    ['dueDate', 'in the past', { dueDate: new Date('2029-12-31T23:59:59.000Z') }],
  ] as const)('error: %s %s', (field, _, parameters) => {
    expect(fieldOf(() => open(parameters))).toBe(field)
  })
})

describe('transition', () => {
  test('behavior: open -> paid on a payment after creation and before the due date', () => {
    const paid = Invoice.transition(open(), { type: 'payment_observed', payment: payment() }, later)
    expect(paid).toMatchObject({ status: 'paid', payment: payment(), observedAt: later })
    expect('scannedThroughBlock' in paid).toBe(false)
  })

  test('behavior: a payment mined exactly at the due date pays', () => {
    const paid = Invoice.transition(
      open(),
      { type: 'payment_observed', payment: payment({ paidAt: dueDate }) },
      afterDue,
    )
    expect(paid.status).toBe('paid')
  })

  test('behavior: scanned moves the cursor forward only', () => {
    const scanned = Invoice.transition(open(), { type: 'scanned', throughBlock: 250n }, later) as Invoice.Open
    expect(scanned.scannedThroughBlock).toBe(250n)
    const again = Invoice.transition(scanned, { type: 'scanned', throughBlock: 200n }, later) as Invoice.Open
    expect(again.scannedThroughBlock).toBe(250n)
  })

  test('behavior: open -> expired after the due date', () => {
    expect(Invoice.transition(open(), { type: 'expire' }, afterDue)).toMatchObject({
      status: 'expired',
      expiredAt: afterDue,
    })
  })

  test('error: expire before the due date, or without one', () => {
    expect(() => Invoice.transition(open(), { type: 'expire' }, dueDate)).toThrow(InvalidTransitionError)
    expect(() => Invoice.transition(open({ dueDate: undefined }), { type: 'expire' }, afterDue)).toThrow(
      InvalidTransitionError,
    )
  })

  test('error: a payment mined at or before the creation block, or after the due date', () => {
    const observe = (changes: Partial<Invoice.Payment>) => () =>
      Invoice.transition(open(), { type: 'payment_observed', payment: payment(changes) }, afterDue)
    expect(observe({ blockNumber: 100n })).toThrow(InvalidTransitionError)
    expect(observe({ blockNumber: 99n })).toThrow(InvalidTransitionError)
    expect(observe({ paidAt: new Date(dueDate.getTime() + 1000) })).toThrow(InvalidTransitionError)
  })

  test.each(['scanned', 'payment_observed', 'expire'] as const)('error: paid and expired are final (%s)', (type) => {
    const event: Invoice.Event =
      type === 'scanned'
        ? { type, throughBlock: 500n }
        : type === 'payment_observed'
          ? { type, payment: payment() }
          : { type }
    const paid = Invoice.transition(open(), { type: 'payment_observed', payment: payment() }, later)
    const expired = Invoice.transition(open(), { type: 'expire' }, afterDue)
    expect(() => Invoice.transition(paid, event, afterDue)).toThrow('An invoice in status paid cannot take event')
    expect(() => Invoice.transition(expired, event, afterDue)).toThrow('An invoice in status expired cannot take event')
  })
})

describe('canPay', () => {
  test('behavior: without a due date any later block pays', () => {
    const invoice = open({ dueDate: undefined })
    expect(Invoice.canPay(invoice, payment({ paidAt: new Date('2099-01-01T00:00:00Z') }))).toBe(true)
    expect(Invoice.canPay(invoice, payment({ blockNumber: 100n }))).toBe(false)
  })
})

describe('serialize', () => {
  test('behavior: every status round-trips through JSON', () => {
    const invoices: Invoice.Invoice[] = [
      open({ memo: 'March', reference: 'PO-7' }),
      Invoice.transition(open(), { type: 'payment_observed', payment: payment() }, later),
      Invoice.transition(open({ dueDate }), { type: 'expire' }, afterDue),
      open({ dueDate: undefined }),
      open({ payer: alice }),
    ]
    for (const invoice of invoices)
      expect(Invoice.deserialize(JSON.parse(JSON.stringify(Invoice.serialize(invoice))))).toEqual(invoice)
  })

  test('behavior: the JSON form of a paid invoice', () => {
    const paid = Invoice.transition(open({ memo: 'March' }), { type: 'payment_observed', payment: payment() }, later)
    const { transaction, ...rest } = Invoice.serialize(paid)
    expect(transaction.data.startsWith('0xa9059cbb')).toBe(true)
    expect(rest).toMatchInlineSnapshot(`
      {
        "amount": "1500000",
        "chainId": 8453,
        "createdAt": "2030-01-01T00:00:00.000Z",
        "createdAtBlock": "100",
        "creator": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "dueDate": "2030-01-31T00:00:00.000Z",
        "id": "inv_1",
        "memo": "March",
        "observedAt": "2030-01-05T00:00:00.000Z",
        "payer": null,
        "payment": {
          "blockNumber": "101",
          "from": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
          "logIndex": 0,
          "paidAt": "2030-01-02T00:00:00.000Z",
          "txHash": "0xabababababababababababababababababababababababababababababababab",
        },
        "recipient": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "reference": null,
        "status": "paid",
        "token": {
          "address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          "decimals": 6,
          "symbol": "USDC",
        },
      }
    `)
  })
})
