import { describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import * as Breaker from '../../core/Breaker.js'
import * as Errors from '../../core/Errors.js'
import * as Escrow from '../../core/Escrow.js'
import * as Invoice from '../../core/Invoice.js'
import * as Ledger from '../../core/Ledger.js'
import type * as Machine from '../../core/Machine.js'

const alice: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const bob: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const token = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 } as const
const now = new Date('2030-01-01T00:00:00.000Z')

// Type-checked by tsc: every machine of the project has the one shape.
const machines = {
  ledger: Ledger.transition satisfies Machine.Transition<Ledger.Entry, Ledger.Event>,
  escrow: Escrow.transition satisfies Machine.Transition<Escrow.Escrow, Escrow.Event>,
  invoice: Invoice.transition satisfies Machine.Transition<Invoice.Invoice, Invoice.Event>,
  breaker: Breaker.transition satisfies Machine.Transition<Breaker.State, Breaker.Event, Breaker.transition.Parameters>,
}

/** One event each machine refuses in a state it can be in. */
const refused: Record<'ledger' | 'escrow' | 'invoice', () => unknown> = {
  ledger: () =>
    machines.ledger(
      {
        payer: alice,
        nonce: `0x${'00'.repeat(32)}` as Hex,
        state: 'released',
        amount: 1n,
        endpoint: 'GET /x',
        protocol: 'x402-v2',
        transaction: undefined,
        reason: 'handler failed',
        authorization: '{}',
        fingerprint: 'f',
        idempotencyKey: undefined,
        lease: undefined,
        response: undefined,
        effects: [],
        claimedAt: now,
        updatedAt: now,
      },
      { type: 'settle', response: undefined },
      now,
    ),
  escrow: () =>
    machines.escrow(
      Escrow.from({
        id: `0x${'ab'.repeat(32)}`,
        chainId: 1,
        contract: bob,
        depositor: alice,
        beneficiary: bob,
        token,
        amount: 1n,
        createdAt: now,
      }),
      { type: 'released' },
      now,
    ),
  invoice: () =>
    machines.invoice(
      Invoice.from({ id: 'inv', creator: alice, token, amount: 1n, chainId: 1, createdAt: now, createdAtBlock: 1n }),
      { type: 'expire' },
      now,
    ),
}

describe('Machine.Transition', () => {
  test.each(Object.keys(refused) as (keyof typeof refused)[])(
    'error: %s throws the one InvalidTransitionError, code conflict',
    (name) => {
      let error: unknown
      try {
        refused[name]()
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(Errors.InvalidTransitionError)
      expect(error).toMatchObject({ code: 'conflict', name: 'InvalidTransitionError' })
    },
  )
})
