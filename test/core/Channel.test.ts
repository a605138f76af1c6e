import { describe, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import * as Channel from '../../core/Channel.js'
import { InvalidTransitionError } from '../../core/Errors.js'

const payer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const receiver = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const config: Channel.Config = {
  payer,
  payerAuthorizer: payer,
  receiver,
  receiverAuthorizer: receiver,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  withdrawDelay: 900,
  salt: `0x${'00'.repeat(32)}`,
}
const channelId: Hex = `0x${'ab'.repeat(32)}`
const signature: Hex = `0x${'11'.repeat(65)}`
const now = new Date('2030-01-01T00:00:00.000Z')
const later = (ms: number) => new Date(now.getTime() + ms)
const onChain = { balance: 1_000n, totalClaimed: 100n, refundNonce: 2n, withdrawRequestedAt: 0 }
const fresh = Channel.from({ channelId, config, onChain })
const reservationMs = 120_000

/** The reservation of a call of `amount` with a voucher of `ceiling`. */
const reserve = (ceiling: bigint, amount = 10n, fingerprint = 'f1'): Channel.Event => ({
  type: 'reserve',
  voucher: { channelId, maxClaimableAmount: ceiling.toString(), signature },
  amount,
  fingerprint,
  reservationMs,
})

/** The `details.reason` the channel refuses `event` with in `state` at `at`. */
function refusalOf(state: Channel.State, event: Channel.Event, at = now): unknown {
  try {
    Channel.transition(state, event, at)
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidTransitionError)
    return (error as InvalidTransitionError).details?.reason
  }
  throw new Error('The event was not refused.')
}

describe('from', () => {
  test('default: the chain’s fields, nothing charged beyond what is claimed', () => {
    expect(fresh).toEqual({
      channelId,
      config,
      balance: '1000',
      totalClaimed: '100',
      charged: '100',
      refundNonce: '2',
      withdrawRequestedAt: 0,
    })
  })
})

describe('transition', () => {
  test('default: a reserved call charged advances the charged amount and keeps its voucher and answer', () => {
    const reserved = Channel.transition(fresh, reserve(110n), now)
    expect(reserved.pending).toEqual({ maxClaimableAmount: '110', amount: '10', signature, at: now.getTime() })
    const response = { status: 200, contentType: 'application/json', body: 'e30=' }
    const charged = Channel.transition(
      reserved,
      { type: 'finish', ceiling: 110n, charge: { fingerprint: 'f1', response } },
      now,
    )
    expect(charged).toEqual({
      ...fresh,
      charged: '110',
      voucher: { maxClaimableAmount: '110', signature, fingerprint: 'f1', response },
      pending: undefined,
    })
  })

  test('behavior: a call not charged leaves the charged amount; its writes are kept with the reservation until then', () => {
    const reserved = Channel.transition(fresh, reserve(110n), now)
    const effect = { type: 'insert', collection: 'invoices', id: 'inv_1' } as const
    const recorded = Channel.transition(reserved, { type: 'record', ceiling: 110n, effect }, now)
    expect(recorded.pending?.effects).toEqual([effect])
    expect(Channel.transition(recorded, { type: 'finish', ceiling: 110n }, now)).toEqual({
      ...fresh,
      pending: undefined,
    })
  })

  test('behavior: a reservation older than reservationMs is taken over by the next call', () => {
    const reserved = Channel.transition(fresh, reserve(110n), now)
    expect(refusalOf(reserved, reserve(110n, 10n, 'f2'), later(reservationMs - 1))).toBe('busy')
    const taken = Channel.transition(reserved, reserve(110n, 10n, 'f2'), later(reservationMs))
    expect(taken.pending?.at).toBe(later(reservationMs).getTime())
    expect(refusalOf(taken, { type: 'finish', ceiling: 120n }, later(reservationMs))).toBe('lost')
  })

  test('behavior: a read, a claim and a refund take the chain’s word; a claim never goes back', () => {
    const read = Channel.transition(fresh, { type: 'read', onChain: { ...onChain, balance: 2_000n } }, now)
    expect(read).toEqual({ ...fresh, balance: '2000' })
    expect(Channel.transition(read, { type: 'claimed', totalClaimed: 150n }, now).totalClaimed).toBe('150')
    expect(Channel.transition(read, { type: 'claimed', totalClaimed: 50n }, now)).toBe(read)
    const locked = Channel.transition(read, { type: 'lock', signature, reservationMs }, now)
    expect(locked.pending).toEqual({ maxClaimableAmount: '100', amount: '0', signature, at: now.getTime() })
    expect(refusalOf(locked, reserve(110n))).toBe('busy')
    const refunded = Channel.transition(locked, { type: 'refunded', onChain: { ...onChain, balance: 100n } }, now)
    expect(refunded).toEqual({ ...fresh, balance: '100', pending: undefined })
    expect(Channel.transition(locked, { type: 'unlock' }, now).pending).toBeUndefined()
  })

  test('error: a voucher that is not the charged amount plus the price, or beyond the balance', () => {
    expect(refusalOf(fresh, reserve(109n))).toBe('mismatch')
    expect(refusalOf(fresh, reserve(1_100n, 1_000n))).toBe('exceeds')
  })

  test('error: the voucher of the last served call, for the same request, is served already', () => {
    const reserved = Channel.transition(fresh, reserve(110n), now)
    const charged = Channel.transition(
      reserved,
      { type: 'finish', ceiling: 110n, charge: { fingerprint: 'f1', response: undefined } },
      now,
    )
    expect(refusalOf(charged, reserve(110n))).toBe('served')
    expect(refusalOf(charged, reserve(110n, 10n, 'f2'))).toBe('mismatch')
  })

  test('error: only the reserving call records or ends', () => {
    const effect = { type: 'insert', collection: 'invoices', id: 'inv_1' } as const
    expect(refusalOf(fresh, { type: 'record', ceiling: 110n, effect })).toBe('lost')
    expect(refusalOf(fresh, { type: 'finish', ceiling: 110n })).toBe('lost')
  })
})
