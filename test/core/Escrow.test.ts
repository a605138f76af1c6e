import { describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { ConflictError, InvalidTransitionError } from '../../core/Errors.js'
import * as Escrow from '../../core/Escrow.js'
import type { Deposit } from '../../core/EscrowChain.js'
import { fieldOf } from '../support/errors.js'

const id: Hex = `0x${'ab'.repeat(32)}`
const contract: Address = '0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404'
const depositor: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const beneficiary: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const arbiter: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const outsider: Address = '0x90F79bf6EB2c4F870365E785982E1f101E93b906'
const usdc: Escrow.Token = { symbol: 'USDC', address: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9', decimals: 6 }
const createdAt = new Date('2030-01-01T00:00:00.000Z')
const later = new Date('2030-01-01T00:05:00.000Z')
const settledAt = new Date('2030-01-01T00:10:00.000Z')

function created(overrides: Partial<Escrow.from.Parameters> = {}): Escrow.Created {
  return Escrow.from({
    id,
    chainId: 84_532,
    contract,
    depositor,
    beneficiary,
    arbiter,
    token: usdc,
    amount: 12_500_000n,
    expiry: new Date('2030-01-02T00:00:00.000Z'),
    createdAt,
    ...overrides,
  })
}

function depositOf(escrow: Escrow.Fields, overrides: Partial<Deposit> = {}): Deposit {
  return {
    status: 'active',
    depositor: escrow.depositor,
    beneficiary: escrow.beneficiary,
    arbiter: escrow.arbiter,
    token: escrow.token.address,
    amount: escrow.amount,
    expiry: escrow.expiry === undefined ? undefined : BigInt(escrow.expiry.getTime() / 1000),
    ...overrides,
  }
}

/** A 32-byte ABI word of a hex value, left-padded. */
function word(hex: string): string {
  return hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')
}

describe('from', () => {
  test('default', () => {
    expect(created()).toEqual({
      status: 'created',
      id,
      chainId: 84_532,
      contract,
      depositor,
      beneficiary,
      arbiter,
      token: usdc,
      amount: 12_500_000n,
      expiry: new Date('2030-01-02T00:00:00.000Z'),
      description: undefined,
      conditions: [],
      createdAt,
    })
  })

  test('behavior: no arbiter and no expiry', () => {
    const escrow = created({ arbiter: undefined, expiry: undefined })
    expect(escrow.arbiter).toBeUndefined()
    expect(escrow.expiry).toBeUndefined()
  })

  test('behavior: the expiry is cut to whole seconds, as the contract stores it', () => {
    expect(created({ expiry: new Date('2030-01-02T00:00:00.999Z') }).expiry).toEqual(
      new Date('2030-01-02T00:00:00.000Z'),
    )
  })

  test.each([
    ['id', { id: '0xabc' as Hex }],
    ['id', { id: `0x${'AB'.repeat(32)}` as Hex }],
    ['amount', { amount: 0n }],
    ['amount', { amount: 2n ** 256n }],
    ['beneficiary', { beneficiary: '0x0000000000000000000000000000000000000000' as Address }],
    ['token', { token: { ...usdc, address: '0x0000000000000000000000000000000000000000' as Address } }],
    ['arbiter', { arbiter: '0x0000000000000000000000000000000000000000' as Address }],
    ['expiry', { expiry: createdAt }],
    ['expiry', { expiry: new Date('2029-12-31T23:59:59.000Z') }],
    ['description', { description: 'd'.repeat(Escrow.maxDescriptionLength + 1) }],
    ['conditions', { conditions: Array.from({ length: Escrow.maxConditions + 1 }, () => 'c') }],
    ['conditions.1', { conditions: ['Design approved', ''] }],
    ['conditions.0', { conditions: ['c'.repeat(Escrow.maxConditionLength + 1)] }],
  ] as const)('error: %s is refused, as the contract would refuse it or beyond its bounds', (field, overrides) => {
    expect(fieldOf(() => created(overrides))).toBe(field)
  })
})

describe('transition', () => {
  test('default: created -> active on funded', () => {
    const active = Escrow.transition(created(), { type: 'funded' }, later)
    expect(active).toEqual({ ...created(), status: 'active', fundedAt: later })
  })

  test.each(['released', 'cancelled'] as const)('behavior: active -> %s, keeping when it was funded', (type) => {
    const active = Escrow.transition(created(), { type: 'funded' }, later)
    expect(Escrow.transition(active, { type }, settledAt)).toEqual({
      ...created(),
      status: type,
      fundedAt: later,
      settledAt,
    })
  })

  test.each([
    ['created', 'released', 'not_funded'],
    ['created', 'cancelled', 'not_funded'],
    ['active', 'funded', 'already_funded'],
    ['released', 'released', 'settled'],
    ['released', 'cancelled', 'settled'],
    ['released', 'funded', 'settled'],
    ['cancelled', 'released', 'settled'],
    ['cancelled', 'cancelled', 'settled'],
  ] as const)('error: %s cannot take %s (%s)', (status, type, reason) => {
    const states: Record<Escrow.Status, Escrow.Escrow> = {
      created: created(),
      active: { ...created(), status: 'active', fundedAt: later },
      released: { ...created(), status: 'released', fundedAt: later, settledAt },
      cancelled: { ...created(), status: 'cancelled', fundedAt: later, settledAt },
    }
    let error: unknown
    try {
      Escrow.transition(states[status], { type }, settledAt)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(InvalidTransitionError)
    expect((error as InvalidTransitionError).code).toBe('conflict')
    expect((error as InvalidTransitionError).details).toEqual({
      escrowId: id,
      escrowStatus: status,
      event: type,
      reason,
    })
  })

  test('behavior: pure; the input is not changed', () => {
    const escrow = created()
    const copy = structuredClone(escrow)
    Escrow.transition(escrow, { type: 'funded' }, later)
    expect(escrow).toEqual(copy)
  })
})

describe('isAllowed', () => {
  const escrow = created()
  const beforeExpiry = later
  const atExpiry = new Date('2030-01-02T00:00:00.000Z')

  test.each([
    ['release', 'depositor', 'before expiry', true, depositor, beforeExpiry],
    ['release', 'arbiter', 'before expiry', true, arbiter, beforeExpiry],
    ['release', 'beneficiary', 'before expiry', false, beneficiary, beforeExpiry],
    ['release', 'outsider', 'at expiry', false, outsider, atExpiry],
    ['cancel', 'depositor', 'before expiry', true, depositor, beforeExpiry],
    ['cancel', 'arbiter', 'before expiry', true, arbiter, beforeExpiry],
    ['cancel', 'beneficiary', 'before expiry', false, beneficiary, beforeExpiry],
    ['cancel', 'outsider', 'a millisecond before expiry', false, outsider, new Date(atExpiry.getTime() - 1)],
    ['cancel', 'beneficiary', 'at expiry', true, beneficiary, atExpiry],
    ['cancel', 'outsider', 'at expiry', true, outsider, atExpiry],
  ] as const)('behavior: %s by the %s %s -> %p', (action, _, __, allowed, caller, now) => {
    expect(Escrow.isAllowed({ escrow, action, caller, now })).toBe(allowed)
  })

  test('behavior: addresses compare in any case', () => {
    expect(
      Escrow.isAllowed({ escrow, action: 'release', caller: depositor.toLowerCase() as Address, now: later }),
    ).toBe(true)
  })

  test('behavior: without an expiry only the depositor and arbiter ever cancel', () => {
    const forever = created({ expiry: undefined })
    expect(Escrow.isAllowed({ escrow: forever, action: 'cancel', caller: outsider, now: new Date('2100-01-01') })).toBe(
      false,
    )
  })
})

describe('verify', () => {
  test('default: a matching deposit', () => {
    expect(Escrow.verify(created(), depositOf(created()))).toEqual({ ok: true, status: 'active' })
  })

  test('behavior: nothing deposited', () => {
    expect(Escrow.verify(created(), undefined)).toEqual({ ok: false, reason: 'not_deposited' })
  })

  test('behavior: every differing term is named', () => {
    const escrow = created()
    const deposit = depositOf(escrow, {
      depositor: outsider,
      token: contract,
      amount: 1n,
      beneficiary: outsider,
      arbiter: undefined,
      expiry: undefined,
    })
    expect(Escrow.verify(escrow, deposit)).toEqual({
      ok: false,
      reason: 'mismatch',
      fields: ['depositor', 'token', 'amount', 'beneficiary', 'arbiter', 'expiry'],
    })
  })

  test('behavior: no arbiter and no expiry match the contract zeros', () => {
    const escrow = created({ arbiter: undefined, expiry: undefined })
    expect(Escrow.verify(escrow, depositOf(escrow)).ok).toBe(true)
  })
})

describe('reconcile', () => {
  test('default: a created escrow with its deposit on chain becomes active', () => {
    expect(Escrow.reconcile(created(), depositOf(created()), later)).toEqual({
      ...created(),
      status: 'active',
      fundedAt: later,
    })
  })

  test('behavior: a deposit already released on chain takes the record to released in one step', () => {
    const escrow = Escrow.reconcile(created(), depositOf(created(), { status: 'released' }), later)
    expect(escrow).toMatchObject({ status: 'released', fundedAt: later, settledAt: later })
  })

  test('behavior: an escrow in line with the chain is returned unchanged', () => {
    const active = Escrow.reconcile(created(), depositOf(created()), later)
    expect(Escrow.reconcile(active, depositOf(created()), settledAt)).toBe(active)
  })

  test('error: nothing deposited is a conflict, with the reason', () => {
    expect(() => Escrow.reconcile(created(), undefined, later)).toThrow(ConflictError)
    try {
      Escrow.reconcile(created(), undefined, later)
    } catch (error) {
      expect((error as ConflictError).details).toEqual({ escrowId: id, reason: 'not_deposited' })
    }
  })

  test('error: other terms under the id are a conflict naming them', () => {
    try {
      Escrow.reconcile(created(), depositOf(created(), { amount: 1n }), later)
      throw new Error('expected a conflict')
    } catch (error) {
      expect(error).toBeInstanceOf(ConflictError)
      expect((error as ConflictError).details).toEqual({ escrowId: id, reason: 'mismatch', fields: ['amount'] })
    }
  })
})

describe('calldata', () => {
  test.each([
    ['release', Escrow.release({ id }), `0x67d42a8b${word(id)}`],
    ['cancel', Escrow.cancel({ id }), `0xc4d252f5${word(id)}`],
    [
      'approve',
      Escrow.approve({ spender: contract, amount: 12_500_000n }),
      `0x095ea7b3${word(contract)}${word('0xbebc20')}`,
    ],
    [
      'deposit',
      Escrow.deposit(created()),
      `0x35dd0576${word(id)}${word(usdc.address)}${word('0xbebc20')}${word(beneficiary)}${word(arbiter)}${word((1_893_542_400).toString(16))}`,
    ],
    [
      'deposit without arbiter and expiry',
      Escrow.deposit(created({ arbiter: undefined, expiry: undefined })),
      `0x35dd0576${word(id)}${word(usdc.address)}${word('0xbebc20')}${word(beneficiary)}${word('0')}${word('0')}`,
    ],
  ])('behavior: %s', (_, data, expected) => {
    expect(data).toBe(expected as Hex)
  })

  test('behavior: toFundingTransactions approves the contract for the amount, then deposits', () => {
    const escrow = created()
    expect(Escrow.toFundingTransactions(escrow)).toEqual({
      approve: {
        to: usdc.address,
        data: Escrow.approve({ spender: contract, amount: escrow.amount }),
        value: '0',
        chainId: 84_532,
      },
      deposit: { to: contract, data: Escrow.deposit(escrow), value: '0', chainId: 84_532 },
    })
  })

  test('behavior: toSettlementTransaction calls the escrow contract', () => {
    expect(Escrow.toSettlementTransaction(created(), 'release')).toEqual({
      to: contract,
      data: Escrow.release({ id }),
      value: '0',
      chainId: 84_532,
    })
    expect(Escrow.toSettlementTransaction(created(), 'cancel').data).toBe(Escrow.cancel({ id }))
  })
})

describe('serialize', () => {
  test('default: JSON-safe, absent fields as null', () => {
    expect(Escrow.serialize(created({ arbiter: undefined }))).toMatchInlineSnapshot(`
      {
        "amount": "12500000",
        "arbiter": null,
        "beneficiary": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "chainId": 84532,
        "conditions": [],
        "contract": "0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404",
        "createdAt": "2030-01-01T00:00:00.000Z",
        "depositor": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "description": null,
        "expiry": "2030-01-02T00:00:00.000Z",
        "fundedAt": null,
        "id": "0xabababababababababababababababababababababababababababababababab",
        "settledAt": null,
        "status": "created",
        "token": {
          "address": "0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9",
          "decimals": 6,
          "symbol": "USDC",
        },
      }
    `)
  })

  test('behavior: every status round-trips through JSON', () => {
    const active = Escrow.transition(created(), { type: 'funded' }, later)
    const escrows: Escrow.Escrow[] = [
      created(),
      created({ arbiter: undefined, expiry: undefined }),
      created({ description: 'Website redesign', conditions: ['Design approved', 'Dev complete'] }),
      active,
      Escrow.transition(active, { type: 'released' }, settledAt),
      Escrow.transition(active, { type: 'cancelled' }, settledAt),
    ]
    for (const escrow of escrows)
      expect(Escrow.deserialize(JSON.parse(JSON.stringify(Escrow.serialize(escrow))))).toEqual(escrow)
  })
})
