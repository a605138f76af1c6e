import { describe, expect, test } from 'bun:test'
import { getAddress, type Hex, toHex } from 'viem'
import { grouped } from '../../../adapters/ledger/grouped.js'
import { memory } from '../../../adapters/ledger/memory.js'
import { InvalidTransitionError } from '../../../core/Errors.js'
import type { Claim, Ledger } from '../../../core/Ledger.js'

const random = (bytes: number): Hex => toHex(crypto.getRandomValues(new Uint8Array(bytes)))

function claimOf(): Claim {
  return {
    payer: getAddress(random(20)),
    nonce: random(32),
    amount: 1_000n,
    endpoint: 'GET /api/v1/rpc/chains',
    protocol: 'x402-v2',
    authorization: '{"signature":"0x01"}',
    fingerprint: 'fingerprint',
    lease: 'lease',
    claimedAt: new Date(),
  }
}

/** A memory ledger that counts the `applyAll` calls it answers, and fails them while `failing` is set. */
function counted() {
  const inner = memory()
  const calls: number[] = []
  let failing = false
  const ledger: Ledger = {
    ...inner,
    async applyAll(moves) {
      calls.push(moves.length)
      if (failing) throw new Error('the database went away')
      return inner.applyAll(moves)
    },
  }
  return {
    ledger,
    calls,
    fail: (on: boolean) => {
      failing = on
    },
  }
}

describe('grouped', () => {
  test('behavior: moves asked for together commit as one group, each caller getting its own outcome', async () => {
    const { ledger, calls } = counted()
    const group = grouped(ledger)
    const claims = Array.from({ length: 30 }, claimOf)
    for (const claim of claims) await ledger.claim(claim)
    const outcomes = await Promise.allSettled(
      claims.flatMap((claim, index) => [
        group.apply(claim, { type: 'settle', response: undefined }),
        // Every third entry is settled twice: the second move is refused, alone.
        ...(index % 3 === 0 ? [group.apply(claim, { type: 'settle', response: undefined })] : []),
      ]),
    )
    expect(calls).toEqual([40])
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(refused).toHaveLength(10)
    for (const outcome of refused) expect(outcome.reason).toBeInstanceOf(InvalidTransitionError)
    for (const claim of claims) expect((await ledger.get(claim))?.state).toBe('settling')
  })

  test('behavior: moves asked for while a group is written go in the next group, in order', async () => {
    const { ledger, calls } = counted()
    const group = grouped(ledger)
    const claim = claimOf()
    await ledger.claim(claim)
    const first = group.apply(claim, { type: 'settle', response: undefined })
    await new Promise((resolve) => setImmediate(resolve))
    const transaction = random(32)
    const later = [
      group.apply(claim, { type: 'submitted', transaction }),
      group.apply(claim, { type: 'confirmed', transaction }),
    ]
    expect((await first).state).toBe('settling')
    expect((await Promise.all(later)).map((entry) => entry.state)).toEqual(['settling', 'settled'])
    expect(calls).toEqual([1, 2])
  })

  test('error: a fault of the database fails its group, and the next group still runs', async () => {
    const { ledger, fail } = counted()
    const group = grouped(ledger)
    const claim = claimOf()
    await ledger.claim(claim)
    fail(true)
    await expect(group.apply(claim, { type: 'settle', response: undefined })).rejects.toThrow('went away')
    expect((await ledger.get(claim))?.state).toBe('claimed')
    fail(false)
    expect((await group.apply(claim, { type: 'settle', response: undefined })).state).toBe('settling')
  })
})
