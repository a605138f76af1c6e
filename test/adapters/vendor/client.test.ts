import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { vendor } from '../../../adapters/vendor/vendor.js'
import { openaiStub } from '../../support/openai.js'

const stub = openaiStub()
afterAll(() => stub.stop())
beforeEach(() => stub.reset())

const apiKey = 'sk-test-0123456789abcdef'

/** A client of the stub with quick limits. */
function client(parameters: Partial<vendor.Declaration> = {}) {
  return vendor({
    id: 'stub',
    name: 'the stub',
    baseUrl: stub.url,
    auth: { type: 'bearer', token: apiKey },
    retryDelayMs: 0,
    timeoutMs: 2_000,
    ...parameters,
  })
}

/** Makes the stub answer every request with `status` and an OpenAI error body. */
function failWith(status: number, message = `stub failure ${status}`) {
  stub.state.answer = () => Response.json({ error: { message, type: 'server_error' } }, { status })
}

describe('json', () => {
  test('default: sends the key as a bearer token and JSON both ways', async () => {
    const outcome = await client().json({ method: 'POST', path: '/embeddings', body: { model: 'm', input: 'hi' } })
    expect(outcome.ok).toBe(true)
    const request = stub.last()
    expect(request.path).toBe('/v1/embeddings')
    expect(request.headers.get('authorization')).toBe(`Bearer ${apiKey}`)
    expect(request.headers.get('content-type')).toBe('application/json')
    expect(request.body).toEqual({ model: 'm', input: 'hi' })
  })

  test('behavior: no key, no authorization header; a trailing slash on the base URL is harmless', async () => {
    await vendor({ id: 'stub', name: 'the stub', baseUrl: `${stub.url}/` }).json({ method: 'GET', path: '/models' })
    expect(stub.last().path).toBe('/v1/models')
    expect(stub.last().headers.get('authorization')).toBeNull()
  })

  test('behavior: a failing GET is retried, at most `retries` times', async () => {
    failWith(503)
    const outcome = await client({ retries: 2 }).json({ method: 'GET', path: '/models' })
    expect(outcome).toEqual({ ok: false, reason: 'failed', status: 503, message: 'stub failure 503' })
    expect(stub.hits.get('/v1/models')).toBe(3)
  })

  test('behavior: a GET that succeeds on retry succeeds', async () => {
    stub.state.answer = () => (stub.hits.get('/v1/models') === 1 ? Response.json({}, { status: 502 }) : undefined)
    const outcome = await client().json({ method: 'GET', path: '/models' })
    expect(outcome.ok).toBe(true)
    expect(stub.hits.get('/v1/models')).toBe(2)
  })

  test('security: a failing POST is never sent twice (it may have run, and been billed, upstream)', async () => {
    failWith(500)
    const outcome = await client({ retries: 5 }).json({ method: 'POST', path: '/chat/completions', body: {} })
    expect(outcome.ok).toBe(false)
    expect(stub.hits.get('/v1/chat/completions')).toBe(1)
  })

  test('behavior: input the upstream rejects is not retried', async () => {
    failWith(400, "Invalid 'messages'")
    const outcome = await client().json({ method: 'GET', path: '/models' })
    expect(outcome).toEqual({ ok: false, reason: 'rejected', status: 400, message: "Invalid 'messages'" })
    expect(stub.hits.get('/v1/models')).toBe(1)
  })

  test.each([
    [{ error: 'plain string error' }, 'plain string error'],
    [{ message: 'top-level message' }, 'top-level message'],
    [{ detail: 'detail field' }, 'detail field'],
  ])('behavior: the error message is found in %j', async (body, message) => {
    stub.state.answer = () => Response.json(body, { status: 404 })
    expect(await client().json({ method: 'POST', path: '/x', body: {} })).toMatchObject({
      reason: 'failed',
      status: 404,
      message,
    })
  })

  test('behavior: a text error body is its own message; an empty one names the status', async () => {
    stub.state.answer = () => new Response('Bad Gateway from proxy', { status: 502 })
    expect(await client({ retries: 0 }).json({ method: 'GET', path: '/x' })).toMatchObject({
      message: 'Bad Gateway from proxy',
    })
    stub.state.answer = () => new Response(null, { status: 500 })
    expect(await client({ retries: 0 }).json({ method: 'GET', path: '/x' })).toMatchObject({
      message: 'answered HTTP 500',
    })
  })

  test('security: the key never appears in a message, even when the upstream echoes it', async () => {
    failWith(401, `Incorrect API key provided: ${apiKey}.`)
    const outcome = await client().json({ method: 'POST', path: '/chat/completions', body: {} })
    expect(outcome).toMatchObject({ reason: 'failed', status: 401, message: 'Incorrect API key provided: <redacted>.' })
    expect(JSON.stringify(outcome)).not.toContain(apiKey)
  })

  test('error: no answer within the time limit is a timeout', async () => {
    stub.state.answer = async () => {
      await Bun.sleep(300)
      return Response.json({ data: [] })
    }
    const started = Date.now()
    const outcome = await client({ timeoutMs: 50, retries: 0 }).json({
      method: 'POST',
      path: '/chat/completions',
      body: {},
    })
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout', status: undefined })
    expect(Date.now() - started).toBeLessThan(250)
  })

  test('error: an answer larger than the limit is refused, declared or not', async () => {
    stub.state.answer = () => Response.json({ data: 'x'.repeat(2_000) })
    expect(await client({ maxResponseBytes: 1_000 }).json({ method: 'POST', path: '/x', body: {} })).toMatchObject({
      reason: 'too_large',
    })
    stub.state.answer = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            controller.enqueue(new TextEncoder().encode('x'.repeat(600)))
          },
        }),
      )
    expect(await client({ maxResponseBytes: 1_000 }).json({ method: 'POST', path: '/x', body: {} })).toMatchObject({
      reason: 'too_large',
    })
  })

  test('error: a 2xx that is not JSON is a failure', async () => {
    stub.state.answer = () => new Response('<html>login</html>', { headers: { 'content-type': 'text/html' } })
    expect(await client().json({ method: 'POST', path: '/x', body: {} })).toMatchObject({
      reason: 'failed',
      status: 200,
    })
  })

  test('error: an unreachable upstream is a failure that names no URL', async () => {
    const closed = Bun.serve({ port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${closed.port}/v1`
    closed.stop(true)
    const outcome = await vendor({ id: 'stub', name: 'the stub', baseUrl: url, retries: 0 }).json({
      method: 'GET',
      path: '/models',
    })
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', status: undefined })
    expect(JSON.stringify(outcome)).not.toContain(url)
  })
})

describe('stream', () => {
  const read = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text()

  test('default: resolves after the first event and relays the stream byte for byte', async () => {
    const outcome = await client().stream({
      path: '/chat/completions',
      body: { model: 'm', messages: [], stream: true },
    })
    if (!outcome.ok) throw new Error(outcome.message)
    expect(stub.last().headers.get('accept')).toBe('text/event-stream')
    const text = await read(outcome.events)
    expect(text.startsWith('data: {"id":"chatcmpl-stub"')).toBe(true)
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
  })

  test('behavior: comments and data-less events before the first data are skipped, and relayed', async () => {
    stub.state.answer = () =>
      new Response(': keep-alive\n\nevent: ping\n\ndata: {"a":1}\r\n\r\ndata: [DONE]\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      })
    const seen: string[] = []
    const outcome = await client().stream({ path: '/x', body: {}, check: (data) => void seen.push(data) })
    if (!outcome.ok) throw new Error(outcome.message)
    expect(seen).toEqual(['{"a":1}'])
    expect(await read(outcome.events)).toBe(': keep-alive\n\nevent: ping\n\ndata: {"a":1}\r\n\r\ndata: [DONE]\n\n')
  })

  test('behavior: a first event the check refuses is a failure, and the upstream is released', async () => {
    const outcome = await client().stream({
      path: '/chat/completions',
      body: { model: 'm', messages: [], stream: true },
      check: () => ({ ok: false, reason: 'failed', status: undefined, message: 'no' }),
    })
    expect(outcome).toEqual({ ok: false, reason: 'failed', status: undefined, message: 'no' })
  })

  test('error: an error status, a non-stream answer, or a stream closed before any event', async () => {
    failWith(500)
    expect(await client().stream({ path: '/x', body: {} })).toMatchObject({
      reason: 'failed',
      status: 500,
      message: 'stub failure 500',
    })
    stub.state.answer = () => Response.json({ choices: [] })
    expect(await client().stream({ path: '/x', body: {} })).toMatchObject({ reason: 'failed', status: 200 })
    stub.state.answer = () => new Response(': only a comment\n\n', { headers: { 'content-type': 'text/event-stream' } })
    expect(await client().stream({ path: '/x', body: {} })).toMatchObject({
      reason: 'failed',
      message: 'the stub closed the stream before its first event',
    })
  })

  test('error: no first event within the time limit is a timeout', async () => {
    stub.state.answer = () =>
      new Response(new ReadableStream({ pull: () => Bun.sleep(1_000) }), {
        headers: { 'content-type': 'text/event-stream' },
      })
    expect(await client({ timeoutMs: 50 }).stream({ path: '/x', body: {} })).toMatchObject({ reason: 'timeout' })
  })

  test('error: a stream that stalls after its first event is cut after idleTimeoutMs', async () => {
    stub.state.hold = true
    const outcome = await client({ idleTimeoutMs: 50 }).stream({
      path: '/chat/completions',
      body: { model: 'm', messages: [], stream: true },
    })
    if (!outcome.ok) throw new Error(outcome.message)
    await expect(read(outcome.events)).rejects.toThrow()
    stub.proceed()
  })

  test('security: a stream nobody reads (a withheld answer) is aborted after idleTimeoutMs', async () => {
    stub.state.hold = true
    const outcome = await client({ idleTimeoutMs: 50 }).stream({
      path: '/chat/completions',
      body: { model: 'm', messages: [], stream: true },
    })
    expect(outcome.ok).toBe(true)
    await Bun.sleep(150)
    stub.proceed()
    await Bun.sleep(50)
    expect(stub.lastStream().cancelled).toBe(true)
  })

  test('error: a stream larger than the limit is cut', async () => {
    stub.state.hold = true
    const outcome = await client({ maxResponseBytes: 400 }).stream({
      path: '/chat/completions',
      body: { model: 'm', messages: [], stream: true },
    })
    if (!outcome.ok) throw new Error(outcome.message)
    stub.proceed()
    await expect(read(outcome.events)).rejects.toThrow(/grew past 400 bytes/)
  })
})

describe('breaker', () => {
  test('behavior: `threshold` unhealthy calls in a row make it unavailable; nothing is sent while it is open', async () => {
    const clock = { now: 1_000_000 }
    const upstream = client({ breaker: { threshold: 2, coolDownMs: 10_000 }, retries: 0, now: () => clock.now })
    failWith(500)
    expect(upstream.available()).toEqual({ ok: true })
    await upstream.json({ method: 'POST', path: '/chat/completions', body: {} })
    expect(upstream.available()).toEqual({ ok: true })
    await upstream.stream({ path: '/chat/completions', body: {} })
    const unavailable = upstream.available()
    expect(unavailable.ok).toBe(false)
    expect(!unavailable.ok && unavailable.reason).toBe(
      `the stub failed 2 calls in a row; calls resume after ${new Date(1_010_000).toISOString()}.`,
    )
    const hits = stub.received.length
    expect(await upstream.json({ method: 'GET', path: '/models' })).toMatchObject({ ok: false, reason: 'unavailable' })
    expect(stub.received.length).toBe(hits)

    // After the cool-down one probe goes; while it is in flight, nothing else may start.
    clock.now += 10_000
    expect(upstream.available()).toEqual({ ok: true })
    stub.state.answer = async () => {
      await Bun.sleep(50)
      return Response.json({ object: 'list', data: [] })
    }
    const probe = upstream.json({ method: 'GET', path: '/models' })
    expect(upstream.available().ok).toBe(false)
    expect((await probe).ok).toBe(true)
    expect(upstream.available()).toEqual({ ok: true })
  })

  test('behavior: a failed probe opens it again', async () => {
    const clock = { now: 0 }
    const upstream = client({ breaker: { threshold: 1, coolDownMs: 1_000 }, retries: 0, now: () => clock.now })
    failWith(503)
    await upstream.json({ method: 'GET', path: '/models' })
    clock.now = 1_000
    await upstream.json({ method: 'GET', path: '/models' })
    expect(upstream.available()).toMatchObject({ ok: false })
    clock.now = 1_999
    expect(upstream.available()).toMatchObject({ ok: false })
  })

  test('behavior: input the upstream rejects, timeouts aside, says nothing about its health', async () => {
    const upstream = client({ breaker: { threshold: 1 } })
    failWith(400)
    await upstream.json({ method: 'POST', path: '/chat/completions', body: {} })
    await upstream.json({ method: 'POST', path: '/chat/completions', body: {} })
    expect(upstream.available()).toEqual({ ok: true })
  })

  test('behavior: timeouts and rate limits count', async () => {
    const upstream = client({ breaker: { threshold: 2 }, retries: 0, timeoutMs: 30 })
    failWith(429)
    await upstream.json({ method: 'POST', path: '/x', body: {} })
    stub.state.answer = async () => {
      await Bun.sleep(100)
      return Response.json({})
    }
    await upstream.json({ method: 'POST', path: '/x', body: {} })
    expect(upstream.available().ok).toBe(false)
  })
})
