import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { vendor } from '../../../adapters/vendor/vendor.js'
import { clocked, vendorServer } from '../../support/vendor.js'

const server = vendorServer()
afterAll(() => server.stop())
beforeEach(() => server.reset())

/** A client of the stand-in that caches GETs for 1 s, on a clock the test moves. */
function cached(parameters: Partial<vendor.Declaration> = {}) {
  const time = clocked(0)
  const client = vendor({
    id: 'stub',
    name: 'the stub',
    baseUrl: server.url,
    auth: { type: 'bearer', token: 'sk-operator' },
    cache: { ttlMs: 1_000 },
    retries: 0,
    now: time.now,
    ...parameters,
  })
  return { ...time, client }
}

describe('cache', () => {
  test('default: a GET is served from memory until its TTL has passed, without a second upstream hit', async () => {
    const { client, clock } = cached()
    expect(await client.get('/fee_stats')).toEqual({ ok: true, status: 200, body: { path: '/api/fee_stats', n: 1 } })
    clock.now = 999
    expect(await client.get('/fee_stats')).toEqual({ ok: true, status: 200, body: { path: '/api/fee_stats', n: 1 } })
    expect(server.seen).toHaveLength(1)
    clock.now = 1_000
    expect(await client.get('/fee_stats')).toEqual({ ok: true, status: 200, body: { path: '/api/fee_stats', n: 2 } })
    expect(server.seen).toHaveLength(2)
  })

  test('behavior: callers that miss together share one request', async () => {
    const { client } = cached()
    const outcomes = await Promise.all([client.get('/models'), client.get('/models'), client.get('/models')])
    expect(outcomes.map((outcome) => outcome.ok && outcome.body)).toEqual(Array(3).fill({ path: '/api/models', n: 1 }))
    expect(server.seen).toHaveLength(1)
  })

  test('behavior: the key is the URL, query included', async () => {
    const { client } = cached()
    await client.get('/accounts', { query: { id: 'a' } })
    await client.get('/accounts', { query: { id: 'b' } })
    await client.get('/accounts', { query: { id: 'a' } })
    expect(server.seen.map((request) => request.url.search)).toEqual(['?id=a', '?id=b'])
  })

  test("security: answers are kept apart by auth identity: another key never gets this key's answer", async () => {
    const { client } = cached()
    await client.get('/balance')
    await client.get('/balance', { auth: { type: 'bearer', token: 'sk-caller-own-key' } })
    await client.get('/balance', { auth: { type: 'header', name: 'x-api-key', value: 'sk-operator' } })
    expect(
      server.seen.map((request) => request.headers.get('authorization') ?? request.headers.get('x-api-key')),
    ).toEqual(['Bearer sk-operator', 'Bearer sk-caller-own-key', 'sk-operator'])
    await client.get('/balance', { auth: { type: 'bearer', token: 'sk-caller-own-key' } })
    await client.get('/balance')
    expect(server.seen).toHaveLength(3)
  })

  test('behavior: failures, answers a check refuses, POSTs and `cache: false` calls are never cached', async () => {
    const { client } = cached()
    server.state.answer = () => new Response('down', { status: 500 })
    expect((await client.get('/x')).ok).toBe(false)
    server.state.answer = undefined
    expect(await client.get('/x', { check: () => client.fail('failed', 'not the documented shape') })).toMatchObject({
      ok: false,
    })
    expect(await client.get('/x')).toMatchObject({ ok: true, body: { n: 3 } })
    await client.post('/x', {})
    await client.post('/x', {})
    await client.get('/x', { cache: false })
    expect(server.seen).toHaveLength(6)
    expect(await client.get('/x')).toMatchObject({ ok: true, body: { n: 3 } })
  })

  test('behavior: without a cache in the declaration nothing is cached', async () => {
    const { client } = cached({ cache: undefined })
    await client.get('/x')
    await client.get('/x')
    expect(server.seen).toHaveLength(2)
  })

  test('behavior: bounded in entries: when full, the answer cached longest ago makes room', async () => {
    const { client } = cached({ cache: { ttlMs: 1_000, maxEntries: 2 } })
    for (const path of ['/a', '/b', '/c', '/b', '/a']) await client.get(path)
    expect(server.seen.map((request) => request.url.pathname)).toEqual(['/api/a', '/api/b', '/api/c', '/api/a'])
  })

  test('behavior: a cached answer is served while the breaker is open', async () => {
    const { client } = cached({ breaker: { threshold: 1, coolDownMs: 60_000 } })
    await client.get('/models')
    server.state.answer = () => new Response(null, { status: 503 })
    await client.get('/other')
    expect(client.available().ok).toBe(false)
    expect(await client.get('/models')).toMatchObject({ ok: true, body: { n: 1 } })
  })
})
