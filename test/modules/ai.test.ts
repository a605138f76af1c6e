import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { openai } from '../../adapters/upstream/openai.js'
import { clients } from '../../app/clients.js'
import * as Catalog from '../../core/Catalog.js'
import { ConfigError } from '../../core/Errors.js'
import * as Price from '../../core/Price.js'
import { ai, available, decentralizedManifest, manifest } from '../../modules/ai/index.js'
import { moduleGateway } from '../support/gateway.js'
import { accounts, ok, payers, refused } from '../support/module.js'
import { chunksOf, completionOf, eventsOf, openaiStub, stubModels, textReader } from '../support/openai.js'

const stub = openaiStub()
afterAll(() => stub.stop())
beforeEach(() => stub.reset())

const apiKey = 'sk-operator-key'
const limits = { models: ['small-model', 'large-model', 'not-served-model'], maxTokens: 256 }
/** The same limits as the ai family reads them from its environment. */
const limitsEnv = { CHAT_ALLOWED_MODELS: limits.models.join(','), CHAT_MAX_TOKENS: String(limits.maxTokens) }
const messages = [{ role: 'user', content: 'Hi' }]
const chatPath = '/api/v1/chat/completions'
const chatPrice = Price.quote({
  price: Catalog.entries.find((entry) => entry.method === 'POST' && entry.path === chatPath)!.price,
})

/** The chat module on the stub, with a breaker that opens after `threshold` failures. */
function setup(parameters: { threshold?: number; timeoutMs?: number } = {}) {
  const upstream = openai({
    name: 'the chat upstream',
    baseUrl: stub.url,
    apiKey,
    retryDelayMs: 0,
    timeoutMs: parameters.timeoutMs ?? 2_000,
    breaker: { threshold: parameters.threshold ?? 5, coolDownMs: 60_000 },
  })
  const deps: ai.Deps = { upstream, ...limits }
  return { deps, api: moduleGateway(manifest, { ports: { chat: upstream }, env: limitsEnv, payer: payers.alice }) }
}

describe('POST /api/v1/chat/completions', () => {
  test('default: forwards the request and answers the upstream completion unchanged (choices, usage)', async () => {
    const { api } = setup()
    const body = await ok(
      await api.post(chatPath, { model: 'small-model', messages, max_tokens: 32, temperature: 0.5 }),
    )
    expect(body).toEqual(completionOf('small-model'))
    expect(stub.last().path).toBe('/v1/chat/completions')
    expect(stub.last().body).toEqual({ model: 'small-model', messages, max_tokens: 32, temperature: 0.5 })
  })

  test('behavior: the standard fields pass through unchanged (function calling, vision, formats, sampling)', async () => {
    const { api } = setup()
    const request = {
      model: 'large-model',
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image_url', image_url: { url: 'https://images.invalid/cat.png', detail: 'high' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"answer":"a cat"}' },
      ],
      max_completion_tokens: 200,
      top_p: 0.9,
      n: 1,
      stop: ['\n\n'],
      seed: 42,
      presence_penalty: 0.1,
      frequency_penalty: -0.1,
      logit_bias: { '50256': -100 },
      logprobs: true,
      top_logprobs: 2,
      user: 'agent-7',
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks up',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
            strict: true,
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      reasoning_effort: 'low',
    }
    await ok(await api.post(chatPath, request))
    expect(stub.last().body).toEqual(request)
  })

  test('behavior: a request without a token limit gets the operator ceiling', async () => {
    const { api } = setup()
    await ok(await api.post(chatPath, { model: 'small-model', messages }))
    expect(stub.last().body).toEqual({ model: 'small-model', messages, max_tokens: 256 })
  })

  test('security: the upstream gets the operator key, and none of the caller headers', async () => {
    const { api } = setup()
    const headers = { authorization: 'Bearer caller-credential', 'x-forwarded-for': '10.0.0.1' }
    const response = await api.send('POST', chatPath, { model: 'small-model', messages }, payers.alice, headers)
    expect(response.status).toBe(200)
    expect(stub.last().headers.get('authorization')).toBe(`Bearer ${apiKey}`)
    expect(stub.last().headers.get('x-forwarded-for')).toBeNull()
    expect(stub.last().headers.get('payment-signature')).toBeNull()
  })

  test.each([
    ['a model outside the allow-list', { model: 'secret-model' }, 'model'],
    ['max_tokens above the ceiling', { max_tokens: 257 }, 'max_tokens'],
    ['max_completion_tokens above the ceiling', { max_completion_tokens: 10_000 }, 'max_completion_tokens'],
    ['max_tokens of 0', { max_tokens: 0 }, 'max_tokens'],
    ['more than one choice', { n: 2 }, 'n'],
    ['temperature above 2', { temperature: 3 }, 'temperature'],
    ['no messages', { messages: [] }, 'messages'],
  ])('error: %s is a 400 before the upstream is called', async (_, change, field) => {
    const { api } = setup()
    const problem = await refused(await api.post(chatPath, { model: 'small-model', messages, ...change }), 400)
    expect(problem.code).toBe('validation_failed')
    expect(problem.field).toBe(field)
    expect(stub.received).toHaveLength(0)
  })

  test('security: vendor extensions (fallback models, routing, plugins) are dropped, never forwarded', async () => {
    const { api } = setup()
    const extensions = {
      models: ['secret-model'],
      provider: { order: ['x'] },
      plugins: [{ id: 'web' }],
      service_tier: 'priority',
    }
    await ok(await api.post(chatPath, { model: 'small-model', messages, max_tokens: 8, ...extensions }))
    expect(stub.last().body).toEqual({ model: 'small-model', messages, max_tokens: 8 })
  })

  test('behavior: `stream: true` answers server-sent events that arrive as the upstream sends them', async () => {
    const { api } = setup()
    stub.state.hold = true
    const response = await api.post(chatPath, {
      model: 'small-model',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const events = eventsOf(chunksOf('small-model', true))
    const reader = textReader(response.body!)
    expect(await reader.next()).toBe(events[0]!)
    expect(stub.lastStream().sent).toBe(1)
    stub.proceed()
    expect(await reader.rest()).toBe(events.slice(1).join(''))
    expect(stub.last().body).toEqual({
      model: 'small-model',
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 256,
    })
  })

  test('error: an upstream 400 is a 400 upstream_rejected with the upstream status and message', async () => {
    const { api } = setup()
    stub.state.answer = () =>
      Response.json(
        { error: { message: "Invalid 'messages[0].content': image too large", type: 'invalid_request_error' } },
        { status: 400 },
      )
    const problem = await refused(await api.post(chatPath, { model: 'small-model', messages }), 400)
    expect(problem).toMatchObject({
      code: 'upstream_rejected',
      detail: "The upstream refused the request (HTTP 400): Invalid 'messages[0].content': image too large",
      upstream: { status: 400, reason: 'rejected', message: "Invalid 'messages[0].content': image too large" },
    })
  })

  test.each([
    [500, 502, 'upstream_failed'],
    [401, 502, 'upstream_failed'],
    [404, 502, 'upstream_failed'],
    [429, 503, 'upstream_unavailable'],
  ])('error: an upstream %i is a %i %s, with its status and message', async (upstreamStatus, status, code) => {
    const { api } = setup()
    stub.state.answer = () =>
      Response.json({ error: { message: `stub says ${upstreamStatus}` } }, { status: upstreamStatus })
    const problem = await refused(await api.post(chatPath, { model: 'small-model', messages }), status)
    expect(problem.code).toBe(code)
    expect(problem.upstream).toEqual({
      status: upstreamStatus,
      reason: expect.any(String),
      message: `stub says ${upstreamStatus}`,
    })
  })

  test('error: no answer in time is a 504 upstream_timeout', async () => {
    const { api } = setup({ timeoutMs: 50 })
    stub.state.answer = async () => {
      await Bun.sleep(200)
      return Response.json(completionOf('small-model'))
    }
    const problem = await refused(await api.post(chatPath, { model: 'small-model', messages }), 504)
    expect(problem.code).toBe('upstream_timeout')
  })

  test('error: a stream whose first event is an error is a 502, not a 200 stream', async () => {
    const { api } = setup()
    stub.state.answer = () =>
      new Response('data: {"error":{"message":"model overloaded"}}\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      })
    const problem = await refused(await api.post(chatPath, { model: 'small-model', messages, stream: true }), 502)
    expect(problem.detail).toBe('The upstream failed: model overloaded')
  })

  test('error: a stream refused with an error status is problem+json', async () => {
    const { api } = setup()
    stub.state.answer = () => Response.json({ error: { message: 'down' } }, { status: 503 })
    expect((await refused(await api.post(chatPath, { model: 'small-model', messages, stream: true }), 502)).code).toBe(
      'upstream_failed',
    )
  })
})

describe('GET /api/v1/models', () => {
  test("default: the upstream's models that the operator allows, with their count", async () => {
    const { api } = setup()
    const body = await ok(await api.get('/api/v1/models'))
    expect(body).toEqual({ models: [stubModels[0], stubModels[1]], count: 2, total: 2 })
  })

  test('behavior: cached; the upstream is asked once', async () => {
    const { api } = setup()
    await ok(await api.get('/api/v1/models'))
    await ok(await api.get('/api/v1/models'))
    expect(stub.hits.get('/v1/models')).toBe(1)
  })

  test('error: an upstream failure is a 502', async () => {
    const { api } = setup()
    stub.state.answer = () => new Response('oops', { status: 500 })
    expect((await refused(await api.get('/api/v1/models'), 502)).code).toBe('upstream_failed')
  })
})

describe('GET /free/models', () => {
  test("default: the original gateway's free mirror of GET /api/v1/models: the same answer, unpaid", async () => {
    const { api } = setup()
    const body = await ok(await api.get('/free/models'))
    expect(body).toEqual({ models: [stubModels[0], stubModels[1]], count: 2, total: 2 })
    expect(api.settled).toEqual([])
  })
})

describe('available', () => {
  test('default: a healthy upstream is available', () => {
    expect(available(setup().deps)).toEqual({ ok: true })
  })

  test('behavior: an open breaker makes it unavailable, and its calls 503 without reaching the upstream', async () => {
    const { deps, api } = setup({ threshold: 2 })
    stub.state.answer = () => Response.json({ error: { message: 'down' } }, { status: 500 })
    await refused(await api.post(chatPath, { model: 'small-model', messages }), 502)
    expect(available(deps)).toEqual({ ok: true })
    await refused(await api.post(chatPath, { model: 'small-model', messages }), 502)
    const state = available(deps)
    expect(state.ok).toBe(false)
    expect(!state.ok && state.reason).toMatch(/^the chat upstream failed 2 calls in a row; calls resume after /)
    const hits = stub.received.length
    expect((await refused(await api.post(chatPath, { model: 'small-model', messages }), 503)).code).toBe(
      'upstream_unavailable',
    )
    expect((await refused(await api.get('/api/v1/models'), 503)).code).toBe('upstream_unavailable')
    expect(stub.received).toHaveLength(hits)
  })

  test('behavior: input the upstream rejects never opens the breaker', async () => {
    const { deps, api } = setup({ threshold: 1 })
    stub.state.answer = () => Response.json({ error: { message: 'bad input' } }, { status: 400 })
    await refused(await api.post(chatPath, { model: 'small-model', messages }), 400)
    await refused(await api.post(chatPath, { model: 'small-model', messages }), 400)
    expect(available(deps)).toEqual({ ok: true })
  })
})

describe('ai', () => {
  test('error: no allowed model, or a ceiling that is not a positive integer, fails at boot', () => {
    const { upstream } = setup().deps
    expect(() => ai({ upstream, models: [], maxTokens: 10 })).toThrow('At least one model must be allowed.')
    expect(() => ai({ upstream, models: [], maxTokens: 10 })).toThrow(ConfigError)
    expect(() => ai({ upstream, models: ['m'], maxTokens: 0 })).toThrow(
      'The max_tokens ceiling must be a positive integer.',
    )
    expect(() => ai({ upstream, models: ['m'], maxTokens: 1.5 })).toThrow(
      'The max_tokens ceiling must be a positive integer.',
    )
  })
})

describe('decentralized', () => {
  const upstream = () =>
    openai({ name: 'the decentralized upstream', baseUrl: stub.url, apiKey: 'sk-second-key', retryDelayMs: 0 })
  const setupDecentralized = () =>
    moduleGateway(decentralizedManifest, {
      ports: { decentralized: upstream() },
      env: { DECENTRALIZED_ALLOWED_MODELS: 'small-model', DECENTRALIZED_MAX_TOKENS: '128' },
      payer: payers.alice,
    })

  test('default: chat completions on the second upstream, with its own key and limits', async () => {
    const api = setupDecentralized()
    expect(await ok(await api.post('/decentralized/v1/chat/completions', { model: 'small-model', messages }))).toEqual(
      completionOf('small-model'),
    )
    expect(stub.last().headers.get('authorization')).toBe('Bearer sk-second-key')
    expect(stub.last().body.max_tokens).toBe(128)
    expect(
      (await refused(await api.post('/decentralized/v1/chat/completions', { model: 'large-model', messages }), 400))
        .field,
    ).toBe('model')
  })

  test('default: embeddings in the API shape', async () => {
    const api = setupDecentralized()
    const body = await ok(
      await api.post('/decentralized/v1/embeddings', { model: 'small-model', input: ['one', 'two'], dimensions: 3 }),
    )
    expect(body.object).toBe('list')
    expect(body.data[0].embedding).toEqual([0.25, -0.5, 0.125])
    expect(stub.last().body).toEqual({ model: 'small-model', input: ['one', 'two'], dimensions: 3 })
  })

  test('default: image generation in the API shape, one image per call', async () => {
    const api = setupDecentralized()
    const body = await ok(
      await api.post('/decentralized/v1/images/generations', {
        model: 'small-model',
        prompt: 'a fox',
        size: '512x512',
      }),
    )
    expect(body.data).toEqual([{ url: 'https://images.invalid/1.png', revised_prompt: 'a fox' }])
    expect(
      (
        await refused(
          await api.post('/decentralized/v1/images/generations', { model: 'small-model', prompt: 'a fox', n: 4 }),
          400,
        )
      ).field,
    ).toBe('n')
  })

  test("behavior: the original gateway's image call names no model: the operator's image model draws, and the answer says which", async () => {
    const api = moduleGateway(decentralizedManifest, {
      ports: { decentralized: upstream() },
      env: { DECENTRALIZED_ALLOWED_MODELS: 'small-model,large-model', DECENTRALIZED_IMAGE_MODEL: 'large-model' },
      payer: payers.alice,
    })
    // As the original's MCP tool sends it, at its path, paid for the canonical resource the alias is re-addressed to.
    const price = Price.quote({
      price: Catalog.entries.find((entry) => entry.path === '/decentralized/v1/images/generations')!.price,
    })
    const header = await clients({ terms: api.terms, fetch }).presigned({ signer: accounts.alice, value: price })
    const body = await ok(
      await api.send('POST', '/bittensor/v1/images/generations', { prompt: 'a fox' }, undefined, {
        'PAYMENT-SIGNATURE': header,
      }),
    )
    expect(body.data).toEqual([{ url: 'https://images.invalid/1.png', revised_prompt: 'a fox' }])
    expect(body.model).toBe('large-model')
    expect(stub.last().body).toEqual({ model: 'large-model', prompt: 'a fox' })
    // A model named still wins.
    expect(
      (await ok(await api.post('/decentralized/v1/images/generations', { model: 'small-model', prompt: 'x' }))).model,
    ).toBe('small-model')
    expect(stub.last().body.model).toBe('small-model')
  })

  test('error: without DECENTRALIZED_IMAGE_MODEL an image generation must name model (400 before the upstream); one outside the allowed models fails at boot', async () => {
    const api = setupDecentralized()
    expect(
      (await refused(await api.post('/decentralized/v1/images/generations', { prompt: 'a fox' }), 400)).field,
    ).toBe('model')
    expect(stub.received).toHaveLength(0)
    expect(() =>
      moduleGateway(decentralizedManifest, {
        ports: { decentralized: upstream() },
        env: { DECENTRALIZED_ALLOWED_MODELS: 'small-model', DECENTRALIZED_IMAGE_MODEL: 'dall-e-3' },
      }),
    ).toThrow('DECENTRALIZED_IMAGE_MODEL must be one of DECENTRALIZED_ALLOWED_MODELS (small-model); got dall-e-3.')
  })

  test('default: models in the API shape (`object: list`, `data`), filtered by the allow-list', async () => {
    const api = setupDecentralized()
    expect(await ok(await api.get('/decentralized/v1/models'))).toEqual({ object: 'list', data: [stubModels[0]] })
  })

  test('error: a disallowed model is a 400 on every endpoint, before the upstream is called', async () => {
    const api = setupDecentralized()
    await refused(await api.post('/decentralized/v1/embeddings', { model: 'secret-model', input: 'x' }), 400)
    await refused(await api.post('/decentralized/v1/images/generations', { model: 'secret-model', prompt: 'x' }), 400)
    expect(stub.received).toHaveLength(0)
  })
})

describe('streaming and settlement', () => {
  /** Serves `api` over real HTTP and sends a paid streaming chat completion as alice. */
  async function streamed(api: ReturnType<typeof setup>['api'], run: (answered: Promise<Response>) => Promise<void>) {
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => api.handle(request) })
    try {
      const header = await clients({ terms: api.terms, fetch }).presigned({ signer: accounts.alice, value: chatPrice })
      await run(
        fetch(`http://127.0.0.1:${server.port}${chatPath}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
          body: JSON.stringify({ model: 'small-model', messages, stream: true }),
        }),
      )
    } finally {
      server.stop(true)
    }
  }

  // The gateway settles in an async onAfterHandle and then sets the receipt headers on the handler's Response.
  // Served over real HTTP, the caller gets no byte of the stream before that hook has resolved.
  test('behavior: no byte reaches the caller before the settlement resolves; the receipt header is on the stream', async () => {
    const timeline: string[] = []
    let settle!: () => void
    const settled = new Promise<void>((resolve) => (settle = resolve))
    const { deps } = setup()
    const api = moduleGateway(manifest, {
      ports: { chat: deps.upstream },
      env: limitsEnv,
      facilitator: {
        settle: async () => {
          timeline.push(`settling, upstream sent ${stub.lastStream().sent}`)
          await settled
          timeline.push('settled')
          return { ok: true, transaction: `0x${'1'.repeat(64)}` }
        },
      },
    })
    stub.state.hold = true
    await streamed(api, async (request) => {
      const answered = request.then((response) => {
        timeline.push('caller got headers')
        return response
      })
      await Bun.sleep(100)
      expect(timeline).toEqual(['settling, upstream sent 1'])
      settle()
      const response = await answered
      expect(timeline).toEqual(['settling, upstream sent 1', 'settled', 'caller got headers'])
      expect(response.headers.get('payment-response')).toBeTruthy()
      const reader = textReader(response.body!)
      const events = eventsOf(chunksOf('small-model', false))
      expect(await reader.next()).toBe(events[0]!)
      stub.proceed()
      expect(await reader.rest()).toBe(events.slice(1).join(''))
    })
  })

  test('security: a withheld answer (settlement failed) sends none of the stream, and the upstream is released', async () => {
    const upstream = openai({ baseUrl: stub.url, apiKey, idleTimeoutMs: 50 })
    const api = moduleGateway(manifest, {
      ports: { chat: upstream },
      env: limitsEnv,
      facilitator: {
        settle: async () => ({ ok: false, reason: 'settlement_failed', message: 'The transfer reverted.' }),
      },
    })
    stub.state.hold = true
    await streamed(api, async (answered) => {
      const response = await answered
      expect(response.status).toBe(402)
      expect((await response.json()).code).toBe('settlement_failed')
      await Bun.sleep(150)
      expect(stub.lastStream().cancelled).toBe(true)
      stub.proceed()
    })
  })
})
