import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address } from 'viem'
import { memory as memoryQueue } from '../../../adapters/queue/memory.js'
import { postgres as postgresQueue } from '../../../adapters/queue/postgres.js'
import { sqlite as sqliteQueue } from '../../../adapters/queue/sqlite.js'
import { memory as memoryStore } from '../../../adapters/store/memory.js'
import { postgres as postgresStore } from '../../../adapters/store/postgres.js'
import { sqlite as sqliteStore } from '../../../adapters/store/sqlite.js'
import { events as eventsPort, outboxQueue } from '../../../core/Events.js'
import * as Queue from '../../../core/Queue.js'
import type { Store } from '../../../core/Store.js'
import { postgresFixture, sqliteFixture } from '../../support/backends.js'

const databaseUrl = process.env.DATABASE_URL
const alice: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

/** A queue and the store on the same database; `open` gives another process's view where the backend is shared. */
type Pair = { queue: Queue.Queue; store: Store }
type Backend = {
  name: string
  shared: boolean
  open: () => Promise<{ open: () => Pair; teardown: () => Promise<void> }>
}

const backends: Backend[] = [
  {
    name: 'memory',
    shared: false,
    open: async () => ({
      open: () => {
        const queue = memoryQueue()
        return { queue, store: memoryStore({ queue }) }
      },
      teardown: async () => {},
    }),
  },
  {
    name: 'sqlite',
    shared: true,
    open: async () =>
      sqliteFixture('queue', (path) => ({ queue: sqliteQueue({ path }), store: sqliteStore({ path }) })),
  },
  ...(databaseUrl
    ? [
        {
          name: 'postgres',
          shared: true,
          open: () =>
            postgresFixture(databaseUrl, 'queue', (sql) => ({
              queue: postgresQueue({ sql }),
              store: postgresStore({ sql }),
            })),
        },
      ]
    : []),
]

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID()}`

for (const backend of backends)
  describe(`queue on ${backend.name}`, () => {
    // Bun runs a describe's body while collecting: the database is reached only in beforeAll.
    let fixture: Awaited<ReturnType<Backend['open']>>
    let queue: Queue.Queue
    let store: Store
    beforeAll(async () => {
      fixture = await backend.open()
      ;({ queue, store } = fixture.open())
    })
    afterAll(() => fixture?.teardown())

    test('an id is enqueued once; only due items are claimed, oldest due first', async () => {
      const name = unique('q')
      const now = Date.now()
      expect(
        await queue.enqueue([
          { queue: name, id: 'b', payload: { n: 2 }, dueAt: new Date(now - 1_000) },
          { queue: name, id: 'a', payload: { n: 1 }, dueAt: new Date(now - 2_000) },
          { queue: name, id: 'later', payload: {}, dueAt: new Date(now + 60_000) },
        ]),
      ).toBe(3)
      expect(await queue.enqueue([{ queue: name, id: 'a', payload: { n: 99 } }])).toBe(0)
      const claimed = await queue.claim<{ n: number }>(name, { limit: 10 })
      expect(claimed.map((item) => [item.id, item.payload.n, item.attempts])).toEqual([
        ['a', 1, 1],
        ['b', 2, 1],
      ])
      // Leased: nobody else gets them while the lease runs.
      expect(await queue.claim(name)).toEqual([])
      expect(await queue.complete(claimed[0]!, { status: 200 })).toBe(true)
      expect(await queue.complete(claimed[0]!)).toBe(false)
      const done = await queue.get(name, 'a')
      expect(done).toMatchObject({ state: 'done', result: { status: 200 }, attempts: 1 })
      // Pending counts leased and not-yet-due items, not completed ones.
      expect((await queue.pending())[name]).toBe(2)
      await queue.fail(claimed[1]!, 'gave up')
      expect((await queue.pending())[name]).toBe(1)
    })

    test('a lease that ran out is claimed again, and the old holder can no longer settle it', async () => {
      const name = unique('q')
      await queue.enqueue([{ queue: name, id: 'x', payload: 'work' }])
      const first = await queue.claim(name, { leaseMs: 1_000 })
      expect(first).toHaveLength(1)
      const second = await queue.claim(name, { now: new Date(Date.now() + 2_000) })
      expect(second.map((item) => [item.id, item.attempts])).toEqual([['x', 2]])
      expect(await queue.complete(first[0]!)).toBe(false)
      expect(await queue.retry(second[0]!, { at: new Date(Date.now() + 60_000), error: 'receiver 500' })).toBe(true)
      expect(await queue.get(name, 'x')).toMatchObject({ state: 'pending', lastError: 'receiver 500', attempts: 2 })
      expect(await queue.claim(name)).toEqual([])
      const third = await queue.claim(name, { now: new Date(Date.now() + 61_000) })
      expect(await queue.fail(third[0]!, 'gave up')).toBe(true)
      expect(await queue.get(name, 'x')).toMatchObject({ state: 'failed', lastError: 'gave up', attempts: 3 })
      expect(await queue.claim(name, { now: new Date(Date.now() + 3_600_000) })).toEqual([])
    })

    test('a store write enqueues its work in its transaction, and only when it happens', async () => {
      const events = eventsPort({ queue })
      const collection = unique('things')
      const event = events.outbox({ id: unique('evt'), type: 'invoice.paid', owner: alice, data: { amount: '5' } })
      const record = { collection, id: 'one', owners: [alice], value: { paid: false }, createdAt: new Date() }
      expect((await store.insert(record, { enqueue: [event] })).ok).toBe(true)
      expect(await queue.get(outboxQueue, event.id)).toMatchObject({ state: 'pending', payload: event.payload })

      const refusedEvent = events.outbox({ type: 'invoice.paid', owner: alice, data: {} })
      expect((await store.insert(record, { enqueue: [refusedEvent] })).ok).toBe(false)
      const refused = await store.update(collection, 'one', () => ({ refused: true, reason: 'no' }) as const, {
        enqueue: [refusedEvent],
      })
      expect(refused.ok).toBe(false)
      expect(await queue.get(outboxQueue, refusedEvent.id)).toBeUndefined()

      const paid = events.outbox({ type: 'invoice.paid', owner: alice, data: {} })
      const later = {
        queue: unique('reminders'),
        id: 'one',
        payload: { remind: true },
        dueAt: new Date(Date.now() + 60_000),
      }
      const updated = await store.update(collection, 'one', () => ({ paid: true }), { enqueue: [paid, later] })
      expect(updated.ok).toBe(true)
      expect((await queue.get(outboxQueue, paid.id))?.state).toBe('pending')
      expect(await queue.get(later.queue, later.id)).toMatchObject({ state: 'pending', payload: { remind: true } })
      expect(await queue.claim(later.queue)).toEqual([])
      expect(await queue.claim(later.queue, { now: new Date(Date.now() + 61_000) })).toHaveLength(1)
    })

    test('updates racing on one record each enqueue their work once, with the change that landed', async () => {
      const collection = unique('counters')
      const name = unique('q')
      await store.insert({ collection, id: 'one', owners: [alice], value: { count: 0 }, createdAt: new Date() })
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          store.update<{ count: number }>(collection, 'one', (current) => ({ count: current.value.count + 1 }), {
            enqueue: [{ queue: name, id: `n${index}`, payload: { index } }],
          }),
        ),
      )
      expect(results.every((result) => result.ok)).toBe(true)
      expect((await store.get<{ count: number }>(collection, 'one'))?.value.count).toBe(12)
      const claimed = await queue.claim(name, { limit: 100 })
      expect(claimed.map((item) => item.id).sort()).toEqual(
        Array.from({ length: 12 }, (_, index) => `n${index}`).sort(),
      )
    })

    test('emit records an event once per id', async () => {
      const events = eventsPort({ queue })
      const id = unique('evt')
      const emitted = await events.emit({ id, type: 'transfer.seen', owner: alice.toLowerCase() as Address, data: {} })
      await events.emit({ id, type: 'transfer.seen', owner: alice, data: { second: true } })
      expect(emitted.owner).toBe(alice)
      expect((await queue.get(outboxQueue, id))?.payload).toEqual(emitted)
    })

    if (backend.shared)
      test('two connections claiming at once take each item exactly once', async () => {
        const other = fixture.open()
        const name = unique('q')
        const count = 200
        await queue.enqueue(
          Array.from({ length: count }, (_, index) => ({ queue: name, id: `i${index}`, payload: index })),
        )
        const taken: string[] = []
        const worker = async (on: Queue.Queue) => {
          for (;;) {
            const claimed = await on.claim(name, { limit: 7 })
            if (claimed.length === 0) return
            for (const item of claimed) {
              taken.push(item.id)
              expect(await on.complete(item)).toBe(true)
            }
          }
        }
        await Promise.all([worker(queue), worker(other.queue), worker(queue), worker(other.queue)])
        expect(taken).toHaveLength(count)
        expect(new Set(taken).size).toBe(count)
      })
  })

test('backoff grows exponentially with full jitter, capped', () => {
  expect(Queue.backoff(1, { baseMs: 1_000, maxMs: 60_000, random: () => 0.999 })).toBe(999)
  expect(Queue.backoff(4, { baseMs: 1_000, maxMs: 60_000, random: () => 0.5 })).toBe(4_000)
  expect(Queue.backoff(20, { baseMs: 1_000, maxMs: 60_000, random: () => 0.999 })).toBe(59_940)
  expect(Queue.backoff(3, { baseMs: 1_000, maxMs: 60_000, random: () => 0 })).toBe(500)
})
