import { describe, expect, test } from 'bun:test'
import { InvalidTransitionError } from '../../core/Errors.js'
import * as Futures from '../../core/Futures.js'

describe('tierOf', () => {
  test.each([
    [0n, 'starter', 0n],
    [9_999_999n, 'starter', 0n],
    [10_000_000n, 'builder', 500n],
    [49_999_999n, 'builder', 500n],
    [50_000_000n, 'scale', 1_000n],
    [199_999_999n, 'scale', 1_000n],
    [200_000_000n, 'enterprise', 1_500n],
    [10_000_000_000n, 'enterprise', 1_500n],
  ])('behavior: %p bought is %s (%p bps)', (bought, name, discountBps) => {
    const { tier } = Futures.tierOf(bought)
    expect(tier.name).toBe(name as Futures.Tier['name'])
    expect(tier.discountBps).toBe(discountBps)
  })

  test('behavior: names the next tier up, none past enterprise', () => {
    expect(Futures.tierOf(0n).next?.name).toBe('builder')
    expect(Futures.tierOf(60_000_000n).next?.name).toBe('enterprise')
    expect(Futures.tierOf(200_000_000n).next).toBeUndefined()
  })
})

describe('costOf', () => {
  test.each([
    [1_000_000n, 0n, 1_000_000n],
    [1_000_000n, 500n, 950_000n],
    [1_000_000n, 1_500n, 850_000n],
    // 3001 at 95% is 2850.95: the cost rounds down, never above the advertised rate.
    [3_000n, 500n, 2_850n],
    [3_001n, 500n, 2_850n],
    [3_000n, 1_500n, 2_550n],
    [1n, 1_500n, 0n],
    [0n, 1_500n, 0n],
  ])('vector: %p at %p bps costs %p', (price, discountBps, cost) => {
    expect(Futures.costOf({ price, discountBps })).toBe(cost)
  })

  test('error: a negative price', () => {
    expect(() => Futures.costOf({ price: -1n, discountBps: 0n })).toThrow(RangeError)
  })
})

describe('apply', () => {
  test('behavior: a deposit, a job charged, a job released, a refund: double entry holds after each', () => {
    let balances = Futures.empty
    const steps: [Futures.Kind, bigint][] = [
      ['deposit', 20_000_000n],
      ['reserve', 950_000n],
      ['charge', 950_000n],
      ['reserve', 95_000n],
      ['release', 95_000n],
      ['hold', 5_000_000n],
      ['refund', 5_000_000n],
      ['hold', 1_000_000n],
      ['reverse', 1_000_000n],
    ]
    for (const [kind, amount] of steps) {
      balances = Futures.apply(balances, kind, amount)
      const accounts = Futures.accountsOf(balances)
      expect(accounts.usdc).toBe(accounts.available + accounts.reserved + accounts.refunding + accounts.revenue)
    }
    expect(balances).toEqual({
      available: 14_050_000n,
      reserved: 0n,
      refunding: 0n,
      deposited: 20_000_000n,
      spent: 950_000n,
      refunded: 5_000_000n,
      jobs: 1,
    })
    expect(Futures.boughtOf(balances)).toBe(15_000_000n)
  })

  test('error: never below zero', () => {
    const funded = Futures.apply(Futures.empty, 'deposit', 1_000n)
    expect(() => Futures.apply(funded, 'reserve', 1_001n)).toThrow(InvalidTransitionError)
    expect(() => Futures.apply(funded, 'charge', 1n)).toThrow(InvalidTransitionError)
    expect(() => Futures.apply(funded, 'refund', 1n)).toThrow(InvalidTransitionError)
    expect(Futures.apply(funded, 'reserve', 1_000n).available).toBe(0n)
  })

  test('error: a movement of nothing', () => {
    expect(() => Futures.apply(Futures.empty, 'deposit', 0n)).toThrow(InvalidTransitionError)
  })

  test('behavior: balances round-trip through JSON', () => {
    const balances = Futures.apply(Futures.empty, 'deposit', 123_456_789n)
    expect(Futures.deserialize(JSON.parse(JSON.stringify(Futures.serialize(balances))))).toEqual(balances)
  })
})

describe('idOf', () => {
  test('behavior: one id per depositor and chain, whatever the letter case', () => {
    const depositor = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const id = Futures.idOf({ depositor, chainId: 8453 })
    expect(Futures.isId(id)).toBe(true)
    expect(Futures.idOf({ depositor: depositor.toLowerCase() as `0x${string}`, chainId: 8453 })).toBe(id)
    expect(Futures.idOf({ depositor, chainId: 84532 })).not.toBe(id)
  })
})

describe('solanaDepositOf', () => {
  const payer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const depositTokenAccount = 'Deposit1111111111111111111111111111111111111'
  const base: Futures.SolanaTransaction = {
    status: 'success',
    commitment: 'finalized',
    signers: ['Sender11111111111111111111111111111111111111'],
    memos: [`compute-futures:${payer}`],
    changes: [
      {
        tokenAccount: 'Source11111111111111111111111111111111111111',
        owner: 'Sender11111111111111111111111111111111111111',
        change: -2_000_000n,
      },
      { tokenAccount: depositTokenAccount, owner: 'Operator111111111111111111111111111111111111', change: 2_000_000n },
    ],
  }

  test('default: the amount received, the payer the memo names, and the signer whose account it left', () => {
    expect(Futures.solanaDepositOf({ transaction: base, depositTokenAccount })).toEqual({
      ok: true,
      amount: 2_000_000n,
      payer,
      depositor: 'Sender11111111111111111111111111111111111111',
      tokenAccount: 'Source11111111111111111111111111111111111111',
    })
  })

  test('behavior: a lowercase address and other memos beside it are read; a fee paid elsewhere is not credited', () => {
    const found = Futures.solanaDepositOf({
      transaction: {
        ...base,
        memos: ['order 42', ` compute-futures:${payer.toLowerCase()} `],
        changes: [
          { ...base.changes[0]!, change: -2_100_000n },
          base.changes[1]!,
          { tokenAccount: 'Fee1111111111111111111111111111111111111111', owner: 'Fee', change: 100_000n },
        ],
      },
      depositTokenAccount,
    })
    expect(found).toMatchObject({ ok: true, amount: 2_000_000n, payer })
  })

  test.each([
    ['failed', { status: 'failed' }],
    ['no_transfer', { changes: [base.changes[0]!] }],
    [
      'several_sources',
      {
        changes: [
          ...base.changes,
          { tokenAccount: 'Other', owner: 'Sender11111111111111111111111111111111111111', change: -1n },
        ],
      },
    ],
    ['unsigned_source', { signers: ['Relayer1111111111111111111111111111111111111'] }],
    // Minted into the deposit account: it left no account at all.
    ['unsigned_source', { changes: [base.changes[1]!] }],
    ['unsigned_source', { changes: [{ ...base.changes[0]!, change: -1_000_000n }, base.changes[1]!] }],
    ['no_memo', { memos: [] }],
    ['no_memo', { memos: ['compute-futures:0x1234'] }],
    [
      'several_memos',
      { memos: [`compute-futures:${payer}`, 'compute-futures:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'] },
    ],
  ] as const)('error: %s', (reason, override) => {
    const transaction = { ...base, ...override } as Futures.SolanaTransaction
    expect(Futures.solanaDepositOf({ transaction, depositTokenAccount })).toEqual({ ok: false, reason })
  })
})

describe('transition', () => {
  const at = new Date('2026-01-01T00:00:00Z')
  const signed = { hash: `0x${'ab'.repeat(32)}` as const, nonce: 7 }
  const holding: Futures.Refund = {
    account: 'cfe_000000000000000000000000',
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    createdAt: at.toISOString(),
    state: 'holding',
  }
  const settle = (movement: 'refund' | 'reverse', seconds = 0) =>
    ({ type: 'settle', movement, reason: 'why', at: new Date(at.getTime() + seconds * 1000), ttlMs: 60_000 }) as const

  test('default: holding, signed, settling, refunded', () => {
    const sent = Futures.transition(holding, { type: 'sign', signed, at })
    expect(sent).toMatchObject({ state: 'signed', signed, signedAt: at.toISOString() })
    const settling = Futures.transition(sent, settle('refund'))
    expect(settling).toMatchObject({ state: 'settling', movement: 'refund', signed })
    expect(Futures.transition(settling, { type: 'settled', sequence: 3 })).toMatchObject({
      state: 'refunded',
      signed,
      sequence: 3,
    })
  })

  test('behavior: a refund a settler took is never signed, and one with no transfer only reverses', () => {
    const settling = Futures.transition(holding, settle('reverse'))
    expect(() => Futures.transition(settling, { type: 'sign', signed, at })).toThrow(InvalidTransitionError)
    expect(() => Futures.transition(holding, settle('refund'))).toThrow(InvalidTransitionError)
    expect(Futures.transition(settling, { type: 'settled', sequence: undefined })).toMatchObject({
      state: 'reversed',
      reason: 'why',
    })
  })

  test('behavior: a settling refund is taken over only after the TTL, keeping its movement; a settled one never', () => {
    const settling = Futures.transition(Futures.transition(holding, { type: 'sign', signed, at }), settle('refund'))
    expect(() => Futures.transition(settling, settle('reverse', 59))).toThrow(InvalidTransitionError)
    expect(Futures.transition(settling, settle('reverse', 61))).toMatchObject({ state: 'settling', movement: 'refund' })
    const refunded = Futures.transition(settling, { type: 'settled', sequence: 3 })
    expect(() => Futures.transition(refunded, settle('reverse', 600))).toThrow(InvalidTransitionError)
    expect(() => Futures.transition(refunded, { type: 'settled', sequence: 4 })).toThrow(InvalidTransitionError)
  })
})

describe('depositTransition', () => {
  const at = new Date('2026-01-01T00:00:00Z')
  const later = (seconds: number) => new Date(at.getTime() + seconds * 1000)
  const claimed: Futures.Deposit = {
    account: 'cfe_000000000000000000000000',
    amount: '5000000',
    claimedAt: at.toISOString(),
    state: 'claimed',
  }
  const reasonOf = (run: () => unknown) => {
    try {
      run()
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidTransitionError)
      return (error as InvalidTransitionError).details?.reason
    }
  }

  test('default: claimed, then credited with its journal entry', () => {
    expect(Futures.depositTransition(claimed, { type: 'credited', sequence: 4 }, at)).toEqual({
      ...claimed,
      state: 'credited',
      sequence: 4,
    })
  })

  test('behavior: a claim is taken over only after its TTL, and is then the new call’s', () => {
    expect(reasonOf(() => Futures.depositTransition(claimed, { type: 'taken', ttlMs: 60_000 }, later(59)))).toBe(
      'in_progress',
    )
    expect(Futures.depositTransition(claimed, { type: 'taken', ttlMs: 60_000 }, later(61))).toEqual({
      ...claimed,
      claimedAt: later(61).toISOString(),
    })
  })

  test('error: a credited claim is neither taken over nor credited again', () => {
    const credited = Futures.depositTransition(claimed, { type: 'credited', sequence: 4 }, at)
    expect(reasonOf(() => Futures.depositTransition(credited, { type: 'taken', ttlMs: 60_000 }, later(600)))).toBe(
      'credited',
    )
    expect(reasonOf(() => Futures.depositTransition(credited, { type: 'credited', sequence: 5 }, at))).toBe('credited')
  })
})
