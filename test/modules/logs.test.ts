import { describe, expect, test } from 'bun:test'
import { memory } from '../../adapters/store/memory.js'
import * as Module from '../../core/Module.js'
import { logs, manifest } from '../../modules/logs/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'

const { alice, bob } = payers

/** A gateway holding only the logs module, on a fresh memory store and a clock the test moves. */
function setup() {
  const clock = { now: new Date('2025-06-01T12:00:00.000Z') }
  const store = memory()
  const family = Module.define({
    ...manifest,
    routes: ({ ports }) => logs({ store: ports.store, now: () => clock.now }),
  })
  const app = moduleGateway(family, { ports: { store } })
  const ingest = async (entries: object[], as = alice) => ok(await app.post('/api/v1/logs/ingest', { entries }, as))
  const query = async (search = '', as = alice) => ok(await app.get(`/api/v1/logs/query${search}`, as))
  return { clock, store, app, ingest, query }
}

const entry = (change: object = {}) => ({ service: 'api', level: 'info', message: 'started', ...change })

describe('POST /api/v1/logs/ingest', () => {
  test('default: every entry stored as a record of the payer, ids in input order', async () => {
    const { ingest, store } = setup()
    const answer = await ingest([entry(), entry({ level: 'error', message: 'failed', fields: { code: 502 } })])
    expect(answer.ingested).toBe(2)
    expect(answer.ids).toHaveLength(2)
    const [first, second] = await Promise.all(answer.ids.map((id: string) => store.get('logs', id)))
    expect(first).toMatchObject({
      owners: [alice],
      value: { service: 'api', level: 'info', message: 'started', timestamp: '2025-06-01T12:00:00.000Z' },
    })
    expect(second).toMatchObject({ value: { level: 'error', message: 'failed', fields: { code: 502 } } })
  })

  test('behavior: a given timestamp is kept (normalized to UTC)', async () => {
    const { ingest, query } = setup()
    await ingest([entry({ timestamp: '2025-05-31T23:30:00+02:00' })])
    expect((await query()).logs[0].timestamp).toBe('2025-05-31T21:30:00.000Z')
  })

  test('behavior: 500 entries in one call', async () => {
    const { ingest } = setup()
    const answer = await ingest(Array.from({ length: 500 }, (_, index) => entry({ message: `line ${index}` })))
    expect(answer.ingested).toBe(500)
    expect(new Set(answer.ids).size).toBe(500)
  })

  test('behavior: a message of 4096 characters is accepted', async () => {
    const { ingest } = setup()
    expect((await ingest([entry({ message: 'm'.repeat(4096) })])).ingested).toBe(1)
  })

  test.each([
    ['no entries', [], 'entries'],
    ['501 entries', Array.from({ length: 501 }, () => entry()), 'entries'],
    ['an unknown level', [entry({ level: 'fatal' })], 'entries.0.level'],
    ['a message over 4096 characters', [entry({ message: 'm'.repeat(4097) })], 'entries.0.message'],
    ['fields and data both', [entry({ fields: { a: 1 }, data: { a: 1 } })], 'entries.0.data'],
    ['data that is an array', [entry({ data: [1] })], 'entries.0.data'],
    ['a timestamp that is not ISO 8601', [entry(), entry({ timestamp: 'now' })], 'entries.1.timestamp'],
    ['a timestamp on a day that does not exist', [entry({ timestamp: '2025-02-29T00:00:00Z' })], 'entries.0.timestamp'],
    ['fields that are an array', [entry({ fields: [1, 2] })], 'entries.0.fields'],
    ['fields that are a string', [entry(), entry({ fields: 'text' })], 'entries.1.fields'],
    [
      'more than 64 fields',
      [entry({ fields: Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`f${index}`, index])) })],
      'entries.0.fields',
    ],
  ])('error: %s is 400 and nothing is stored', async (_, entries, field) => {
    const { app, store } = setup()
    const problem = await refused(await app.post('/api/v1/logs/ingest', { entries }, alice), 400)
    expect(problem).toMatchObject({ code: 'validation_failed', field })
    expect(await store.list('logs', { owner: alice })).toEqual([])
  })

  test('error: entries that are not an array is 400', async () => {
    const { app } = setup()
    // The framework wraps a lone value in an array before validating; it is refused either way.
    expect((await refused(await app.post('/api/v1/logs/ingest', { entries: 'x' }, alice), 400)).field).toStartWith(
      'entries',
    )
    expect((await refused(await app.post('/api/v1/logs/ingest', {}, alice), 400)).field).toBe('entries')
  })
})

describe('from the original gateway (issue 34)', () => {
  test('behavior: entries[].data is fields; incomplete entries are skipped and counted', async () => {
    const { ingest, query } = setup()
    const answer = await ingest([
      { level: 'warn', service: 'payer-bot', message: 'low balance', data: { balance: '1.5' } },
      { level: 'info', message: 'no service' },
      { level: 'info', service: 'payer-bot', message: '' },
      { service: 'payer-bot', message: 'no level' },
    ])
    expect(answer).toMatchObject({ ingested: 1, skipped: 3 })
    expect(answer.ids).toHaveLength(1)
    const [log] = (await query('?service=payer-bot&level=warn&limit=10')).logs
    expect(log).toMatchObject({ message: 'low balance', data: { balance: '1.5' }, fields: { balance: '1.5' } })
  })
})

describe('GET /api/v1/logs/query', () => {
  test("default: the payer's logs, newest first, with a total", async () => {
    const { ingest, query } = setup()
    const { ids } = await ingest([
      entry({ message: 'older', timestamp: '2025-06-01T10:00:00Z' }),
      entry({ message: 'newer', timestamp: '2025-06-01T11:00:00Z', fields: { requestId: 'r1' } }),
    ])
    expect(await query()).toEqual({
      logs: [
        {
          id: ids[1],
          service: 'api',
          level: 'info',
          message: 'newer',
          timestamp: '2025-06-01T11:00:00.000Z',
          fields: { requestId: 'r1' },
          data: { requestId: 'r1' },
          ingestedAt: '2025-06-01T12:00:00.000Z',
        },
        {
          id: ids[0],
          service: 'api',
          level: 'info',
          message: 'older',
          timestamp: '2025-06-01T10:00:00.000Z',
          data: {},
          ingestedAt: '2025-06-01T12:00:00.000Z',
        },
      ],
      total: 2,
    })
  })

  test('behavior: filters by service, exact level and since', async () => {
    const { ingest, query } = setup()
    await ingest([
      entry({ service: 'api', level: 'info', timestamp: '2025-06-01T10:00:00Z', message: 'a' }),
      entry({ service: 'api', level: 'error', timestamp: '2025-06-01T11:00:00Z', message: 'b' }),
      entry({ service: 'worker', level: 'error', timestamp: '2025-06-01T11:30:00Z', message: 'c' }),
      entry({ service: 'worker', level: 'warn', timestamp: '2025-06-01T09:00:00Z', message: 'd' }),
    ])
    const messages = async (search: string) => (await query(search)).logs.map((log: any) => log.message)
    expect(await messages('?service=worker')).toEqual(['c', 'd'])
    expect(await messages('?level=error')).toEqual(['c', 'b'])
    expect(await messages('?since=2025-06-01T10:30:00Z')).toEqual(['c', 'b'])
    expect(await messages('?service=api&level=error&since=2025-06-01')).toEqual(['b'])
    expect(await messages('?service=nobody')).toEqual([])
  })

  test('behavior: limit returns the newest; total counts every match', async () => {
    const { ingest, query } = setup()
    await ingest(
      Array.from({ length: 5 }, (_, index) => entry({ message: `${index}`, timestamp: `2025-06-01T0${index}:00:00Z` })),
    )
    const answer = await query('?limit=2')
    expect(answer.total).toBe(5)
    expect(answer.logs.map((log: any) => log.message)).toEqual(['4', '3'])
  })

  test('behavior: scans the 1000 most recently ingested records', async () => {
    const { ingest, query, clock } = setup()
    await ingest([entry({ message: 'oldest' })])
    clock.now = new Date('2025-06-01T13:00:00.000Z')
    await ingest(Array.from({ length: 500 }, () => entry()))
    await ingest(Array.from({ length: 500 }, () => entry()))
    const answer = await query('?limit=1000')
    expect(answer.total).toBe(1000)
    expect(answer.logs.some((log: any) => log.message === 'oldest')).toBe(false)
  })

  test.each([
    ['an unknown level', '?level=fatal', 'level'],
    ['since that is not ISO 8601', '?since=today', 'since'],
    ['a negative limit', '?limit=-1', 'limit'],
    ['limit that is not a number', '?limit=ten', 'limit'],
  ])('error: %s is 400', async (_, search, field) => {
    const { app } = setup()
    expect((await refused(await app.get(`/api/v1/logs/query${search}`, alice), 400)).field).toBe(field)
  })

  test('behavior: limit as the original gateway reads it: 50 by default, 0 is the default, over 1000 is 1000', async () => {
    const { ingest, query } = setup()
    await ingest(Array.from({ length: 500 }, (_, index) => entry({ message: `a${index}` })))
    await ingest(Array.from({ length: 500 }, (_, index) => entry({ message: `b${index}` })))
    await ingest(Array.from({ length: 5 }, (_, index) => entry({ message: `c${index}` })))
    expect((await query()).logs).toHaveLength(50)
    expect((await query('?limit=0')).logs).toHaveLength(50)
    expect((await query('?limit=5000')).logs).toHaveLength(1000)
  })

  test('security: another payer sees none of the logs', async () => {
    const { ingest, query } = setup()
    await ingest([entry({ service: 'vault', message: 'alice secret' })])
    expect(await query('', bob)).toEqual({ logs: [], total: 0 })
    expect(await query('?service=vault', bob)).toEqual({ logs: [], total: 0 })
    await ingest([entry({ message: 'bob own' })], bob)
    expect((await query('', bob)).logs.map((log: any) => log.message)).toEqual(['bob own'])
    expect((await query('', alice)).logs.map((log: any) => log.message)).toEqual(['alice secret'])
  })
})
