import { Database } from 'bun:sqlite'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import postgresJs from 'postgres'
import { type Address, getAddress, type Hash, type Hex, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory } from '../../../adapters/ledger/memory.js'
import { postgres } from '../../../adapters/ledger/postgres.js'
import { pgLeases, pgPayments, sqliteLeases, sqlitePayments } from '../../../adapters/ledger/schema.js'
import { sqlite } from '../../../adapters/ledger/sqlite.js'
import { memory as memoryQueue } from '../../../adapters/queue/memory.js'
import { postgres as postgresQueue } from '../../../adapters/queue/postgres.js'
import { sqlite as sqliteQueue } from '../../../adapters/queue/sqlite.js'
import { InvalidTransitionError } from '../../../core/Errors.js'
import type { Claim, ClaimResult, Entry, Event, Ledger, State, StoredResponse } from '../../../core/Ledger.js'
import type { Queue } from '../../../core/Queue.js'
import type { Effect } from '../../../core/Store.js'
import { type Fixture, postgresFixture, sqliteFixture } from '../../support/backends.js'
import { expectPgSchema, expectSqliteSchema } from '../../support/migration.js'

const root = join(import.meta.dir, '../../..')
const databaseUrl = process.env.DATABASE_URL
const payer: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

const random32 = () => toHex(crypto.getRandomValues(new Uint8Array(32)))
const nonce = (): Hex => random32()
const hash = (): Hash => random32()
/** A payer no other test uses, so that its outstanding claims and idempotency keys are its test's alone. */
const freshPayer = (): Address => getAddress(toHex(crypto.getRandomValues(new Uint8Array(20))))
const idempotencyKey = () => `key-${crypto.randomUUID()}`

function claimOf(parameters: Partial<Claim> = {}): Claim {
  return {
    payer,
    nonce: nonce(),
    amount: 10_000n,
    endpoint: 'POST /api/v1/rpc/call',
    protocol: 'x402-v2',
    authorization: '{"signature":"0x01"}',
    fingerprint: `0x${'ab'.repeat(32)}`,
    lease: 'lease-of-the-test',
    claimedAt: new Date(),
    ...parameters,
  }
}

/** The entry that a claim creates. */
function entryOf(claim: Claim): Entry {
  const { balance: _balance, ...recorded } = claim
  return {
    ...recorded,
    idempotencyKey: claim.idempotencyKey,
    state: 'claimed',
    transaction: undefined,
    reason: undefined,
    response: undefined,
    effects: [],
    updatedAt: claim.claimedAt,
  }
}

/** The entry of a claim result that must have succeeded. */
function claimed(result: ClaimResult): Entry {
  if (!result.ok) throw new Error(`The claim was refused: ${result.reason}.`)
  return result.entry
}

/** A store that a backend opens ledgers on; every `open` of one store shares its data. */
type Store = Fixture<Ledger>

const postgresStore = (url: string) => postgresFixture(url, 'ledger', (sql) => postgres({ sql }))
const sqliteStore = () => sqliteFixture('ledger', (path) => sqlite({ path }))

/** The backends under the contract; `shared` when two instances see one store (memory instances do not). */
const backends: { name: string; shared: boolean; store: () => Promise<Store> }[] = [
  { name: 'memory', shared: false, store: async () => ({ open: memory, teardown: async () => {} }) },
  { name: 'sqlite', shared: true, store: async () => sqliteStore() },
  ...(databaseUrl ? [{ name: 'postgres', shared: true, store: () => postgresStore(databaseUrl) }] : []),
]

/** A response as a handler's would be kept; its body is base64. */
const response: StoredResponse = { status: 200, contentType: 'application/json', body: btoa('{"ok":true}') }

/** An update effect whose `before` value must come back exactly: key order, `\u0000`, a large amount as text. */
const effect: Effect = {
  type: 'update',
  collection: 'invoices',
  id: 'invoice-1',
  before: { z: 1, a: { status: 'open', memo: 'é \u0000 🦊' }, '10': [null, true], amount: (2n ** 200n).toString() },
  version: 3,
}

/** Events that lead from `claimed` to each state. */
const pathTo: Record<State, Event[]> = {
  claimed: [],
  settling: [{ type: 'settle', response }],
  settled: [
    { type: 'settle', response },
    { type: 'confirmed', transaction: `0x${'11'.repeat(32)}` },
  ],
  failed: [{ type: 'fail', reason: 'reverted' }],
  released: [{ type: 'release', reason: 'handler failed' }],
}

const events: Event[] = [
  { type: 'effect', effect },
  { type: 'settle', response },
  { type: 'submitted', transaction: `0x${'22'.repeat(32)}` },
  { type: 'adopt', from: 'lease-of-the-test', lease: 'lease-of-another-process' },
  { type: 'confirmed', transaction: `0x${'33'.repeat(32)}` },
  { type: 'fail', reason: 'reverted' },
  { type: 'release', reason: 'handler failed' },
]

/** Every legal move: from, event, resulting state. */
const legal: [State, Event['type'], State][] = [
  ['claimed', 'effect', 'claimed'],
  ['claimed', 'settle', 'settling'],
  ['claimed', 'fail', 'failed'],
  ['claimed', 'release', 'released'],
  ['settling', 'submitted', 'settling'],
  ['settling', 'adopt', 'settling'],
  ['settling', 'confirmed', 'settled'],
  ['settling', 'fail', 'failed'],
]
const states = Object.keys(pathTo) as State[]
const illegal = states.flatMap((from) =>
  events
    .filter((event) => !legal.some(([state, type]) => state === from && type === event.type))
    .map((event) => [from, event.type, event] as const),
)

describe.each(backends)('ledger: $name', (backend) => {
  let store: Store
  let ledger: Ledger

  beforeAll(async () => {
    store = await backend.store()
    ledger = store.open()
  })
  afterAll(async () => {
    await ledger.close()
    await store.teardown()
  })

  async function entryIn(state: State, parameters: Partial<Claim> = {}, on: Ledger = ledger) {
    const claim = claimOf(parameters)
    const result = await on.claim(claim)
    expect(result.ok).toBe(true)
    for (const event of pathTo[state]) await on.apply(claim, event)
    return claim
  }

  /** A second instance on the same store where the backend shares one, else the suite's instance. */
  async function withOther(run: (other: Ledger) => Promise<void>) {
    const other = backend.shared ? store.open() : ledger
    try {
      await run(other)
    } finally {
      if (other !== ledger) await other.close()
    }
  }

  describe('claim', () => {
    test('default', async () => {
      const claim = claimOf()
      const result = await ledger.claim(claim)
      expect(result).toEqual({
        ok: true,
        entry: {
          ...claim,
          idempotencyKey: undefined,
          state: 'claimed',
          transaction: undefined,
          reason: undefined,
          response: undefined,
          effects: [],
          updatedAt: claim.claimedAt,
        },
      })
      expect(await ledger.get(claim)).toEqual(result.ok ? result.entry : undefined)
    })

    test('behavior: records the fingerprint, the idempotency key and the lease, not the balance', async () => {
      const claim = claimOf({
        payer: freshPayer(),
        fingerprint: 'GET /x?y=1 #body',
        idempotencyKey: idempotencyKey(),
        lease: 'lease-42',
        balance: 10n ** 18n,
      })
      const entry = claimed(await ledger.claim(claim))
      expect(entry).toEqual(entryOf(claim))
      expect(entry).not.toHaveProperty('balance')
      expect(await ledger.get(claim)).toEqual(entry)
    })

    test('behavior: a Solana payer is kept as written (base58 has case), distinct from every EVM payer', async () => {
      const solanaPayer =
        'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' as const
      const claim = claimOf({ payer: solanaPayer })
      expect(claimed(await ledger.claim(claim))).toEqual(entryOf(claim))
      expect((await ledger.get(claim))?.payer).toBe(solanaPayer)
      expect(await ledger.claim({ ...claim, claimedAt: new Date() })).toMatchObject({ ok: false, reason: 'replayed' })
      expect(
        await ledger.get({
          payer: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:9wzdxwbbmkg8ztbnmquxvqrayrzzdsgydlvl9zytawwm',
          nonce: claim.nonce,
        }),
      ).toBeUndefined()
      for (const event of pathTo.settled) await ledger.apply(claim, event)
      expect(await ledger.settled(solanaPayer)).toMatchObject({ count: 1, amount: claim.amount })
    })

    test('behavior: a second claim is refused as replayed, with the entry that holds the key', async () => {
      const claim = claimOf()
      const first = await ledger.claim(claim)
      const second = await ledger.claim({ ...claim, amount: 1n, endpoint: 'GET /other', claimedAt: new Date() })
      expect(second).toEqual({ ok: false, reason: 'replayed', existing: first.ok ? first.entry : (undefined as never) })
    })

    test.each(['settling', 'settled', 'failed'] as const)('behavior: refused while %s', async (state) => {
      const claim = await entryIn(state)
      const result = await ledger.claim({ ...claim, claimedAt: new Date() })
      expect(result.ok).toBe(false)
      expect(result).toMatchObject({ reason: 'replayed', existing: { state } })
    })

    test('behavior: a released entry is claimed afresh', async () => {
      // Its idempotency key, lease and effects go with it: the new claim is another request.
      const claim = await entryIn('claimed', { idempotencyKey: idempotencyKey() })
      await ledger.apply(claim, { type: 'effect', effect })
      await ledger.apply(claim, { type: 'release', reason: 'handler failed' })
      const again = claimOf({
        nonce: claim.nonce,
        amount: 5n,
        endpoint: 'GET /again',
        protocol: 'mpp',
        authorization: '{"signature":"0x02"}',
        fingerprint: 'another request',
        lease: 'another lease',
      })
      const result = await ledger.claim(again)
      expect(result).toEqual({
        ok: true,
        entry: {
          ...again,
          idempotencyKey: undefined,
          state: 'claimed',
          transaction: undefined,
          reason: undefined,
          response: undefined,
          effects: [],
          updatedAt: again.claimedAt,
        },
      })
      expect((await ledger.claim(again)).ok).toBe(false)
    })

    test('behavior: the key ignores letter case (payer checksummed, nonce lowercase)', async () => {
      const fresh = claimOf({ payer: payer.toLowerCase() as Address, nonce: `0x${random32().slice(2).toUpperCase()}` })
      const result = await ledger.claim(fresh)
      expect(result.ok && result.entry.payer).toBe(payer)
      expect(result.ok && result.entry.nonce).toBe(fresh.nonce.toLowerCase() as Hex)
      const replay = await ledger.claim({ ...fresh, payer, nonce: fresh.nonce.toLowerCase() as Hex })
      expect(replay.ok).toBe(false)
      expect(await ledger.get({ payer: payer.toLowerCase() as Address, nonce: fresh.nonce })).toBeDefined()
    })

    test('behavior: amounts above 2^64 round-trip exactly, up to 2^256 - 1', async () => {
      for (const amount of [2n ** 64n + 1n, 2n ** 256n - 1n, 0n]) {
        const claim = claimOf({ amount })
        const result = await ledger.claim(claim)
        expect(result.ok && result.entry.amount).toBe(amount)
        expect((await ledger.get(claim))?.amount).toBe(amount)
      }
    })

    test('error: a negative amount is a fault', async () => {
      await expect(ledger.claim(claimOf({ amount: -1n }))).rejects.toThrow()
      await expect(ledger.claim(claimOf({ payer: freshPayer(), amount: -1n, balance: 10n }))).rejects.toThrow()
    })

    test('behavior: dates round-trip to the millisecond', async () => {
      const claimedAt = new Date('2001-02-03T04:05:06.789Z')
      const claim = claimOf({ claimedAt })
      await ledger.claim(claim)
      const entry = await ledger.get(claim)
      expect(entry?.claimedAt).toBeInstanceOf(Date)
      expect(entry?.claimedAt.getTime()).toBe(claimedAt.getTime())
      expect(entry?.updatedAt.getTime()).toBe(claimedAt.getTime())
    })

    test('behavior: 20 concurrent claims of one key, exactly one wins', async () => {
      const claim = claimOf()
      const results = await Promise.all(Array.from({ length: 20 }, () => ledger.claim(claim)))
      const winners = results.filter((result) => result.ok)
      expect(winners).toHaveLength(1)
      for (const result of results)
        if (!result.ok) expect(result).toEqual({ ok: false, reason: 'replayed', existing: claimed(winners[0]!) })
    })

    test.skipIf(!backend.shared)(
      'behavior: two instances on one store, concurrent claims, exactly one wins per key',
      async () => {
        const other = store.open()
        try {
          const claims = Array.from({ length: 20 }, () => claimOf())
          const results = await Promise.all(
            claims.flatMap((claim) => [ledger, other, ledger, other].map((instance) => instance.claim(claim))),
          )
          for (let index = 0; index < claims.length; index++)
            expect(results.slice(index * 4, index * 4 + 4).filter((result) => result.ok)).toHaveLength(1)
        } finally {
          await other.close()
        }
      },
    )
  })

  describe('claim: idempotency key', () => {
    test.each(['claimed', 'settling', 'settled'] as const)(
      'error: a key the payer holds in a %s entry is duplicate, with that entry',
      async (state) => {
        const key = idempotencyKey()
        const first = await entryIn(state, { idempotencyKey: key })
        const holder = await ledger.get(first)
        const result = await ledger.claim(claimOf({ idempotencyKey: key }))
        expect(result).toEqual({ ok: false, reason: 'duplicate', existing: holder! })
      },
    )

    test.each(['released', 'failed'] as const)('behavior: a %s entry frees its key', async (state) => {
      const key = idempotencyKey()
      await entryIn(state, { idempotencyKey: key })
      const again = claimOf({ idempotencyKey: key })
      expect(claimed(await ledger.claim(again))).toEqual(entryOf(again))
      expect((await ledger.claim(claimOf({ idempotencyKey: key }))).ok).toBe(false)
    })

    test('behavior: a released entry claimed afresh takes its key back, unless another entry took it', async () => {
      const key = idempotencyKey()
      const first = await entryIn('released', { idempotencyKey: key })
      const taker = claimOf({ idempotencyKey: key })
      await ledger.claim(taker)
      const result = await ledger.claim({ ...first, claimedAt: new Date() })
      expect(result).toEqual({ ok: false, reason: 'duplicate', existing: (await ledger.get(taker))! })
      expect((await ledger.get(first))?.state).toBe('released')
    })

    test('behavior: another payer may hold the same key, and claims without a key never meet', async () => {
      const key = idempotencyKey()
      expect((await ledger.claim(claimOf({ idempotencyKey: key }))).ok).toBe(true)
      expect((await ledger.claim(claimOf({ payer: freshPayer(), idempotencyKey: key }))).ok).toBe(true)
      expect((await ledger.claim(claimOf())).ok).toBe(true)
      expect((await ledger.claim(claimOf())).ok).toBe(true)
    })

    test('behavior: a replay of the same authorization with its key is replayed, not duplicate', async () => {
      const claim = claimOf({ idempotencyKey: idempotencyKey() })
      const entry = claimed(await ledger.claim(claim))
      expect(await ledger.claim(claim)).toEqual({ ok: false, reason: 'replayed', existing: entry })
    })

    test('behavior: 20 concurrent claims with one key, exactly one wins, the others are duplicate', async () => {
      const key = idempotencyKey()
      await withOther(async (other) => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            (index % 2 === 0 ? ledger : other).claim(claimOf({ idempotencyKey: key })),
          ),
        )
        const winners = results.filter((result) => result.ok)
        expect(winners).toHaveLength(1)
        for (const result of results)
          if (!result.ok) expect(result).toEqual({ ok: false, reason: 'duplicate', existing: claimed(winners[0]!) })
      })
    })
  })

  describe('claim: balance', () => {
    test('behavior: outstanding claims (claimed and settling) plus this one must fit in the balance', async () => {
      const owner = freshPayer()
      const bounded = (parameters: Partial<Claim> = {}) =>
        claimOf({ payer: owner, amount: 10n, balance: 30n, ...parameters })
      const [first, second, third] = [bounded(), bounded(), bounded()]
      for (const claim of [first, second, third]) expect(claimed(await ledger.claim(claim))).toEqual(entryOf(claim))
      const refused = bounded()
      expect(await ledger.claim(refused)).toEqual({ ok: false, reason: 'insufficient_funds', outstanding: 30n })
      expect(await ledger.get(refused)).toBeUndefined()

      // Settling still counts; settled, failed and released do not.
      await ledger.apply(first, { type: 'settle', response })
      expect(await ledger.claim(bounded())).toMatchObject({ reason: 'insufficient_funds', outstanding: 30n })
      await ledger.apply(first, { type: 'confirmed', transaction: hash() })
      expect((await ledger.claim(refused)).ok).toBe(true)
      await ledger.apply(second, { type: 'fail', reason: 'reverted' })
      await ledger.apply(third, { type: 'release', reason: 'handler failed' })
      expect(await ledger.claim(bounded({ amount: 21n }))).toMatchObject({
        reason: 'insufficient_funds',
        outstanding: 10n,
      })
      expect((await ledger.claim(bounded({ amount: 20n }))).ok).toBe(true)
    })

    test('behavior: an entry settled after the balance was read counts against it; one settled before does not', async () => {
      const owner = freshPayer()
      const first = claimOf({ payer: owner, amount: 10n, balance: 10n })
      expect((await ledger.claim(first)).ok).toBe(true)
      // A second call reads the balance (still 10: the first has not moved it yet), then the first settles.
      const readBefore = new Date()
      await Bun.sleep(5)
      await ledger.apply(first, { type: 'settle', response })
      await ledger.apply(first, { type: 'confirmed', transaction: hash() })
      expect(await ledger.claim(claimOf({ payer: owner, amount: 10n, balance: 10n, balanceAt: readBefore }))).toEqual({
        ok: false,
        reason: 'insufficient_funds',
        outstanding: 10n,
      })
      // A balance read after the settlement shows it, so the settled entry no longer counts.
      await Bun.sleep(5)
      const readAfter = new Date()
      const fresh = await ledger.claim(claimOf({ payer: owner, amount: 10n, balance: 10n, balanceAt: readAfter }))
      expect(fresh.ok).toBe(true)
    })

    test('behavior: a claim filling the balance exactly succeeds; a zero balance takes only zero amounts', async () => {
      const owner = freshPayer()
      expect((await ledger.claim(claimOf({ payer: owner, amount: 7n, balance: 7n }))).ok).toBe(true)
      const other = freshPayer()
      expect(await ledger.claim(claimOf({ payer: other, amount: 1n, balance: 0n }))).toEqual({
        ok: false,
        reason: 'insufficient_funds',
        outstanding: 0n,
      })
      expect((await ledger.claim(claimOf({ payer: other, amount: 0n, balance: 0n }))).ok).toBe(true)
    })

    test('behavior: claims without a balance are not bounded, but count against those with one', async () => {
      const owner = freshPayer()
      for (let index = 0; index < 3; index++)
        expect((await ledger.claim(claimOf({ payer: owner, amount: 10n }))).ok).toBe(true)
      expect(await ledger.claim(claimOf({ payer: owner, amount: 1n, balance: 30n }))).toMatchObject({
        reason: 'insufficient_funds',
        outstanding: 30n,
      })
      expect((await ledger.claim(claimOf({ payer: owner, amount: 1n, balance: 31n }))).ok).toBe(true)
    })

    test('behavior: the balance counts only its payer, whatever the letter case', async () => {
      const owner = freshPayer()
      await ledger.claim(claimOf({ payer: freshPayer(), amount: 100n }))
      await ledger.claim(claimOf({ payer: owner.toLowerCase() as Address, amount: 5n }))
      expect(await ledger.claim(claimOf({ payer: owner, amount: 6n, balance: 10n }))).toMatchObject({
        reason: 'insufficient_funds',
        outstanding: 5n,
      })
      const lowercase = claimOf({ payer: owner.toLowerCase() as Address, amount: 5n, balance: 10n })
      expect((await ledger.claim(lowercase)).ok).toBe(true)
    })

    test('behavior: amounts beyond 2^64 are summed exactly', async () => {
      const owner = freshPayer()
      const big = 2n ** 200n + 1n
      expect((await ledger.claim(claimOf({ payer: owner, amount: big, balance: 2n * big }))).ok).toBe(true)
      expect((await ledger.claim(claimOf({ payer: owner, amount: big + 1n, balance: 2n * big }))).ok).toBe(false)
      const result = await ledger.claim(claimOf({ payer: owner, amount: big, balance: 2n * big }))
      expect(result.ok).toBe(true)
      expect(await ledger.claim(claimOf({ payer: owner, amount: 1n, balance: 2n * big }))).toMatchObject({
        outstanding: 2n * big,
      })
    })

    test('behavior: a replay is replayed and a held key duplicate, before the balance is looked at', async () => {
      const owner = freshPayer()
      const key = idempotencyKey()
      const claim = claimOf({ payer: owner, amount: 10n, balance: 10n, idempotencyKey: key })
      const entry = claimed(await ledger.claim(claim))
      expect(await ledger.claim(claim)).toEqual({ ok: false, reason: 'replayed', existing: entry })
      const another = { ...claim, nonce: nonce() }
      expect(await ledger.claim(another)).toEqual({ ok: false, reason: 'duplicate', existing: entry })
    })

    test('behavior: a released entry is claimed afresh within the balance', async () => {
      const owner = freshPayer()
      const claim = await entryIn('released', { payer: owner, amount: 10n, balance: 10n })
      expect((await ledger.claim({ ...claim, claimedAt: new Date() })).ok).toBe(true)
      expect((await ledger.claim(claimOf({ payer: owner, amount: 1n, balance: 10n }))).ok).toBe(false)
    })

    test('behavior: 20 concurrent claims with a balance covering exactly 3, exactly 3 win', async () => {
      const owner = freshPayer()
      await withOther(async (other) => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            (index % 2 === 0 ? ledger : other).claim(claimOf({ payer: owner, amount: 10n, balance: 30n })),
          ),
        )
        expect(results.filter((result) => result.ok)).toHaveLength(3)
        for (const result of results)
          if (!result.ok) expect(result).toEqual({ ok: false, reason: 'insufficient_funds', outstanding: 30n })
        const held = await ledger.list({ state: 'claimed', limit: 10_000 })
        expect(held.filter((entry) => entry.payer === owner)).toHaveLength(3)
      })
    })
  })

  describe('apply', () => {
    test('behavior: adopt moves an undecided settlement only from the lease that holds it; two takers, one wins', async () => {
      const claim = await entryIn('settling')
      await expect(
        ledger.apply(claim, { type: 'adopt', from: 'a-lease-that-never-held-it', lease: 'mine' }),
      ).rejects.toThrow(InvalidTransitionError)
      const given = await ledger.apply(claim, { type: 'adopt', from: 'lease-of-the-test', lease: undefined })
      expect(given.lease).toBeUndefined()
      await withOther(async (other) => {
        const outcomes = await Promise.allSettled(
          [ledger, other].map((instance, index) =>
            instance.apply(claim, { type: 'adopt', from: undefined, lease: `taker-${index}` }),
          ),
        )
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
      })
    })

    test.each(legal)('behavior: %s + %s -> %s', async (from, type, to) => {
      const claim = await entryIn(from)
      const before = (await ledger.get(claim))!
      const event = events.find((event) => event.type === type)!
      const entry = await ledger.apply(claim, event)
      expect(entry.state).toBe(to)
      expect(entry.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime())
      if ('transaction' in event) expect(entry.transaction).toBe(event.transaction)
      if ('reason' in event) expect(entry.reason).toBe(event.reason)
      if (event.type === 'effect') expect(entry.effects).toEqual([...before.effects, event.effect])
      if (event.type === 'settle') expect(entry.response).toEqual(event.response)
      expect(await ledger.get(claim)).toEqual(entry)
    })

    test.each(illegal)('error: %s refuses %s', async (from, _type, event) => {
      const claim = await entryIn(from)
      const before = await ledger.get(claim)
      await expect(ledger.apply(claim, event)).rejects.toBeInstanceOf(InvalidTransitionError)
      expect(await ledger.get(claim)).toEqual(before)
    })

    test('behavior: submitted keeps the entry settling and records the hash, confirmed settles it', async () => {
      const claim = await entryIn('settling')
      const transaction = hash()
      const submitted = await ledger.apply(claim, { type: 'submitted', transaction })
      expect(submitted).toMatchObject({ state: 'settling', transaction })
      const settled = await ledger.apply(claim, { type: 'confirmed', transaction })
      expect(settled).toMatchObject({ state: 'settled', transaction, reason: undefined })
    })

    test('behavior: effects accumulate in order and round-trip exactly, key order included', async () => {
      const claim = await entryIn('claimed')
      const effects: Effect[] = [
        { type: 'insert', collection: 'invoices', id: 'invoice-2' },
        effect,
        { type: 'update', collection: 'escrows', id: 'e', before: null, version: 2 },
        {
          type: 'remove',
          collection: 'webhooks',
          id: 'w',
          record: { owners: [payer], value: effect.before, createdAt: '2025-01-02T03:04:05.678Z' },
        },
        { type: 'append', chain: `audit:${payer}`, sequence: 7 },
      ]
      for (const next of effects) await ledger.apply(claim, { type: 'effect', effect: next })
      const entry = await ledger.get(claim)
      expect(entry?.effects).toEqual(effects)
      expect(JSON.stringify(entry?.effects)).toBe(JSON.stringify(effects))
      expect(entry?.state).toBe('claimed')
    })

    test('behavior: settle keeps the response; confirmed keeps it and drops the lease and the effects', async () => {
      const claim = await entryIn('claimed', { lease: 'lease-a' })
      await ledger.apply(claim, { type: 'effect', effect })
      const settling = await ledger.apply(claim, { type: 'settle', response })
      expect(settling).toMatchObject({ state: 'settling', response, lease: 'lease-a', effects: [effect] })
      const settled = await ledger.apply(claim, { type: 'confirmed', transaction: hash() })
      expect(settled).toMatchObject({ state: 'settled', response, lease: undefined, effects: [] })
      expect(await ledger.get(claim)).toEqual(settled)
    })

    test('behavior: settle without a response keeps none', async () => {
      const claim = await entryIn('claimed')
      expect((await ledger.apply(claim, { type: 'settle', response: undefined })).response).toBeUndefined()
      expect((await ledger.get(claim))?.response).toBeUndefined()
    })

    test.each([
      ['claimed', { type: 'release', reason: 'handler failed' }],
      ['claimed', { type: 'fail', reason: 'reverted' }],
      ['settling', { type: 'fail', reason: 'reverted' }],
    ] as const)('behavior: %s + %o drops the lease and the response, keeps the effects', async (from, event) => {
      const claim = await entryIn('claimed', { lease: 'lease-b' })
      await ledger.apply(claim, { type: 'effect', effect })
      for (const step of pathTo[from]) await ledger.apply(claim, step)
      const entry = await ledger.apply(claim, event)
      expect(entry).toMatchObject({ lease: undefined, response: undefined, effects: [effect] })
      expect(await ledger.get(claim)).toEqual(entry)
    })

    test('behavior: concurrent events on one entry apply one at a time', async () => {
      const claim = await entryIn('claimed')
      const settle = () => ledger.apply(claim, { type: 'settle', response })
      const results = await Promise.allSettled(Array.from({ length: 10 }, settle))
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      for (const result of results)
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(InvalidTransitionError)
    })

    test('behavior: 20 concurrent effects on one entry are all kept', async () => {
      const claim = await entryIn('claimed')
      await withOther(async (other) => {
        await Promise.all(
          Array.from({ length: 20 }, (_, sequence) =>
            (sequence % 2 === 0 ? ledger : other).apply(claim, {
              type: 'effect',
              effect: { type: 'append', chain: 'audit', sequence },
            }),
          ),
        )
      })
      const effects = (await ledger.get(claim))!.effects as { sequence: number }[]
      expect(effects.map(({ sequence }) => sequence).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index),
      )
    })

    test('error: an unknown key is a fault', async () => {
      await expect(ledger.apply({ payer, nonce: nonce() }, { type: 'settle', response })).rejects.toBeInstanceOf(
        InvalidTransitionError,
      )
    })
  })

  describe('applyAll', () => {
    test('behavior: applies the moves in order in one call; a refused one fails alone and writes nothing', async () => {
      const [first, second] = [await entryIn('claimed'), await entryIn('settled')]
      const before = await ledger.get(second)
      const transaction = hash()
      const moved = await ledger.applyAll([
        { key: first, event: { type: 'settle', response } },
        { key: second, event: { type: 'settle', response } },
        { key: { payer, nonce: nonce() }, event: { type: 'settle', response } },
        { key: first, event: { type: 'submitted', transaction } },
        { key: first, event: { type: 'confirmed', transaction } },
      ])
      expect(moved.map((one) => one.ok)).toEqual([true, false, false, true, true])
      for (const one of moved) if (!one.ok) expect(one.error).toBeInstanceOf(InvalidTransitionError)
      expect(moved[0]).toMatchObject({ entry: { state: 'settling', response } })
      expect(moved[4]).toMatchObject({ entry: { state: 'settled', transaction } })
      expect(await ledger.get(first)).toEqual((moved[4] as { entry: Entry }).entry)
      expect(await ledger.get(second)).toEqual(before)
    })

    test('behavior: two instances applying the same entries in opposite orders both finish, every move kept', async () => {
      const claims = await Promise.all(Array.from({ length: 6 }, () => entryIn('claimed')))
      await withOther(async (other) => {
        const movesOf = (order: Claim[], offset: number) =>
          order.map((claim, index) => ({
            key: claim,
            event: {
              type: 'effect' as const,
              effect: { type: 'append' as const, chain: 'audit', sequence: offset + index },
            },
          }))
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, round) =>
            round % 2 === 0
              ? ledger.applyAll(movesOf(claims, round * 10))
              : other.applyAll(movesOf([...claims].reverse(), round * 10)),
          ),
        )
        expect(results.flat().every((one) => one.ok)).toBe(true)
      })
      for (const claim of claims) expect((await ledger.get(claim))!.effects).toHaveLength(10)
    })
  })

  describe('close', () => {
    test('error: a closed instance refuses work', async () => {
      const other = store.open()
      await other.close()
      await expect(other.claim(claimOf())).rejects.toThrow()
      await expect(other.get({ payer, nonce: nonce() })).rejects.toThrow()
      await expect(other.find({ payer, idempotencyKey: 'k' })).rejects.toThrow()
      await expect(other.leases()).rejects.toThrow()
    })
  })

  describe('get', () => {
    test('behavior: an unknown key is undefined', async () => {
      expect(await ledger.get({ payer, nonce: nonce() })).toBeUndefined()
    })
  })

  describe('find', () => {
    test('default', async () => {
      const key = idempotencyKey()
      const claim = claimOf({ idempotencyKey: key })
      const entry = claimed(await ledger.claim(claim))
      expect(await ledger.find({ payer, idempotencyKey: key })).toEqual(entry)
      expect(await ledger.find({ payer: payer.toLowerCase() as Address, idempotencyKey: key })).toEqual(entry)
    })

    test.each(['settling', 'settled'] as const)('behavior: finds a %s entry, with its response', async (state) => {
      const key = idempotencyKey()
      const claim = await entryIn(state, { idempotencyKey: key })
      expect(await ledger.find({ payer, idempotencyKey: key })).toEqual((await ledger.get(claim))!)
      expect((await ledger.find({ payer, idempotencyKey: key }))?.response).toEqual(response)
    })

    test.each(['released', 'failed'] as const)('behavior: a %s entry is not found', async (state) => {
      const key = idempotencyKey()
      await entryIn(state, { idempotencyKey: key })
      expect(await ledger.find({ payer, idempotencyKey: key })).toBeUndefined()
    })

    test("behavior: an unknown key, or another payer's, is undefined", async () => {
      const key = idempotencyKey()
      await ledger.claim(claimOf({ idempotencyKey: key }))
      expect(await ledger.find({ payer, idempotencyKey: idempotencyKey() })).toBeUndefined()
      expect(await ledger.find({ payer: freshPayer(), idempotencyKey: key })).toBeUndefined()
    })
  })

  describe('list', () => {
    test('behavior: entries in a state, oldest first, up to the limit', async () => {
      // Older than any other entry of the suite, so these come first whatever else the store holds.
      const at = (minute: number) => new Date(Date.UTC(1990, 0, 1, 0, minute))
      const claims = [3, 1, 4, 2].map((minute) => claimOf({ claimedAt: at(minute) }))
      for (const claim of claims) await ledger.claim(claim)
      await ledger.apply(claims[3]!, { type: 'settle', response })

      const claimed = await ledger.list({ state: 'claimed', limit: 2 })
      expect(claimed.map((entry) => entry.claimedAt.getTime())).toEqual([at(1).getTime(), at(3).getTime()])
      expect(claimed.map((entry) => entry.nonce)).toEqual([claims[1]!.nonce, claims[0]!.nonce])

      const settling = await ledger.list({ state: 'settling' })
      expect(settling[0]?.nonce).toBe(claims[3]!.nonce)
      expect(settling.every((entry) => entry.state === 'settling')).toBe(true)
    })

    test('behavior: the limit defaults to 100', async () => {
      const at = new Date(Date.UTC(1989, 0, 1))
      await Promise.all(Array.from({ length: 101 }, () => ledger.claim(claimOf({ claimedAt: at }))))
      expect(await ledger.list({ state: 'claimed' })).toHaveLength(100)
    })
  })

  describe('settled', () => {
    test('behavior: counts and sums only the settled entries of the payer, exactly, with the first and last settlement', async () => {
      const own = privateKeyToAccount(generatePrivateKey()).address
      expect(await ledger.settled(own)).toEqual({ count: 0, amount: 0n, first: undefined, last: undefined })
      const big = 2n ** 70n
      const before = Date.now()
      await entryIn('settled', { payer: own, amount: big })
      await entryIn('settled', { payer: own, amount: 5n })
      await entryIn('settling', { payer: own, amount: 7n })
      await entryIn('released', { payer: own, amount: 9n })
      await entryIn('failed', { payer: own, amount: 11n })
      await entryIn('settled', { amount: 13n })

      const summary = await ledger.settled(own.toLowerCase() as Address)
      expect(summary.count).toBe(2)
      expect(summary.amount).toBe(big + 5n)
      expect(summary.first!.getTime()).toBeGreaterThanOrEqual(before - 1)
      expect(summary.last!.getTime()).toBeGreaterThanOrEqual(summary.first!.getTime())
      expect(summary.last!.getTime()).toBeLessThanOrEqual(Date.now() + 1)
    })
  })

  // A store of their own: `forget` and the leases are counted over the whole store.
  describe('on a store of its own', () => {
    let own: Store
    let mine: Ledger
    beforeEach(async () => {
      own = await backend.store()
      mine = own.open()
    })
    afterEach(async () => {
      await mine.close()
      await own.teardown()
    })

    describe('forget', () => {
      test('default', async () => {
        const settled = await entryIn('settled', {}, mine)
        const settling = await entryIn('settling', {}, mine)
        const failed = await entryIn('failed', {}, mine)
        const before = await mine.get(settled)
        expect(await mine.forget({ before: new Date(Date.now() + 60_000) })).toBe(1)
        expect(await mine.get(settled)).toEqual({ ...before!, response: undefined })
        expect((await mine.get(settling))?.response).toEqual(response)
        expect((await mine.get(failed))?.response).toBeUndefined()
        expect(await mine.forget({ before: new Date(Date.now() + 60_000) })).toBe(0)
      })

      test('behavior: keeps the responses of entries changed at or after `before`', async () => {
        const settled = await entryIn('settled', {}, mine)
        const { updatedAt } = (await mine.get(settled))!
        expect(await mine.forget({ before: updatedAt })).toBe(0)
        expect((await mine.get(settled))?.response).toEqual(response)
        expect(await mine.forget({ before: new Date(updatedAt.getTime() + 1) })).toBe(1)
      })
    })

    describe('leases', () => {
      const leaseOf = (heartbeatAt = new Date()) => ({
        id: crypto.randomUUID(),
        host: 'gateway-1',
        pid: 4242,
        heartbeatAt,
        staleBefore: new Date(0),
      })

      test('default', async () => {
        const { staleBefore: _, ...lease } = leaseOf(new Date('2001-02-03T04:05:06.789Z'))
        const acquired = await mine.acquire({ ...lease, staleBefore: new Date(0) })
        expect(acquired).toEqual({ ...lease, slot: 0 })
        expect(await mine.leases()).toEqual([acquired])
      })

      test('behavior: each lease takes the lowest free slot, from 0', async () => {
        const [a, b, c] = [await mine.acquire(leaseOf()), await mine.acquire(leaseOf()), await mine.acquire(leaseOf())]
        expect([a.slot, b.slot, c.slot]).toEqual([0, 1, 2])
        await mine.drop(b.id)
        expect((await mine.acquire(leaseOf())).slot).toBe(1)
        await mine.drop(a.id)
        expect((await mine.acquire(leaseOf())).slot).toBe(0)
        expect((await mine.acquire(leaseOf())).slot).toBe(3)
        expect((await mine.leases()).map(({ slot }) => slot)).toEqual([0, 1, 2, 3])
      })

      test('behavior: a stale lease is removed and its slot reused; renewing it is false', async () => {
        const now = Date.now()
        const stale = await mine.acquire(leaseOf(new Date(now - 600_000)))
        const live = await mine.acquire(leaseOf(new Date(now - 10_000)))
        const fresh = await mine.acquire({ ...leaseOf(new Date(now)), staleBefore: new Date(now - 60_000) })
        expect(fresh.slot).toBe(stale.slot)
        expect(await mine.leases()).toEqual([fresh, live].sort((x, y) => x.slot - y.slot))
        expect(await mine.renew({ id: stale.id, now: new Date() })).toBe(false)
        expect(await mine.renew({ id: live.id, now: new Date() })).toBe(true)
      })

      test('behavior: renew moves the heartbeat; after drop it is false', async () => {
        const lease = await mine.acquire(leaseOf(new Date(Date.now() - 5_000)))
        const now = new Date()
        expect(await mine.renew({ id: lease.id, now })).toBe(true)
        expect(await mine.leases()).toEqual([{ ...lease, heartbeatAt: now }])
        await mine.drop(lease.id)
        expect(await mine.renew({ id: lease.id, now: new Date() })).toBe(false)
        expect(await mine.leases()).toEqual([])
        await mine.drop(lease.id)
      })

      test('behavior: 10 concurrent acquires take distinct slots 0..9', async () => {
        const other = backend.shared ? own.open() : mine
        try {
          const acquired = await Promise.all(
            Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? mine : other).acquire(leaseOf())),
          )
          expect(acquired.map(({ slot }) => slot).sort((a, b) => a - b)).toEqual(
            Array.from({ length: 10 }, (_, index) => index),
          )
          expect(await other.leases()).toHaveLength(10)
        } finally {
          if (other !== mine) await other.close()
        }
      })

      test('error: acquiring one id twice is a fault', async () => {
        const lease = leaseOf()
        await mine.acquire(lease)
        await expect(mine.acquire(lease)).rejects.toThrow()
        expect(await mine.leases()).toHaveLength(1)
      })
    })
  })
})

/** A ledger in another process, started by {@link claimer}: it claims the nonces of an order file in turn. */
type Claimer = {
  /** Lets it claim. */
  start: () => Promise<void>
  /** The nonces it won, once it has exited. */
  won: () => Promise<Hex[]>
}

/** Starts `claim-fixture.ts` on `backend` (`sqlite:<file>` or `postgres:<schema>`) and waits until it is ready. */
async function claimer(parameters: {
  backend: string
  owner: Address
  nonces: Hex[]
  balance?: bigint
}): Promise<Claimer> {
  const { backend, owner, nonces, balance } = parameters
  const order = join(tmpdir(), `ledger-order-${crypto.randomUUID()}.json`)
  await Bun.write(order, JSON.stringify(shuffle(nonces)))
  const fixture = join(import.meta.dir, 'claim-fixture.ts')
  const bounded = balance === undefined ? [] : [`${balance}`]
  const child = Bun.spawn([join(root, 'node_modules/.bin/bun'), fixture, backend, owner, order, ...bounded], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = child.stdout.getReader()
  let output = ''
  try {
    while (!output.includes('ready\n')) {
      const { done, value } = await reader.read()
      if (done) throw new Error('The claim fixture exited before it was ready.')
      output += new TextDecoder().decode(value)
    }
  } finally {
    // Read before it said ready, or never needed again.
    await Bun.file(order).delete()
  }
  output = output.slice(output.indexOf('ready\n') + 'ready\n'.length)
  return {
    start: async () => {
      await child.stdin.end()
    },
    won: async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        output += new TextDecoder().decode(value)
      }
      expect(await child.exited).toBe(0)
      return JSON.parse(output) as Hex[]
    },
  }
}

/** Each process walks the keys in its own random order: while they overlap, both write and meet on held keys. */
function shuffle(values: Hex[]): Hex[] {
  return values
    .map((value) => ({ value, key: Math.random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ value }) => value)
}

/** The shared backends, each with the argument that names its store to the claim fixture. */
/** A ledger whose moves enqueue their outbox work on `queue`, both on one database. */
type Outboxed = { ledger: Ledger; queue: Queue }

const outboxBackends: { name: string; open: () => Promise<Fixture<Outboxed>> }[] = [
  {
    name: 'memory',
    open: async () => {
      const queue = memoryQueue()
      return { open: () => ({ ledger: memory({ queue }), queue }), teardown: async () => {} }
    },
  },
  {
    name: 'sqlite',
    open: async () => {
      // The ledger's file and the store's, which holds the queue, as the gateway lays them out.
      const fixture = sqliteFixture('ledger-outbox', (path) => ({
        ledger: sqlite({ path, outbox: join(dirname(path), 'store.db') }),
        queue: sqliteQueue({ path: join(dirname(path), 'store.db') }),
      }))
      return fixture
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'postgres',
          open: () =>
            postgresFixture(databaseUrl, 'ledger_outbox', (sql) => ({
              ledger: postgres({ sql }),
              queue: postgresQueue({ sql }),
            })),
        },
      ]
    : []),
]

describe.each(outboxBackends)('ledger: $name, apply with outbox work', (backend) => {
  let fixture: Fixture<Outboxed>
  let ledger: Ledger
  let queue: Queue
  beforeAll(async () => {
    fixture = await backend.open()
    ;({ ledger, queue } = fixture.open())
  })
  afterAll(async () => {
    await ledger.close()
    await queue.close()
    await fixture.teardown()
  })

  const itemOf = (id: string) => ({ queue: 'events', id, payload: { type: 'payment.settled', id } })

  async function settling() {
    const claim = claimOf({ payer: freshPayer() })
    claimed(await ledger.claim(claim))
    await ledger.apply(claim, { type: 'settle', response })
    return claim
  }

  test('behavior: the work commits with the move', async () => {
    const claim = await settling()
    const id = `payment.settled:${claim.nonce}`
    const settled = await ledger.apply(claim, { type: 'confirmed', transaction: hash() }, { enqueue: [itemOf(id)] })
    expect(settled.state).toBe('settled')
    expect(await queue.get('events', id)).toMatchObject({ state: 'pending', attempts: 0, payload: itemOf(id).payload })
  })

  test('behavior: a refused move enqueues nothing and changes nothing', async () => {
    const claim = await settling()
    await ledger.apply(claim, { type: 'confirmed', transaction: hash() })
    const before = await ledger.get(claim)
    const id = `payment.settled:${claim.nonce}:again`
    await expect(
      ledger.apply(claim, { type: 'confirmed', transaction: hash() }, { enqueue: [itemOf(id)] }),
    ).rejects.toBeInstanceOf(InvalidTransitionError)
    expect(await queue.get('events', id)).toBeUndefined()
    expect(await ledger.get(claim)).toEqual(before)
  })

  test('behavior: an id already enqueued is left as it was', async () => {
    const id = `payment.settled:${nonce()}`
    await queue.enqueue([{ queue: 'events', id, payload: { first: true } }])
    const claim = await settling()
    await ledger.apply(claim, { type: 'confirmed', transaction: hash() }, { enqueue: [itemOf(id)] })
    expect((await queue.get('events', id))?.payload).toEqual({ first: true })
  })
})

describe('ledger: apply with outbox work, no queue', () => {
  test.each([
    ['memory', () => ({ ledger: memory(), teardown: async () => {} })],
    [
      'sqlite',
      () => {
        const fixture = sqliteFixture('ledger-no-outbox', (path) => sqlite({ path }))
        return { ledger: fixture.open(), teardown: fixture.teardown }
      },
    ],
  ] as const)('error: %s without one refuses the move and keeps the entry', async (_name, open) => {
    const { ledger, teardown } = open()
    const claim = claimOf({ payer: freshPayer() })
    claimed(await ledger.claim(claim))
    const before = await ledger.get(claim)
    const work = { enqueue: [{ queue: 'events', id: 'x', payload: {} }] }
    await expect(ledger.apply(claim, { type: 'settle', response }, work)).rejects.toThrow('enqueue')
    expect(await ledger.get(claim)).toEqual(before)
    await ledger.close()
    await teardown()
  })
})

const processBackends: { name: string; store: () => Promise<Store & { backend: string }> }[] = [
  {
    name: 'sqlite',
    store: async () => {
      const store = sqliteStore()
      return { ...store, backend: `sqlite:${store.path}` }
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'postgres',
          store: async () => {
            const store = await postgresStore(databaseUrl)
            return { ...store, backend: `postgres:${store.schema}` }
          },
        },
      ]
    : []),
]

describe.each(processBackends)('ledger: $name, another process', ({ store: open }) => {
  let store: Store & { backend: string }
  beforeAll(async () => {
    store = await open()
  })
  afterAll(() => store.teardown())

  test('behavior: another process claiming the same keys at the same time, exactly one winner per key', async () => {
    const ledger = store.open()
    const nonces = Array.from({ length: 1_000 }, nonce)
    const other = await claimer({ backend: store.backend, owner: payer, nonces })
    await other.start()

    const wonHere: Hex[] = []
    for (const nonce of shuffle(nonces)) if ((await ledger.claim(claimOf({ nonce }))).ok) wonHere.push(nonce)
    await ledger.close()
    const wonThere = await other.won()

    // Only the count is asserted, not the split: SQLite's busy handler is not fair, so now and then one process
    // takes every key while the other sleeps on the lock.
    expect(wonHere.length + wonThere.length).toBe(nonces.length)
    expect(new Set([...wonHere, ...wonThere]).size).toBe(nonces.length)
  })

  test('behavior: another process claiming against the same balance at the same time, never beyond it', async () => {
    const ledger = store.open()
    const owner = freshPayer()
    const nonces = Array.from({ length: 300 }, nonce)
    const other = await claimer({ backend: store.backend, owner, nonces, balance: 50n })
    await other.start()

    const wonHere: Hex[] = []
    for (const nonce of shuffle(nonces))
      if ((await ledger.claim(claimOf({ payer: owner, nonce, amount: 1n, balance: 50n }))).ok) wonHere.push(nonce)
    await ledger.close()
    const wonThere = await other.won()

    expect(wonHere.length + wonThere.length).toBe(50)
    expect(new Set([...wonHere, ...wonThere]).size).toBe(50)
  })
})

/** The `payments` DDL of the previous version, as databases in the field have it. */
const previous = {
  sqlite: [
    `CREATE TABLE payments (
      payer TEXT NOT NULL,
      nonce TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('claimed', 'settling', 'settled', 'failed', 'released')),
      amount TEXT NOT NULL CHECK (amount <> '' AND amount NOT GLOB '*[^0-9]*'),
      endpoint TEXT NOT NULL,
      protocol TEXT NOT NULL,
      "transaction" TEXT,
      reason TEXT,
      "authorization" TEXT NOT NULL,
      claimed_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (payer, nonce)
    ) WITHOUT ROWID`,
    'CREATE INDEX payments_state_claimed_at ON payments (state, claimed_at)',
  ],
  postgres: [
    `CREATE TABLE payments (
      payer text NOT NULL,
      nonce text NOT NULL,
      state text NOT NULL CHECK (state IN ('claimed', 'settling', 'settled', 'failed', 'released')),
      amount numeric(78, 0) NOT NULL CHECK (amount >= 0),
      endpoint text NOT NULL,
      protocol text NOT NULL,
      "transaction" text,
      reason text,
      "authorization" text NOT NULL,
      claimed_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (payer, nonce)
    )`,
    'CREATE INDEX payments_state_claimed_at ON payments (state, claimed_at)',
  ],
}

/** A row as the previous version wrote it: settled, and one still claimed. */
const previousRows = [
  { nonce: `0x${'0a'.repeat(32)}`, state: 'settled', transaction: `0x${'0b'.repeat(32)}`, amount: 2n ** 100n },
  { nonce: `0x${'0c'.repeat(32)}`, state: 'claimed', transaction: null, amount: 5n },
] as const
const previousAt = new Date('2020-01-02T03:04:05.678Z')

/** The entry that a row of the previous version reads as. */
function previousEntry(row: (typeof previousRows)[number]): Entry {
  return {
    payer,
    nonce: row.nonce,
    state: row.state,
    amount: row.amount,
    endpoint: 'GET /old',
    protocol: 'x402-v2',
    transaction: row.transaction ?? undefined,
    reason: undefined,
    authorization: '{"old":true}',
    fingerprint: '',
    idempotencyKey: undefined,
    lease: undefined,
    response: undefined,
    effects: [],
    claimedAt: previousAt,
    updatedAt: previousAt,
  }
}

/** Asserts that an upgraded ledger reads the old rows and works on them like on new ones. */
async function expectUpgraded(ledger: Ledger) {
  for (const row of previousRows) expect(await ledger.get({ payer, nonce: row.nonce })).toEqual(previousEntry(row))
  const held = previousRows[1]
  expect(await ledger.claim(claimOf({ nonce: held.nonce }))).toMatchObject({ ok: false, reason: 'replayed' })
  await ledger.apply({ payer, nonce: held.nonce }, { type: 'effect', effect })
  const settling = await ledger.apply({ payer, nonce: held.nonce }, { type: 'settle', response })
  expect(settling).toMatchObject({ state: 'settling', effects: [effect], response, fingerprint: '' })
  const key = idempotencyKey()
  expect((await ledger.claim(claimOf({ idempotencyKey: key, balance: 10_005n }))).ok).toBe(true)
  expect(await ledger.claim(claimOf({ idempotencyKey: key }))).toMatchObject({ ok: false, reason: 'duplicate' })
  expect(await ledger.claim(claimOf({ balance: 10_004n }))).toMatchObject({
    reason: 'insufficient_funds',
    outstanding: 10_005n,
  })
  const lease = { id: 'lease', host: 'h', pid: 1, heartbeatAt: new Date(), staleBefore: new Date(0) }
  expect((await ledger.acquire(lease)).slot).toBe(0)
}

describe('ledger: sqlite file', () => {
  let store: ReturnType<typeof sqliteStore>
  beforeAll(() => {
    store = sqliteStore()
  })
  afterAll(() => store.teardown())

  test('behavior: creates its folder, uses WAL, and keeps every entry across close and reopen', async () => {
    const first = store.open()
    const claim = claimOf({ amount: 2n ** 100n, idempotencyKey: idempotencyKey() })
    await first.claim(claim)
    await first.apply(claim, { type: 'effect', effect })
    await first.apply(claim, { type: 'settle', response })
    const before = await first.get(claim)
    await first.close()

    const reopened = store.open()
    expect(await reopened.get(claim)).toEqual(before)
    expect((await reopened.claim(claim)).ok).toBe(false)
    await reopened.close()

    const database = new Database(store.path, { readonly: true })
    expect(database.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    database.close()
  })

  test('behavior: the migration creates the tables the drizzle schema describes', async () => {
    await store.open().close()
    expectSqliteSchema(store.path, [sqlitePayments, sqliteLeases])
  })

  test('behavior: the queries use the partial indexes', async () => {
    await store.open().close()
    const database = new Database(store.path, { readonly: true })
    const plan = (query: string) =>
      (database.query(`EXPLAIN QUERY PLAN ${query}`).all() as { detail: string }[]).map(({ detail }) => detail)
    try {
      expect(
        plan(`SELECT * FROM payments WHERE "payments"."payer" = 'p' AND "payments"."idempotency_key" = 'k'
          AND "payments"."state" IN ('claimed', 'settling', 'settled')`),
      ).toEqual(['SEARCH payments USING INDEX payments_payer_idempotency_key (payer=? AND idempotency_key=?)'])
      expect(
        plan(`SELECT amount FROM payments WHERE "payments"."payer" = 'p'
          AND "payments"."state" IN ('claimed', 'settling')`),
      ).toEqual(['SEARCH payments USING COVERING INDEX payments_payer_outstanding (payer=? AND state=?)'])
    } finally {
      database.close()
    }
  })

  test('behavior: opens a private database in memory', async () => {
    const ledger = sqlite({ path: ':memory:' })
    const claim = claimOf()
    expect((await ledger.claim(claim)).ok).toBe(true)
    expect((await ledger.claim(claim)).ok).toBe(false)
    await ledger.close()
  })

  test('behavior: upgrades a file of the previous version in place, keeping its rows', async () => {
    const upgraded = sqliteFixture('ledger-upgrade', (path) => sqlite({ path }))
    try {
      mkdirSync(dirname(upgraded.path), { recursive: true })
      const database = new Database(upgraded.path, { create: true })
      for (const statement of previous.sqlite) database.exec(statement)
      const insert = database.query(
        `INSERT INTO payments VALUES (?, ?, ?, ?, 'GET /old', 'x402-v2', ?, NULL, '{"old":true}', ?, ?)`,
      )
      const at = previousAt.getTime()
      for (const row of previousRows)
        insert.run(payer, row.nonce, row.state, row.amount.toString(), row.transaction, at, at)
      database.close()

      const ledger = upgraded.open()
      await expectUpgraded(ledger)
      await ledger.close()
      expectSqliteSchema(upgraded.path, [sqlitePayments, sqliteLeases])
      // Opening it again changes nothing.
      const again = upgraded.open()
      expect((await again.get({ payer, nonce: previousRows[0].nonce }))?.fingerprint).toBe('')
      await again.close()
      expectSqliteSchema(upgraded.path, [sqlitePayments, sqliteLeases])
    } finally {
      await upgraded.teardown()
    }
  })

  test('behavior: several processes opening a file of the previous version at once upgrade it and claim', async () => {
    const upgraded = sqliteFixture('ledger-upgrade', (path) => sqlite({ path }))
    try {
      mkdirSync(dirname(upgraded.path), { recursive: true })
      const database = new Database(upgraded.path, { create: true })
      database.exec('PRAGMA journal_mode = WAL')
      for (const statement of previous.sqlite) database.exec(statement)
      database.close()

      const nonces = Array.from({ length: 200 }, nonce)
      const claimers = await Promise.all(
        Array.from({ length: 6 }, () => claimer({ backend: `sqlite:${upgraded.path}`, owner: payer, nonces })),
      )
      await Promise.all(claimers.map((other) => other.start()))
      const won = (await Promise.all(claimers.map((other) => other.won()))).flat()
      expect(won).toHaveLength(nonces.length)
      expect(new Set(won).size).toBe(nonces.length)
      expectSqliteSchema(upgraded.path, [sqlitePayments, sqliteLeases])
    } finally {
      await upgraded.teardown()
    }
  })
})

/** Whether the PostgreSQL server has `pg_stat_force_next_flush` (version 15 and later). */
const flushesStatistics = databaseUrl
  ? await (async () => {
      const sql = postgresJs(databaseUrl, { max: 1, onnotice: () => {} })
      const [row] = await sql<{ version: number }[]>`SELECT current_setting('server_version_num')::int AS version`
      await sql.end()
      return row!.version >= 150_000
    })()
  : false

describe.skipIf(!databaseUrl)('ledger: postgres database', () => {
  /** Asserts that the schema's tables are the ones the drizzle schema describes, indexes included. */
  test('behavior: several processes creating the table at once, exactly one claim wins', async () => {
    const store = await postgresStore(databaseUrl!)
    try {
      const ledgers = Array.from({ length: 5 }, store.open)
      const claim = claimOf()
      const results = await Promise.all(ledgers.map((ledger) => ledger.claim(claim)))
      expect(results.filter((result) => result.ok)).toHaveLength(1)
    } finally {
      await store.teardown()
    }
  })

  test('behavior: the migration creates the tables the drizzle schema describes', async () => {
    const store = await postgresStore(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: store.schema } })
    try {
      await store.open().get({ payer, nonce: nonce() })
      await expectPgSchema(sql, store.schema, [pgPayments, pgLeases])
    } finally {
      await sql.end()
      await store.teardown()
    }
  })

  test('behavior: upgrades a database of the previous version in place, from several processes at once', async () => {
    const store = await postgresStore(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: store.schema } })
    try {
      for (const statement of previous.postgres) await sql.unsafe(statement)
      for (const row of previousRows)
        await sql`INSERT INTO payments VALUES (${payer}, ${row.nonce}, ${row.state}, ${row.amount.toString()},
          'GET /old', 'x402-v2', ${row.transaction}, NULL, '{"old":true}', ${previousAt}, ${previousAt})`

      const ledgers = Array.from({ length: 5 }, store.open)
      const reads = await Promise.all(ledgers.map((ledger) => ledger.get({ payer, nonce: previousRows[0].nonce })))
      for (const read of reads) expect(read).toEqual(previousEntry(previousRows[0]))
      await expectUpgraded(ledgers[0]!)
      await expectPgSchema(sql, store.schema, [pgPayments, pgLeases])
      // Opening it again changes nothing.
      expect(await store.open().get({ payer, nonce: previousRows[0].nonce })).toEqual(previousEntry(previousRows[0]))
      await expectPgSchema(sql, store.schema, [pgPayments, pgLeases])
    } finally {
      await sql.end()
      await store.teardown()
    }
  })

  test('behavior: an effect keeps a value that jsonb could not (`\\u0000`, key order)', async () => {
    const store = await postgresStore(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: store.schema } })
    try {
      const ledger = store.open()
      const claim = claimOf()
      await ledger.claim(claim)
      await ledger.apply(claim, { type: 'effect', effect })
      const [row] = await sql`SELECT effects::text AS effects, json_typeof(effects) AS type FROM payments`
      expect(row).toEqual({ effects: JSON.stringify([effect]), type: 'array' })
    } finally {
      await sql.end()
      await store.teardown()
    }
  })

  // The statistics of a server process are read back at once with `pg_stat_force_next_flush`, from PostgreSQL 15.
  test.skipIf(!flushesStatistics)(
    "performance: a busy payer's balance-bounded claim reads its outstanding entries, not its history",
    async () => {
      const store = await postgresStore(databaseUrl!)
      // One connection: the ledger's statements and the statistics flush below run on the same server process.
      const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: store.schema } })
      try {
        const ledger = postgres({ sql })
        await ledger.get({ payer, nonce: nonce() })
        // A history of 2,000 settled payments, each moved claimed -> settling -> settled as the gateway moves them: every
        // move leaves a dead version in the outstanding index. No vacuum runs; the planner knows the table's size.
        await sql.unsafe('ALTER TABLE payments SET (autovacuum_enabled = false)')
        await sql`INSERT INTO payments (payer, nonce, state, amount, endpoint, protocol, "transaction", reason,
        "authorization", claimed_at, updated_at)
        SELECT ${payer}, 'history-' || n, 'claimed', 10000, 'GET /old', 'x402-v2', NULL, NULL, '{}', now(), now()
        FROM generate_series(1, 2000) AS n`
        await sql`UPDATE payments SET state = 'settling' WHERE nonce LIKE 'history-%'`
        await sql`UPDATE payments SET state = 'settled', updated_at = now() - interval '1 hour' WHERE nonce LIKE 'history-%'`
        await sql`ANALYZE payments`
        /** Rows and index entries (dead versions' included) read from the payments table so far. */
        const read = async () => {
          await sql`SELECT pg_stat_force_next_flush()`
          const [row] = await sql<{ read: number }[]>`SELECT (t.seq_tup_read
            + (SELECT sum(i.idx_tup_read) FROM pg_stat_user_indexes i WHERE i.relid = t.relid))::int AS read
          FROM pg_stat_user_tables t WHERE t.schemaname = ${store.schema} AND t.relname = 'payments'`
          return row!.read
        }
        const claim = () => ledger.claim(claimOf({ balance: 1_000_000n, balanceAt: new Date() }))
        expect((await claim()).ok).toBe(true)
        const before = await read()
        expect((await claim()).ok).toBe(true)
        // The claim's own key, its outstanding entry and the one before it: nowhere near the 2,000 of its history.
        expect((await read()) - before).toBeLessThan(20)
      } finally {
        await sql.end()
        await store.teardown()
      }
    },
  )

  test("behavior: close leaves the caller's client open, with its parsers as they were", async () => {
    const store = await postgresStore(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 2, onnotice: () => {}, connection: { search_path: store.schema } })
    try {
      const ledger = postgres({ sql })
      expect((await ledger.claim(claimOf())).ok).toBe(true)
      await ledger.close()
      const [row] = await sql`SELECT now() AS now, '{"a":1}'::jsonb AS json, count(*)::int AS count FROM payments`
      expect(row?.now).toBeInstanceOf(Date)
      expect(row?.json).toEqual({ a: 1 })
      expect(row?.count).toBe(1)
    } finally {
      await sql.end()
      await store.teardown()
    }
  })
})
