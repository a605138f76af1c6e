import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { vendor } from '../../../adapters/vendor/vendor.js'
import { vendorServer } from '../../support/vendor.js'

const server = vendorServer()
afterAll(() => server.stop())
beforeEach(() => server.reset())

const secret = 'sk-live-9f8e7d6c5b4a3210+/='

/** A client of the stand-in authenticating with `auth`. */
const client = (auth: vendor.Auth) => vendor({ id: 'stub', name: 'the stub', baseUrl: server.url, auth, retries: 0 })

describe('auth', () => {
  test.each([
    ['none', { type: 'none' }, {}, ''],
    ['bearer', { type: 'bearer', token: secret }, { authorization: `Bearer ${secret}` }, ''],
    ['header', { type: 'header', name: 'X-Api-Key', value: secret }, { 'x-api-key': secret }, ''],
    [
      'basic',
      { type: 'basic', username: 'gateway', password: secret },
      { authorization: `Basic ${btoa(`gateway:${secret}`)}` },
      '',
    ],
    ['query', { type: 'query', name: 'api_key', value: secret }, {}, `?api_key=${encodeURIComponent(secret)}`],
  ] as const)('default: %s sends its credentials where the vendor expects them', async (_, auth, headers, search) => {
    expect((await client(auth).get('/balance', { query: {} })).ok).toBe(true)
    const request = server.last()
    for (const [name, value] of Object.entries(headers)) expect(request.headers.get(name)).toBe(value)
    if (auth.type !== 'bearer' && auth.type !== 'basic') expect(request.headers.get('authorization')).toBeNull()
    expect(request.url.search).toBe(search)
  })

  test("behavior: a query key goes beside the call's own parameters", async () => {
    await client({ type: 'query', name: 'key', value: 'k1' }).get('/search', { query: { q: 'fox' } })
    expect(Object.fromEntries(server.last().url.searchParams)).toEqual({ q: 'fox', key: 'k1' })
  })

  test.each([
    [{ type: 'bearer', token: undefined, env: 'SEARCH_API_KEY' }, 'the stub needs a key; set SEARCH_API_KEY.'],
    [{ type: 'header', name: 'x-api-key', value: undefined }, 'the stub needs a key.'],
  ] as const)(
    'error: a key that is not set makes the vendor unavailable; nothing is sent (%j)',
    async (auth, reason) => {
      const unkeyed = client(auth)
      expect(unkeyed.available()).toEqual({ ok: false, reason })
      expect(await unkeyed.get('/x')).toEqual({ ok: false, reason: 'unavailable', status: undefined, message: reason })
      expect(await unkeyed.stream({ path: '/x', body: {} })).toMatchObject({ ok: false, reason: 'unavailable' })
      expect(server.seen).toHaveLength(0)
    },
  )
})

describe('redaction', () => {
  test.each([
    ['bearer', { type: 'bearer', token: secret }, [secret]],
    ['header', { type: 'header', name: 'x-api-key', value: secret }, [secret]],
    ['query, as sent (URL-encoded)', { type: 'query', name: 'api_key', value: secret }, [encodeURIComponent(secret)]],
    ['basic, as the credential', { type: 'basic', username: 'gateway', password: secret }, [btoa(`gateway:${secret}`)]],
  ] as const)('security: %s: a secret the vendor echoes never reaches a failure', async (_, auth, echoed) => {
    server.state.answer = (request) =>
      Response.json(
        {
          error: {
            message: `Invalid key ${echoed[0]} for ${request.url.href}; header ${request.headers.get('authorization') ?? ''}`,
          },
        },
        { status: 401 },
      )
    const failure = await client(auth).get('/x')
    expect(failure).toMatchObject({ ok: false, reason: 'failed', status: 401 })
    const text = JSON.stringify(failure)
    expect(text).toContain('<redacted>')
    for (const form of [secret, encodeURIComponent(secret), btoa(`gateway:${secret}`), server.url])
      expect(text).not.toContain(form)
  })

  test('security: a failure the adapter writes is redacted too', () => {
    expect(client({ type: 'bearer', token: secret }).fail('failed', `bad token ${secret}`)).toEqual({
      ok: false,
      reason: 'failed',
      status: undefined,
      message: 'bad token <redacted>',
    })
  })

  test('security: a base URL that is not a URL fails at construction without repeating it', () => {
    const error = (() => {
      try {
        vendor({ id: 'stub', name: 'the stub', baseUrl: `not a url ${secret}` })
      } catch (error) {
        return error as Error
      }
    })()
    expect(error?.message).toBe('The base URL of the stub is not a URL.')
  })
})

describe('retries', () => {
  const flaky = (statuses: number[], headers: Record<string, string> = {}) => {
    server.state.answer = () => {
      const status = statuses[server.seen.length - 1]
      return status === undefined ? Response.json({ fine: true }) : new Response('busy', { status, headers })
    }
  }
  const quick = (parameters: Partial<vendor.Declaration> = {}) => {
    const slept: number[] = []
    const client = vendor({
      id: 'stub',
      name: 'the stub',
      baseUrl: server.url,
      sleep: async (ms) => void slept.push(ms),
      ...parameters,
    })
    return { client, slept }
  }

  test('default: a GET with no answer worth keeping is sent again, with a doubling backoff', async () => {
    flaky([503, 502])
    const { client, slept } = quick()
    expect(await client.get('/x')).toMatchObject({ ok: true, body: { fine: true } })
    expect(server.seen).toHaveLength(3)
    expect(slept).toEqual([250, 500])
  })

  test('security: a POST is sent once, whatever happens', async () => {
    flaky([503, 503])
    const { client } = quick({ retries: 5 })
    expect(await client.post('/pay', { amount: 1 })).toMatchObject({ ok: false, status: 503 })
    expect(server.seen).toHaveLength(1)
  })

  test('behavior: a POST the adapter declares idempotent (a JSON-RPC read) is retried', async () => {
    flaky([500])
    const { client } = quick()
    expect((await client.json({ method: 'POST', body: { method: 'eth_blockNumber' }, idempotent: true })).ok).toBe(true)
    expect(server.seen).toHaveLength(2)
  })

  test.each([[400], [401], [404], [422]])(
    'behavior: HTTP %i is not retried: sending it again changes nothing',
    async (status) => {
      flaky([status])
      const { client } = quick()
      expect(await client.get('/x')).toMatchObject({ ok: false, status })
      expect(server.seen).toHaveLength(1)
    },
  )

  test('behavior: Retry-After (seconds or a date) is honoured when longer than the backoff', async () => {
    flaky([429], { 'retry-after': '2' })
    const { client, slept } = quick()
    expect((await client.get('/x')).ok).toBe(true)
    expect(slept).toEqual([2_000])
    server.reset()
    flaky([503], { 'retry-after': new Date(1_003_000).toUTCString() })
    const dated = quick({ now: () => 1_000_000 })
    expect((await dated.client.get('/x')).ok).toBe(true)
    expect(dated.slept).toEqual([3_000])
  })

  test("behavior: a Retry-After beyond maxRetryDelayMs ends the retries with the vendor's answer", async () => {
    flaky([429], { 'retry-after': '60' })
    const { client, slept } = quick({ maxRetryDelayMs: 5_000 })
    expect(await client.get('/x')).toMatchObject({ ok: false, reason: 'rate_limited', status: 429, message: 'busy' })
    expect(slept).toEqual([])
    expect(server.seen).toHaveLength(1)
  })

  test('behavior: a call counts once toward the breaker, however many times it was sent', async () => {
    flaky([500, 500, 500, 500, 500, 500])
    const { client } = quick({ breaker: { threshold: 2 } })
    await client.get('/x')
    expect(server.seen).toHaveLength(3)
    expect(client.available()).toEqual({ ok: true })
    await client.get('/x')
    expect(client.available().ok).toBe(false)
  })

  test("behavior: a retry the breaker refuses (another call opened it meanwhile) ends with the vendor's own failure", async () => {
    const { client } = quick({ breaker: { threshold: 1, coolDownMs: 60_000 } })
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    server.state.answer = async (request) => {
      if (request.url.pathname === '/api/slow') await held
      return new Response('down', { status: 503 })
    }
    const slow = client.get('/slow')
    // Fails at once and opens the breaker while /slow waits for its first answer.
    await client.post('/other', {})
    release()
    expect(await slow).toMatchObject({ ok: false, reason: 'failed', status: 503, message: 'down' })
    expect(server.seen.filter((request) => request.url.pathname === '/api/slow')).toHaveLength(1)
  })
})

describe('size limit', () => {
  test('error: an error body past 64 KiB is not read (the status speaks); a shorter one is cut to 500 characters', async () => {
    const client = vendor({ id: 'stub', name: 'the stub', baseUrl: server.url })
    server.state.answer = () => new Response('e'.repeat(200_000), { status: 400 })
    expect(await client.get('/x')).toEqual({ ok: false, reason: 'rejected', status: 400, message: 'answered HTTP 400' })
    server.state.answer = () => new Response('e'.repeat(10_000), { status: 400 })
    expect(await client.get('/x')).toEqual({ ok: false, reason: 'rejected', status: 400, message: 'e'.repeat(500) })
  })

  test("error: a JSON answer past maxResponseBytes is too_large, and does not count against the vendor's health", async () => {
    server.state.answer = () => Response.json({ data: 'x'.repeat(5_000) })
    const client = vendor({
      id: 'stub',
      name: 'the stub',
      baseUrl: server.url,
      maxResponseBytes: 1_024,
      breaker: { threshold: 1 },
    })
    expect(await client.get('/x')).toEqual({
      ok: false,
      reason: 'too_large',
      status: 200,
      message: 'the stub answered more than 1024 bytes.',
    })
    expect(client.available()).toEqual({ ok: true })
  })
})
