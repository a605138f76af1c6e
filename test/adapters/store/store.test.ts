import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import postgresJs from 'postgres'
import type { Address } from 'viem'
import { memory } from '../../../adapters/store/memory.js'
import { postgres } from '../../../adapters/store/postgres.js'
import {
  pgLogEntries,
  pgRecordOwners,
  pgRecords,
  sqliteLogEntries,
  sqliteRecordOwners,
  sqliteRecords,
} from '../../../adapters/store/schema.js'
import { sqlite } from '../../../adapters/store/sqlite.js'
import { journaled, undo } from '../../../app/payment/effects.js'
import * as Store from '../../../core/Store.js'
import {
  postgresFixture as postgresSchema,
  type Fixture as SharedFixture,
  sqliteFixture as sqliteFile,
} from '../../support/backends.js'
import { expectPgSchema, expectSqliteSchema } from '../../support/migration.js'
import { appendTo, type Counter, increment, isChained } from './writes.js'

const root = join(import.meta.dir, '../../..')
const databaseUrl = process.env.DATABASE_URL
const alice: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const bob: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const carol: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'

/** A name no other test uses, so tests share one database without seeing each other's rows. */
const unique = (prefix: string) => `${prefix}-${crypto.randomUUID()}`

/** A record to insert, in a collection of its own unless `parameters` name one. */
function recordOf<value>(value: value, parameters: Partial<Omit<Store.Record<value>, 'version' | 'updatedAt'>> = {}) {
  const record = { collection: unique('invoices'), id: unique('id'), owners: [alice], value, createdAt: new Date() }
  return { ...record, ...parameters }
}

/** A database that a backend opens stores on; every `open` of one fixture shares its data. */
type Fixture = SharedFixture<Store.Store>

const postgresFixture = (url: string) => postgresSchema(url, 'store', (sql) => postgres({ sql }))
const sqliteFixture = () => sqliteFile('store', (path) => sqlite({ path }))

/** The backends under the contract; `shared` when two instances see one database (memory instances do not). */
const backends: { name: string; shared: boolean; fixture: () => Promise<Fixture> }[] = [
  { name: 'memory', shared: false, fixture: async () => ({ open: memory, teardown: async () => {} }) },
  { name: 'sqlite', shared: true, fixture: async () => sqliteFixture() },
  ...(databaseUrl ? [{ name: 'postgres', shared: true, fixture: () => postgresFixture(databaseUrl) }] : []),
]

/** Values that must come back exactly as they went in, key order included. */
const values: [string, unknown][] = [
  ['nested object', { z: 1, a: { y: [1, 2, { x: null }], b: true }, amount: (2n ** 256n - 1n).toString() }],
  ['array', [1, 'two', [3], { four: 4 }, null, false]],
  ['unicode string', 'é 漢字 🦊 \u200d \u0000 \ud800 "quoted" \\ back\nslash'],
  ['string that reads as JSON', '123'],
  ['string that reads as a JSON string', '"x"'],
  ['number', 0.30000000000000004],
  ['large number', 1e21],
  ['null', null],
  ['boolean', false],
  ['empty object', {}],
]

describe.each(backends)('store: $name', (backend) => {
  let fixture: Fixture
  let store: Store.Store

  beforeAll(async () => {
    fixture = await backend.fixture()
    store = fixture.open()
  })
  afterAll(async () => {
    await store.close()
    await fixture.teardown()
  })

  describe('insert', () => {
    test('default', async () => {
      const record = recordOf({ amount: '1000', memo: 'lunch' })
      const result = await store.insert(record)
      expect(result).toEqual({ ok: true, record: { ...record, version: 1, updatedAt: record.createdAt } })
      expect(await store.get(record.collection, record.id)).toEqual(result.ok ? result.record : undefined)
    })

    test.each(values)('behavior: round-trips exactly: %s', async (_name, value) => {
      const record = recordOf(value)
      const inserted = await store.insert(record)
      const read = await store.get(record.collection, record.id)
      expect(read?.value).toEqual(value)
      expect(JSON.stringify(read?.value)).toBe(JSON.stringify(value))
      expect(JSON.stringify(inserted.ok && inserted.record.value)).toBe(JSON.stringify(value))
    })

    test('behavior: dates come back as Date, to the millisecond', async () => {
      const createdAt = new Date('2001-02-03T04:05:06.789Z')
      const record = recordOf({ at: createdAt }, { createdAt })
      await store.insert(record)
      const read = await store.get(record.collection, record.id)
      expect(read?.createdAt).toBeInstanceOf(Date)
      expect(read?.createdAt.getTime()).toBe(createdAt.getTime())
      expect(read?.updatedAt.getTime()).toBe(createdAt.getTime())
      // Inside the value a date is JSON, as it is everywhere else.
      expect(read?.value).toEqual({ at: createdAt.toISOString() })
    })

    test('behavior: owners are stored checksummed, each once', async () => {
      const record = recordOf({}, { owners: [alice.toLowerCase() as Address, alice, bob.toLowerCase() as Address] })
      const result = await store.insert(record)
      expect(result.ok && result.record.owners).toEqual([alice, bob])
      expect((await store.get(record.collection, record.id))?.owners).toEqual([alice, bob])
      expect((await store.list(record.collection, { owner: bob })).map(({ id }) => id)).toEqual([record.id])
      const lowercase = bob.toLowerCase() as Address
      expect((await store.list(record.collection, { owner: lowercase })).map(({ id }) => id)).toEqual([record.id])
    })

    test('behavior: the same id in another collection is another record', async () => {
      const first = recordOf('first')
      const second = { ...first, collection: unique('escrows'), value: 'second' }
      expect((await store.insert(first)).ok).toBe(true)
      expect((await store.insert(second)).ok).toBe(true)
      expect((await store.get(first.collection, first.id))?.value).toBe('first')
      expect((await store.get(second.collection, second.id))?.value).toBe('second')
    })

    test('error: inserting an id twice is exists, and the first record stays', async () => {
      const record = recordOf({ n: 1 })
      await store.insert(record)
      expect(await store.insert({ ...record, value: { n: 2 }, owners: [bob] })).toEqual({ ok: false, reason: 'exists' })
      expect(await store.get(record.collection, record.id)).toMatchObject({ value: { n: 1 }, owners: [alice] })
      expect(await store.list(record.collection, { owner: bob })).toEqual([])
    })

    test('error: 20 concurrent inserts of one id, exactly one wins', async () => {
      const record = recordOf(0)
      const inserts = Array.from({ length: 20 }, (_, index) => store.insert({ ...record, value: index }))
      const results = await Promise.all(inserts)
      expect(results.filter((result) => result.ok)).toHaveLength(1)
      expect(await store.list(record.collection, { owner: alice })).toHaveLength(1)
    })

    test('behavior: a record without owners is stored and listed to no one', async () => {
      const record = recordOf({ system: true }, { owners: [] })
      expect((await store.insert(record)).ok).toBe(true)
      expect(await store.get(record.collection, record.id)).toMatchObject({ owners: [], value: { system: true } })
      expect(await store.list(record.collection, { owner: alice })).toEqual([])
    })

    test('error: an owner that is not an address is a fault', async () => {
      await expect(store.insert(recordOf({}, { owners: ['0x1234' as Address] }))).rejects.toThrow()
    })
  })

  describe('get', () => {
    test('behavior: an unknown id is undefined', async () => {
      expect(await store.get(unique('invoices'), 'missing')).toBeUndefined()
    })
  })

  /** A minute of 2024-01-01, for records created in a known order. */
  const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute))
  /** Inserts one record per row (`id`, its minute, its owners) into `collection`, each valued `{ id }`. */
  const insertOwned = async (collection: string, rows: readonly (readonly [string, number, readonly Address[]])[]) => {
    for (const [id, minute, owners] of rows)
      await store.insert({ collection, id, owners: [...owners], value: { id }, createdAt: at(minute) })
  }

  describe('list', () => {
    test('behavior: only records of the collection that the owner owns, newest first, up to the limit', async () => {
      const collection = unique('invoices')
      await insertOwned(collection, [
        ['a', 1, [alice]],
        ['b', 3, [alice, bob]],
        ['c', 2, [bob]],
        ['d', 4, [alice]],
      ])
      await store.insert({ collection: unique('escrows'), id: 'e', owners: [alice], value: {}, createdAt: at(5) })

      expect((await store.list(collection, { owner: alice })).map(({ id }) => id)).toEqual(['d', 'b', 'a'])
      expect((await store.list(collection, { owner: alice, limit: 2 })).map(({ id }) => id)).toEqual(['d', 'b'])
      expect((await store.list(collection, { owner: bob })).map(({ id }) => id)).toEqual(['b', 'c'])
      const [newest] = await store.list<{ id: string }>(collection, { owner: alice, limit: 1 })
      expect(newest).toEqual((await store.get(collection, 'd'))!)
    })

    test('security: another owner sees nothing', async () => {
      const record = recordOf({ secret: true }, { owners: [alice, bob] })
      await store.insert(record)
      expect(await store.list(record.collection, { owner: carol })).toEqual([])
    })

    test('behavior: records of one instant come by id, descending, in byte order', async () => {
      const collection = unique('invoices')
      const createdAt = new Date()
      for (const id of ['a', 'B', 'b', '_', 'a-1', 'a_1', '10', '9'])
        await store.insert({ collection, id, owners: [alice], value: {}, createdAt })
      expect((await store.list(collection, { owner: alice })).map(({ id }) => id)).toEqual([
        'b',
        'a_1',
        'a-1',
        'a',
        '_',
        'B',
        '9',
        '10',
      ])
    })

    test('behavior: the limit defaults to 100', async () => {
      const collection = unique('invoices')
      await Promise.all(
        Array.from({ length: 101 }, (_, index) => store.insert({ ...recordOf(index), collection, id: `${index}` })),
      )
      expect(await store.list(collection, { owner: alice })).toHaveLength(100)
    })
  })

  describe('listOwned', () => {
    test('behavior: what list answers for each owner, read together: each record once, newest first', async () => {
      const collection = unique('webhooks')
      await insertOwned(collection, [
        ['a', 1, [alice]],
        ['b', 3, [alice, bob]],
        ['c', 2, [bob]],
        ['d', 4, [alice]],
        ['e', 5, [carol]],
      ])
      await store.insert({ collection: unique('escrows'), id: 'f', owners: [bob], value: {}, createdAt: at(6) })

      const ids = async (owners: Address[], limit?: number) =>
        (await store.listOwned(collection, { owners, limit })).map(({ id }) => id)
      expect(await ids([alice, bob])).toEqual(['d', 'b', 'c', 'a'])
      // At most `limit` of each owner: alice's newest is d, bob's is b.
      expect(await ids([alice, bob], 1)).toEqual(['d', 'b'])
      expect(await ids([bob, carol])).toEqual(['e', 'b', 'c'])
      expect(await ids([])).toEqual([])
      const [newest] = await store.listOwned<{ id: string }>(collection, { owners: [carol] })
      expect(newest).toEqual((await store.get(collection, 'e'))!)
    })
  })

  describe('update', () => {
    test('default', async () => {
      const record = recordOf({ status: 'open' }, { owners: [alice, bob], createdAt: new Date(Date.now() - 1_000) })
      await store.insert(record)
      let seen: Store.Record<{ status: string }> | undefined
      const result = await store.update<{ status: string }>(record.collection, record.id, (current) => {
        seen = current
        return { ...current.value, status: 'paid' }
      })
      expect(seen).toEqual({ ...record, version: 1, updatedAt: record.createdAt })
      expect(result.ok).toBe(true)
      if (!result.ok) return
      expect(result.record).toMatchObject({ value: { status: 'paid' }, version: 2, owners: [alice, bob] })
      expect(result.record.createdAt.getTime()).toBe(record.createdAt.getTime())
      expect(result.record.updatedAt.getTime()).toBeGreaterThan(record.createdAt.getTime())
      expect(await store.get(record.collection, record.id)).toEqual(result.record)
      expect((await store.list(record.collection, { owner: bob }))[0]).toEqual(result.record)
    })

    test('error: a refusal leaves the record unchanged', async () => {
      const record = recordOf({ status: 'paid' })
      await store.insert(record)
      const before = await store.get(record.collection, record.id)
      const refuse = () => ({ refused: true, reason: 'already paid' }) as const
      const result = await store.update(record.collection, record.id, refuse)
      expect(result).toEqual({ ok: false, refused: true, reason: 'already paid' })
      expect(await store.get(record.collection, record.id)).toEqual(before)
    })

    test('error: a change that throws leaves the record unchanged', async () => {
      const record = recordOf({ status: 'open' })
      await store.insert(record)
      const before = await store.get(record.collection, record.id)
      const fail = () => {
        throw new Error('bad change')
      }
      await expect(store.update(record.collection, record.id, fail)).rejects.toThrow('bad change')
      expect(await store.get(record.collection, record.id)).toEqual(before)
    })

    test('error: a missing id is not_found', async () => {
      expect(await store.update(unique('invoices'), 'missing', () => ({}))).toEqual({ ok: false, reason: 'not_found' })
    })

    test('behavior: 20 concurrent increments end at exactly +20', async () => {
      const record = recordOf<Counter>({ count: 0 })
      await store.insert(record)
      const updates = Array.from({ length: 20 }, () => store.update(record.collection, record.id, increment))
      const results = await Promise.all(updates)
      expect(results.every((result) => result.ok)).toBe(true)
      expect(await store.get(record.collection, record.id)).toMatchObject({ value: { count: 20 }, version: 21 })
      expect(results.map((result) => (result.ok ? result.record.version : 0)).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 2),
      )
    })

    test.skipIf(!backend.shared)('behavior: 20 concurrent increments through two instances end at +20', async () => {
      const other = fixture.open()
      try {
        const record = recordOf<Counter>({ count: 0 })
        await store.insert(record)
        const instances = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other))
        await Promise.all(instances.map((instance) => instance.update(record.collection, record.id, increment)))
        expect(await other.get(record.collection, record.id)).toMatchObject({ value: { count: 20 }, version: 21 })
      } finally {
        await other.close()
      }
    })
  })

  describe('append', () => {
    test('default', async () => {
      const chain = unique('audit')
      const createdAt = new Date('2001-02-03T04:05:06.789Z')
      let seen: Store.LogEntry | undefined | null = null
      const make = appendTo({ action: 'invoice.create' }, createdAt)
      const entry = await store.append(chain, (last) => {
        seen = last
        return make(last)
      })
      expect(seen).toBeUndefined()
      expect(entry).toEqual({ chain, sequence: 1, previousHash: Store.genesisHash, ...make(undefined) })
      expect(await store.entries(chain)).toEqual([entry])
    })

    test('behavior: make receives the last entry and the new one links to it', async () => {
      const chain = unique('audit')
      const first = await store.append(chain, appendTo({ b: 1, a: 2 }))
      let seen: Store.LogEntry | undefined
      const second = await store.append(chain, (last) => {
        seen = last
        return appendTo('second')(last)
      })
      expect(seen).toEqual(first)
      expect(second).toMatchObject({ sequence: 2, previousHash: first.hash })
      expect(isChained(await store.entries(chain))).toBe(true)
    })

    test('behavior: 20 concurrent appends take sequences 1..20, each linked to the one before', async () => {
      const chain = unique('audit')
      await Promise.all(Array.from({ length: 20 }, (_, index) => store.append(chain, appendTo({ index }))))
      const entries = await store.entries(chain)
      expect(entries.map(({ sequence }) => sequence)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1))
      expect(isChained(entries)).toBe(true)
      expect(new Set(entries.map(({ value }) => JSON.stringify(value))).size).toBe(20)
    })

    test.skipIf(!backend.shared)('behavior: 20 concurrent appends through two instances form one chain', async () => {
      const other = fixture.open()
      try {
        const chain = unique('audit')
        const instances = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other))
        await Promise.all(instances.map((instance, index) => instance.append(chain, appendTo({ index }))))
        const entries = await other.entries(chain)
        expect(entries).toHaveLength(20)
        expect(isChained(entries)).toBe(true)
      } finally {
        await other.close()
      }
    })

    test('behavior: chains are independent', async () => {
      const [one, two] = [unique('audit'), unique('audit')]
      await store.append(one, appendTo(1))
      await store.append(one, appendTo(2))
      expect(await store.append(two, appendTo(1))).toMatchObject({ sequence: 1, previousHash: Store.genesisHash })
    })

    test('error: a make that throws appends nothing', async () => {
      const chain = unique('audit')
      await store.append(chain, appendTo(1))
      const fail = () => {
        throw new Error('bad entry')
      }
      await expect(store.append(chain, fail)).rejects.toThrow('bad entry')
      expect(await store.append(chain, appendTo(2))).toMatchObject({ sequence: 2 })
    })
  })

  describe('remove', () => {
    test('default', async () => {
      const record = recordOf({ n: 1 }, { owners: [alice, bob] })
      await store.insert(record)
      expect(await store.remove(record.collection, record.id)).toBe(true)
      expect(await store.get(record.collection, record.id)).toBeUndefined()
      expect(await store.list(record.collection, { owner: bob })).toEqual([])
    })

    test('behavior: the id is free again, and a new record starts at version 1', async () => {
      const record = recordOf({ n: 1 })
      await store.insert(record)
      await store.update<{ n: number }>(record.collection, record.id, (current) => ({ n: current.value.n + 1 }))
      await store.remove(record.collection, record.id)
      const again = { ...record, value: { n: 5 }, owners: [bob] }
      expect(await store.insert(again)).toEqual({
        ok: true,
        record: { ...again, version: 1, updatedAt: record.createdAt },
      })
      expect(await store.list(record.collection, { owner: alice })).toEqual([])
      expect((await store.list(record.collection, { owner: bob })).map(({ id }) => id)).toEqual([record.id])
    })

    test('behavior: only that record: the same id in another collection stays', async () => {
      const first = recordOf('first')
      const second = { ...first, collection: unique('escrows'), value: 'second' }
      await store.insert(first)
      await store.insert(second)
      expect(await store.remove(first.collection, first.id)).toBe(true)
      expect((await store.get(second.collection, second.id))?.value).toBe('second')
      expect((await store.list(second.collection, { owner: alice })).map(({ id }) => id)).toEqual([second.id])
    })

    test('behavior: an unknown id is false', async () => {
      expect(await store.remove(unique('invoices'), 'missing')).toBe(false)
    })

    test('behavior: 20 concurrent removes of one record, exactly one is true', async () => {
      const record = recordOf({})
      await store.insert(record)
      const results = await Promise.all(Array.from({ length: 20 }, () => store.remove(record.collection, record.id)))
      expect(results.filter(Boolean)).toHaveLength(1)
    })
  })

  describe('undo of a journaled remove', () => {
    /** Removes `record` through a paid call's journal; answers the effects as a ledger gives them back (JSON). */
    async function removeJournaled(record: Pick<Store.Record, 'collection' | 'id'>) {
      const effects: Store.Effect[] = []
      const journal = journaled(store, { record: async (effect) => void effects.push(effect) })
      const removed = await journal.remove(record.collection, record.id)
      return { removed, effects: JSON.parse(JSON.stringify(effects)) as Store.Effect[] }
    }

    test('default: the record is put back as it was: owners, value and createdAt', async () => {
      const [, value] = values[0]!
      const record = recordOf(value, { owners: [alice, bob], createdAt: new Date('2025-01-02T03:04:05.678Z') })
      await store.insert(record)
      const { removed, effects } = await removeJournaled(record)
      expect(removed).toBe(true)
      expect(effects).toEqual([
        {
          type: 'remove',
          collection: record.collection,
          id: record.id,
          record: { owners: [alice, bob], value, createdAt: '2025-01-02T03:04:05.678Z' },
        },
      ])
      expect(await undo(store, effects)).toEqual([])
      const back = await store.get(record.collection, record.id)
      expect(back).toEqual({ ...record, version: 1, updatedAt: record.createdAt })
      expect(JSON.stringify(back?.value)).toBe(JSON.stringify(value))
      expect((await store.list(record.collection, { owner: bob })).map(({ id }) => id)).toEqual([record.id])
    })

    test('behavior: a record made again under the id since stays, and the effect is kept', async () => {
      const record = recordOf({ n: 1 })
      await store.insert(record)
      const { effects } = await removeJournaled(record)
      const again = { ...record, value: { n: 2 }, owners: [bob] }
      expect((await store.insert(again)).ok).toBe(true)
      expect(await undo(store, effects)).toEqual(effects)
      expect(await store.get(record.collection, record.id)).toMatchObject({ value: { n: 2 }, owners: [bob] })
    })

    test('behavior: an insert and its remove in one call are both taken back: the record stays gone', async () => {
      const record = recordOf({ n: 1 })
      const effects: Store.Effect[] = []
      const journal = journaled(store, { record: async (effect) => void effects.push(effect) })
      await journal.insert(record)
      await journal.remove(record.collection, record.id)
      expect(effects.map(({ type }) => type)).toEqual(['insert', 'remove'])
      expect(await undo(store, effects)).toEqual([])
      expect(await store.get(record.collection, record.id)).toBeUndefined()
    })

    test('behavior: removing an unknown id records nothing', async () => {
      expect(await removeJournaled({ collection: unique('invoices'), id: 'missing' })).toEqual({
        removed: false,
        effects: [],
      })
    })
  })

  describe('truncate', () => {
    test('default', async () => {
      const chain = unique('audit')
      for (let index = 1; index <= 3; index++) await store.append(chain, appendTo({ index }))
      const before = await store.entries(chain)
      expect(await store.truncate(chain, 3)).toBe(true)
      expect(await store.entries(chain)).toEqual(before.slice(0, 2))
    })

    test('error: refuses an entry that is not the last, and leaves the chain as it was', async () => {
      const chain = unique('audit')
      for (let index = 1; index <= 3; index++) await store.append(chain, appendTo({ index }))
      const before = await store.entries(chain)
      expect(await store.truncate(chain, 2)).toBe(false)
      expect(await store.truncate(chain, 1)).toBe(false)
      expect(await store.entries(chain)).toEqual(before)
    })

    test('error: a sequence past the end, or an unknown chain, is false', async () => {
      const chain = unique('audit')
      await store.append(chain, appendTo(1))
      expect(await store.truncate(chain, 2)).toBe(false)
      expect(await store.truncate(chain, 0)).toBe(false)
      expect(await store.truncate(unique('audit'), 1)).toBe(false)
      expect(await store.entries(chain)).toHaveLength(1)
    })

    test('behavior: an append after a truncate continues the chain from the new last', async () => {
      const chain = unique('audit')
      const first = await store.append(chain, appendTo('first'))
      await store.append(chain, appendTo('undone'))
      expect(await store.truncate(chain, 2)).toBe(true)
      let seen: Store.LogEntry | undefined
      const next = await store.append(chain, (last) => {
        seen = last
        return appendTo('next')(last)
      })
      expect(seen).toEqual(first)
      expect(next).toMatchObject({ sequence: 2, previousHash: first.hash, value: 'next' })
      expect(isChained(await store.entries(chain))).toBe(true)
    })

    test('behavior: truncating every entry leaves an empty chain that starts again at 1', async () => {
      const chain = unique('audit')
      await store.append(chain, appendTo(1))
      await store.append(chain, appendTo(2))
      expect(await store.truncate(chain, 2)).toBe(true)
      expect(await store.truncate(chain, 1)).toBe(true)
      expect(await store.entries(chain)).toEqual([])
      expect(await store.append(chain, appendTo(3))).toMatchObject({ sequence: 1, previousHash: Store.genesisHash })
    })

    test('behavior: truncates racing appends never leave a gap', async () => {
      const other = backend.shared ? fixture.open() : store
      /** One chain's race: 20 appends and 20 truncates, each naming a sequence that is last at some moment. */
      const race = async () => {
        const chain = unique('audit')
        await store.append(chain, appendTo('first'))
        const writes = Array.from({ length: 40 }, (_, index) => {
          const instance = index % 4 < 2 ? store : other
          return index % 2 === 0
            ? instance.append(chain, appendTo({ index })).then(() => false)
            : instance.truncate(chain, 1 + (index >> 1))
        })
        const truncated = (await Promise.all(writes)).filter(Boolean).length
        return { truncated, entries: await store.entries(chain) }
      }
      try {
        for (const { truncated, entries } of await Promise.all(Array.from({ length: 5 }, race))) {
          expect(entries).toHaveLength(21 - truncated)
          expect(isChained(entries)).toBe(true)
        }
      } finally {
        if (other !== store) await other.close()
      }
    })
  })

  describe('entries', () => {
    test('behavior: pages by fromSequence and limit, in order', async () => {
      const chain = unique('audit')
      for (let index = 1; index <= 7; index++) await store.append(chain, appendTo({ index }))
      const all = await store.entries(chain)
      expect(all.map(({ sequence }) => sequence)).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(await store.entries(chain, { limit: 3 })).toEqual(all.slice(0, 3))
      expect(await store.entries(chain, { fromSequence: 4, limit: 3 })).toEqual(all.slice(3, 6))
      expect(await store.entries(chain, { fromSequence: 7 })).toEqual(all.slice(6))
      expect(await store.entries(chain, { fromSequence: 8 })).toEqual([])
      expect(await store.entries(chain, { fromSequence: 0, limit: 2 })).toEqual(all.slice(0, 2))
    })

    test('behavior: an unknown chain has no entries', async () => {
      expect(await store.entries(unique('audit'))).toEqual([])
    })

    test('behavior: the limit defaults to 1000', async () => {
      const chain = unique('audit')
      for (let index = 0; index < 1_001; index++) await store.append(chain, appendTo(index))
      expect(await store.entries(chain)).toHaveLength(1_000)
    })
  })

  describe('close', () => {
    test.skipIf(!backend.shared)('error: a closed instance refuses work', async () => {
      const other = fixture.open()
      await other.close()
      await expect(other.get(unique('invoices'), 'id')).rejects.toThrow()
      await expect(other.insert(recordOf({}))).rejects.toThrow()
    })
  })
})

describe('store: sqlite file', () => {
  let fixture: ReturnType<typeof sqliteFixture>
  beforeAll(() => {
    fixture = sqliteFixture()
  })
  afterAll(() => fixture.teardown())

  test('behavior: creates its folder, uses WAL, and keeps everything across close and reopen', async () => {
    const first = fixture.open()
    const record = recordOf({ status: 'open', nested: { list: [1, '🦊'] } }, { owners: [alice, bob] })
    const chain = unique('audit')
    await first.insert(record)
    const pay = (current: Store.Record<typeof record.value>) => ({ ...current.value, status: 'paid' })
    await first.update(record.collection, record.id, pay)
    for (let index = 0; index < 3; index++) await first.append(chain, appendTo({ index }))
    const before = {
      record: await first.get(record.collection, record.id),
      listed: await first.list(record.collection, { owner: bob }),
      entries: await first.entries(chain),
    }
    await first.close()

    const reopened = fixture.open()
    expect(await reopened.get(record.collection, record.id)).toEqual(before.record)
    expect(await reopened.list(record.collection, { owner: bob })).toEqual(before.listed)
    expect(await reopened.entries(chain)).toEqual(before.entries)
    expect(await reopened.insert(record)).toEqual({ ok: false, reason: 'exists' })
    expect(await reopened.append(chain, appendTo({ index: 3 }))).toMatchObject({
      sequence: 4,
      previousHash: before.entries[2]!.hash,
    })
    await reopened.close()

    const database = new Database(fixture.path, { readonly: true })
    expect(database.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    database.close()
  })

  test('behavior: updates made together commit together; a change that throws fails alone', async () => {
    const own = sqliteFixture()
    const store = own.open()
    try {
      const record = recordOf<Counter>({ count: 0 })
      await store.insert(record)
      // Each commit appends the pages it changed to the write-ahead log, 24 bytes of header and a page each.
      const frames = () => (statSync(`${own.path}-wal`).size - 32) / (24 + 4096)
      const before = frames()
      const fail = () => {
        throw new Error('bad change')
      }
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) =>
          store.update(record.collection, record.id, index === 4 ? fail : increment),
        ),
      )
      expect(outcomes.map(({ status }) => status)).toEqual(
        Array.from({ length: 10 }, (_, index) => (index === 4 ? 'rejected' : 'fulfilled')),
      )
      expect(await store.get(record.collection, record.id)).toMatchObject({ value: { count: 9 }, version: 10 })
      // The nine writes of one page were one commit, not nine.
      expect(frames() - before).toBe(1)
    } finally {
      await store.close()
      await own.teardown()
    }
  })

  test('behavior: the migration creates the tables the drizzle schema describes', async () => {
    await fixture.open().close()
    expectSqliteSchema(fixture.path, [sqliteRecords, sqliteRecordOwners, sqliteLogEntries])
    const database = new Database(fixture.path, { readonly: true })
    try {
      // `list` walks the owner index in order: no scan of the table and no sort, however many records there are.
      const plan = database
        .query(`EXPLAIN QUERY PLAN SELECT id FROM record_owners WHERE collection = 'c' AND owner = 'o'
          ORDER BY created_at DESC, id DESC LIMIT 5`)
        .all() as { detail: string }[]
      expect(plan.map(({ detail }) => detail)).toEqual([
        'SEARCH record_owners USING COVERING INDEX record_owners_owner_created_at (collection=? AND owner=?)',
      ])
    } finally {
      database.close()
    }
  })

  test('behavior: opens a private database in memory', async () => {
    const store = sqlite({ path: ':memory:' })
    const record = recordOf({})
    expect((await store.insert(record)).ok).toBe(true)
    expect((await store.insert(record)).ok).toBe(false)
    await store.close()
  })

  test('behavior: another process incrementing and appending at the same time, nothing lost', async () => {
    const count = 200
    const store = fixture.open()
    const record = recordOf<Counter>({ count: 0 })
    const chain = unique('audit')
    await store.insert(record)

    const fixtureArguments = [fixture.path, record.collection, record.id, chain, `${count}`]
    const child = Bun.spawn(
      [join(root, 'node_modules/.bin/bun'), join(import.meta.dir, 'write-fixture.ts'), ...fixtureArguments],
      { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' },
    )
    const reader = child.stdout.getReader()
    let output = ''
    while (!output.includes('ready\n')) {
      const { done, value } = await reader.read()
      if (done) throw new Error('The write fixture exited before it was ready.')
      output += new TextDecoder().decode(value)
    }
    await child.stdin.end()

    for (let index = 0; index < count; index++) {
      expect((await store.update(record.collection, record.id, increment)).ok).toBe(true)
      await store.append(chain, appendTo({ from: 'test', index }))
    }
    expect(await child.exited).toBe(0)

    expect(await store.get(record.collection, record.id)).toMatchObject({
      value: { count: 2 * count },
      version: 2 * count + 1,
    })
    const entries = await store.entries(chain)
    expect(entries).toHaveLength(2 * count)
    expect(isChained(entries)).toBe(true)
    await store.close()
  })
})

describe.skipIf(!databaseUrl)('store: postgres database', () => {
  test('behavior: several processes creating the tables at once, exactly one insert wins', async () => {
    const fixture = await postgresFixture(databaseUrl!)
    try {
      const stores = Array.from({ length: 5 }, fixture.open)
      const record = recordOf({})
      const results = await Promise.all(stores.map((store) => store.insert(record)))
      expect(results.filter((result) => result.ok)).toHaveLength(1)
    } finally {
      await fixture.teardown()
    }
  })

  test('behavior: the migration creates the tables the drizzle schema describes', async () => {
    const fixture = await postgresFixture(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: fixture.schema } })
    try {
      await fixture.open().get('invoices', 'id')
      await expectPgSchema(sql, fixture.schema, [pgRecords, pgRecordOwners, pgLogEntries])
    } finally {
      await sql.end()
      await fixture.teardown()
    }
  })

  test('behavior: stores JSON as JSON documents, not as JSON strings', async () => {
    const fixture = await postgresFixture(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: fixture.schema } })
    try {
      const store = fixture.open()
      const record = recordOf({ b: 1, a: [true] }, { owners: [alice, bob] })
      await store.insert(record)
      await store.append('audit', appendTo({ b: 1, a: 2 }))
      const [row] = await sql`
        SELECT json_typeof(value) AS value, value::text AS text, owners ->> 1 AS owner
        FROM records WHERE id = ${record.id}`
      expect(row).toEqual({ value: 'object', text: '{"b":1,"a":[true]}', owner: bob })
      const [entry] = await sql`SELECT value ->> 'b' AS b FROM log_entries WHERE chain = 'audit'`
      expect(entry).toEqual({ b: '1' })
    } finally {
      await sql.end()
      await fixture.teardown()
    }
  })

  test('behavior: an update nobody races writes at the version it read, without taking the row lock', async () => {
    const fixture = await postgresFixture(databaseUrl!)
    const statements: string[] = []
    const sql = postgresJs(databaseUrl!, {
      max: 2,
      onnotice: () => {},
      connection: { search_path: fixture.schema },
      debug: (_connection, query) => statements.push(query),
    })
    try {
      const store = postgres({ sql })
      const record = recordOf<Counter>({ count: 0 })
      await store.insert(record)
      for (let step = 0; step < 5; step++) await store.update(record.collection, record.id, increment)
      expect(await store.get(record.collection, record.id)).toMatchObject({ value: { count: 5 }, version: 6 })
      expect(statements.filter((statement) => /FOR UPDATE/.test(statement))).toEqual([])
      expect(statements.filter((statement) => /^WITH updated AS/.test(statement))).toHaveLength(5)
    } finally {
      await sql.end()
      await fixture.teardown()
    }
  })

  test("behavior: close leaves the caller's client open, with its parsers as they were", async () => {
    const fixture = await postgresFixture(databaseUrl!)
    const sql = postgresJs(databaseUrl!, { max: 2, onnotice: () => {}, connection: { search_path: fixture.schema } })
    try {
      const store = postgres({ sql })
      expect((await store.insert(recordOf({}))).ok).toBe(true)
      await store.close()
      const [row] = await sql`SELECT now() AS now, '{"a":1}'::jsonb AS json, count(*)::int AS count FROM records`
      expect(row?.now).toBeInstanceOf(Date)
      expect(row?.json).toEqual({ a: 1 })
      expect(row?.count).toBe(1)
    } finally {
      await sql.end()
      await fixture.teardown()
    }
  })
})
