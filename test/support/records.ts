import type { Address, Hex } from 'viem'
import type * as Authorization from '../../core/Authorization.js'
import * as Escrow from '../../core/Escrow.js'
import type * as Futures from '../../core/Futures.js'
import * as Invoice from '../../core/Invoice.js'

// Records of every type the stores keep with bigint amounts and dates, each in every status: their JSON as the
// hand-written serializers wrote it is kept in test/fixtures/records/<name>.json, which records already stored read as.

const alice: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const bob: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const carol: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const usdc = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as Address, decimals: 6 }
const createdAt = new Date('2030-01-01T00:00:00.000Z')

const invoiceOpen = Invoice.from({
  id: 'inv_0123456789abcdef0123456789abcdef',
  creator: alice,
  recipient: bob,
  payer: carol,
  token: usdc,
  amount: 1_500_000n,
  memo: 'March hosting',
  reference: 'PO-7',
  dueDate: new Date('2030-01-31T00:00:00.000Z'),
  chainId: 8453,
  createdAt,
  createdAtBlock: 100n,
})

const invoiceBare = Invoice.from({
  id: 'inv_fedcba9876543210fedcba9876543210',
  creator: alice,
  token: usdc,
  amount: 115_792_089_237_316_195_423_570_985_008_687_907_853_269_984_665_640_564_039_457_584_007_913_129_639_935n,
  chainId: 8453,
  createdAt,
  createdAtBlock: 0n,
})

const escrowCreated = Escrow.from({
  id: `0x${'ab'.repeat(32)}` as Hex,
  chainId: 84_532,
  contract: '0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404',
  depositor: alice,
  beneficiary: bob,
  arbiter: carol,
  token: usdc,
  amount: 12_500_000n,
  expiry: new Date('2030-01-02T00:00:00.000Z'),
  description: 'Logo design',
  conditions: ['Three drafts', 'Vector files'],
  createdAt,
})

const escrowBare = Escrow.from({
  id: `0x${'cd'.repeat(32)}` as Hex,
  chainId: 84_532,
  contract: '0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404',
  depositor: alice,
  beneficiary: bob,
  token: usdc,
  amount: 1n,
  createdAt,
})

const escrowActive = Escrow.transition(escrowCreated, { type: 'funded' }, new Date('2030-01-01T00:05:00.000Z'))

/** Sample records by the name of their fixture, with the functions that serialize and read them. */
export const records = {
  'invoice-open': { value: invoiceOpen as Invoice.Invoice, codec: Invoice },
  'invoice-open-bare': { value: invoiceBare as Invoice.Invoice, codec: Invoice },
  'invoice-paid': {
    value: Invoice.transition(
      invoiceOpen,
      {
        type: 'payment_observed',
        payment: {
          txHash: `0x${'ef'.repeat(32)}`,
          from: carol,
          blockNumber: 101n,
          logIndex: 3,
          paidAt: new Date('2030-01-02T00:00:00.000Z'),
        },
      },
      new Date('2030-01-02T00:00:05.123Z'),
    ),
    codec: Invoice,
  },
  'invoice-expired': {
    value: Invoice.transition(invoiceOpen, { type: 'expire' }, new Date('2030-02-01T00:00:00.000Z')),
    codec: Invoice,
  },
  'escrow-created': { value: escrowCreated as Escrow.Escrow, codec: Escrow },
  'escrow-created-bare': { value: escrowBare as Escrow.Escrow, codec: Escrow },
  'escrow-active': { value: escrowActive, codec: Escrow },
  'escrow-released': {
    value: Escrow.transition(escrowActive, { type: 'released' }, new Date('2030-01-01T00:10:00.000Z')),
    codec: Escrow,
  },
  'escrow-cancelled': {
    value: Escrow.transition(escrowActive, { type: 'cancelled' }, new Date('2030-01-01T00:10:00.000Z')),
    codec: Escrow,
  },
} as const

/** Futures balances, beside their fixture `futures-balances`. */
export const balances: Futures.Balances = {
  available: 7_250_000n,
  reserved: 1_000_000n,
  refunding: 0n,
  deposited: 10_000_000n,
  spent: 1_750_000n,
  refunded: 0n,
  jobs: 4,
}

/** A signed EIP-3009 authorization, beside its fixture `authorization`. */
export const authorization: Authorization.Signed = {
  from: alice,
  to: bob,
  value: 10_000n,
  validAfter: 0n,
  validBefore: 1_893_456_000n,
  nonce: `0x${'12'.repeat(32)}`,
  signature: `0x${'34'.repeat(65)}`,
}
