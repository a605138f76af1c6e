import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { getTableConfig as getPgTableConfig } from 'drizzle-orm/pg-core'
import { getTableConfig as getSqliteTableConfig } from 'drizzle-orm/sqlite-core'
import postgresJs from 'postgres'
import { type Address, type Hash, type Hex, toHex } from 'viem'
import { memory } from '../../../adapters/ledger/memory.js'
import { postgres } from '../../../adapters/ledger/postgres.js'
import { pgPayments, sqlitePayments } from '../../../adapters/ledger/schema.js'
import { sqlite } from '../../../adapters/ledger/sqlite.js'
import { type Event, InvalidTransitionError, type Ledger, type State } from '../../../core/Ledger.js'
import { type Fixture, postgresFixture, sqliteFixture } from '../../support/backends.js'

const root = join(import.meta.dir, '../../..')
const databaseUrl = process.env.DATABASE_URL
const payer: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

const random32 = () => toHex(crypto.getRandomValues(new Uint8Array(32)))
const nonce = (): Hex => random32()
const hash = (): Hash => random32()

function claimOf(parameters: Partial<Parameters<Ledger['claim']>[0]> = {}): Parameters<Ledger['claim']>[0] {
  return {
    payer,
    nonce: nonce(),
    amount: 10_000n,
    endpoint: 'POST /api/v1/rpc/call',
    protocol: 'x402-v2',
    authorization: '{"signature":"0x01"}',
    claimedAt: new Date(),
    ...parameters,
  }
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

/** Events that lead from `claimed` to each state. */
const pathTo: Record<State, Event[]> = {
  claimed: [],
  settling: [{ type: 'settle' }],
  settled: [{ type: 'settle' }, { type: 'confirmed', transaction: `0x${'11'.repeat(32)}` }],
  failed: [{ type: 'fail', reason: 'reverted' }],
  released: [{ type: 'release', reason: 'handler failed' }],
}

const events: Event[] = [
  { type: 'settle' },
  { type: 'submitted', transaction: `0x${'22'.repeat(32)}` },
  { type: 'confirmed', transaction: `0x${'33'.repeat(32)}` },
  { type: 'fail', reason: 'reverted' },
  { type: 'release', reason: 'handler failed' },
]

/** Every legal move: from, event, resulting state. */
const legal: [State, Event['type'], State][] = [
  ['claimed', 'settle', 'settling'],
  ['claimed', 'fail', 'failed'],
  ['claimed', 'release', 'released'],
  ['settling', 'submitted', 'settling'],
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

  async function entryIn(state: State, parameters: Partial<Parameters<Ledger['claim']>[0]> = {}) {
    const claim = claimOf(parameters)
    const result = await ledger.claim(claim)
    expect(result.ok).toBe(true)
    for (const event of pathTo[state]) await ledger.apply(claim, event)
    return claim
  }

  describe('claim', () => {
    test('default', async () => {
      const claim = claimOf()
      const result = await ledger.claim(claim)
      expect(result).toEqual({
        ok: true,
        entry: {
          ...claim,
          state: 'claimed',
          transaction: undefined,
          reason: undefined,
          updatedAt: claim.claimedAt,
        },
      })
      expect(await ledger.get(claim)).toEqual(result.ok ? result.entry : undefined)
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
      if (!result.ok) expect(result.existing.state).toBe(state)
    })

    test('behavior: a released entry is claimed afresh', async () => {
      const claim = await entryIn('released')
      const again = claimOf({
        nonce: claim.nonce,
        amount: 5n,
        endpoint: 'GET /again',
        protocol: 'mpp',
        authorization: '{"signature":"0x02"}',
      })
      const result = await ledger.claim(again)
      expect(result).toEqual({
        ok: true,
        entry: { ...again, state: 'claimed', transaction: undefined, reason: undefined, updatedAt: again.claimedAt },
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
        if (!result.ok) expect(result.existing).toEqual(winners[0]!.ok ? winners[0]!.entry : (undefined as never))
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

  describe('apply', () => {
    test.each(legal)('behavior: %s + %s -> %s', async (from, type, to) => {
      const claim = await entryIn(from)
      const before = (await ledger.get(claim))!
      const event = events.find((event) => event.type === type)!
      const entry = await ledger.apply(claim, event)
      expect(entry.state).toBe(to)
      expect(entry.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime())
      if ('transaction' in event) expect(entry.transaction).toBe(event.transaction)
      if ('reason' in event) expect(entry.reason).toBe(event.reason)
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

    test('behavior: concurrent events on one entry apply one at a time', async () => {
      const claim = await entryIn('claimed')
      const settle = () => ledger.apply(claim, { type: 'settle' })
      const results = await Promise.allSettled(Array.from({ length: 10 }, settle))
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      for (const result of results)
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(InvalidTransitionError)
    })

    test('error: an unknown key is a fault', async () => {
      await expect(ledger.apply({ payer, nonce: nonce() }, { type: 'settle' })).rejects.toBeInstanceOf(
        InvalidTransitionError,
      )
    })
  })

  describe('close', () => {
    test('error: a closed instance refuses work', async () => {
      const other = store.open()
      await other.close()
      await expect(other.claim(claimOf())).rejects.toThrow()
      await expect(other.get({ payer, nonce: nonce() })).rejects.toThrow()
    })
  })

  describe('get', () => {
    test('behavior: an unknown key is undefined', async () => {
      expect(await ledger.get({ payer, nonce: nonce() })).toBeUndefined()
    })
  })

  describe('list', () => {
    test('behavior: entries in a state, oldest first, up to the limit', async () => {
      // Older than any other entry of the suite, so these come first whatever else the store holds.
      const at = (minute: number) => new Date(Date.UTC(1990, 0, 1, 0, minute))
      const claims = [3, 1, 4, 2].map((minute) => claimOf({ claimedAt: at(minute) }))
      for (const claim of claims) await ledger.claim(claim)
      await ledger.apply(claims[3]!, { type: 'settle' })

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
})

describe('ledger: sqlite file', () => {
  let store: ReturnType<typeof sqliteStore>
  beforeAll(() => {
    store = sqliteStore()
  })
  afterAll(() => store.teardown())

  test('behavior: creates its folder, uses WAL, and keeps every entry across close and reopen', async () => {
    const first = store.open()
    const claim = claimOf({ amount: 2n ** 100n })
    await first.claim(claim)
    await first.apply(claim, { type: 'settle' })
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

  test('behavior: the migration creates the table the drizzle schema describes', async () => {
    await store.open().close()
    const database = new Database(store.path, { readonly: true })
    type Column = { name: string; type: string; notnull: number; pk: number }
    const columns = database.query('PRAGMA table_info(payments)').all() as Column[]
    const indexes = database.query('PRAGMA index_list(payments)').all() as { name: string }[]
    database.close()

    const config = getSqliteTableConfig(sqlitePayments)
    const key = config.primaryKeys[0]!.columns.map((column) => column.name)
    const found = columns.map(({ name, type, notnull, pk }) => ({
      name,
      type: type.toLowerCase(),
      notNull: notnull === 1,
      pk: pk > 0,
    }))
    expect(found).toEqual(
      config.columns.map((column) => ({
        name: column.name,
        type: column.getSQLType(),
        notNull: column.notNull || key.includes(column.name),
        pk: key.includes(column.name),
      })),
    )
    expect(indexes.map(({ name }) => name)).toContain(config.indexes[0]!.config.name)
  })

  test('behavior: opens a private database in memory', async () => {
    const ledger = sqlite({ path: ':memory:' })
    const claim = claimOf()
    expect((await ledger.claim(claim)).ok).toBe(true)
    expect((await ledger.claim(claim)).ok).toBe(false)
    await ledger.close()
  })

  test('behavior: another process claiming the same keys at the same time, exactly one winner per key', async () => {
    const ledger = store.open()
    const nonces = Array.from({ length: 1_000 }, nonce)
    // Each process walks the keys in its own random order: while they overlap, both write and meet on held keys.
    const shuffle = (values: Hex[]) =>
      values
        .map((value) => ({ value, key: Math.random() }))
        .sort((a, b) => a.key - b.key)
        .map(({ value }) => value)
    const order = join(store.path, '..', 'order.json')
    await Bun.write(order, JSON.stringify(shuffle(nonces)))

    const fixture = join(import.meta.dir, 'claim-fixture.ts')
    const child = Bun.spawn([join(root, 'node_modules/.bin/bun'), fixture, store.path, payer, order], {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const reader = child.stdout.getReader()
    let output = ''
    while (!output.includes('ready\n')) {
      const { done, value } = await reader.read()
      if (done) throw new Error('The claim fixture exited before it was ready.')
      output += new TextDecoder().decode(value)
    }
    output = output.slice(output.indexOf('ready\n') + 'ready\n'.length)
    await child.stdin.end()

    const wonHere: Hex[] = []
    for (const nonce of shuffle(nonces)) if ((await ledger.claim(claimOf({ nonce }))).ok) wonHere.push(nonce)
    await ledger.close()

    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      output += new TextDecoder().decode(value)
    }
    expect(await child.exited).toBe(0)
    const wonThere = JSON.parse(output) as Hex[]

    // Only the count is asserted, not the split: SQLite's busy handler is not fair, so now and then one process
    // takes every key while the other sleeps on the lock.
    expect(wonHere.length + wonThere.length).toBe(nonces.length)
    expect(new Set([...wonHere, ...wonThere]).size).toBe(nonces.length)
  })
})

describe.skipIf(!databaseUrl)('ledger: postgres database', () => {
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

  test('behavior: the migration creates the table the drizzle schema describes', async () => {
    const store = await postgresStore(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: store.schema } })
    try {
      await store.open().get({ payer, nonce: nonce() })
      const columns = await sql<{ name: string; type: string; notNull: boolean }[]>`
        SELECT attname AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS "notNull"
        FROM pg_attribute WHERE attrelid = 'payments'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`
      const indexes = await sql<{ name: string }[]>`
        SELECT indexname AS name FROM pg_indexes WHERE tablename = 'payments' AND schemaname = ${store.schema}`

      const config = getPgTableConfig(pgPayments)
      const key = config.primaryKeys[0]!.columns.map((column) => column.name)
      expect(columns.map((column) => ({ ...column }))).toEqual(
        config.columns.map((column) => ({
          name: column.name,
          type: column.getSQLType().replaceAll(', ', ','),
          notNull: column.notNull || key.includes(column.name),
        })),
      )
      expect(indexes.map(({ name }) => name)).toContain(config.indexes[0]!.config.name!)
    } finally {
      await sql.end()
      await store.teardown()
    }
  })

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
