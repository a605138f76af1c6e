import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { openai } from '../../adapters/upstream/openai.js'
import { ConfigError } from '../../core/Errors.js'
import { manifest } from '../../modules/freechat/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'
import { chunksOf, completionOf, eventsOf, openaiStub, textReader } from '../support/openai.js'

const stub = openaiStub()
afterAll(() => stub.stop())
beforeEach(() => stub.reset())

/** The operator's free models: an alias for the stub's small model, and its large model by its own id. */
const freeModels = 'tiny=small-model,large-model'
const messages = [{ role: 'user', content: 'Hi' }]

/** Free chat on the stub; `env` overrides its environment. */
function setup(env: Record<string, string> = {}) {
  const upstream = openai({ name: 'the chat upstream', baseUrl: stub.url, apiKey: 'sk-operator', retryDelayMs: 0 })
  return moduleGateway(manifest, { ports: { chat: upstream }, env: { FREE_CHAT_MODELS: freeModels, ...env } })
}

describe('POST /free/chat', () => {
  test("default: the first free model, a short answer at the operator's ceiling, in the original gateway's shape, free", async () => {
    const api = setup()
    const body = await ok(await api.post('/free/chat', { messages }))
    expect(stub.last().path).toBe('/v1/chat/completions')
    expect(stub.last().body).toEqual({ model: 'small-model', messages, max_tokens: 256, temperature: 0.7 })
    const completion = completionOf('small-model')
    expect(body).toEqual({
      id: completion.id,
      object: 'chat.completion',
      created: completion.created,
      model: 'tiny',
      upstream_model: 'small-model',
      tier: 'free',
      cost: '$0.00',
      source: 'chat-upstream',
      choices: completion.choices,
      usage: completion.usage,
    })
    expect(api.settled).toEqual([])
  })

  test('behavior: a model by alias or upstream id; only model, roles and texts, max_tokens, temperature go upstream', async () => {
    const api = setup()
    const body = await ok(
      await api.post('/free/chat', {
        model: 'large-model',
        messages: [
          { role: 'system', content: 'Be brief.', name: 'operator' },
          { role: 'user', content: 'Hi' },
        ],
        max_tokens: 64,
        temperature: 0.2,
        tools: [{ type: 'function', function: { name: 'spend' } }],
        provider: { order: ['expensive'] },
        models: ['secret-model'],
      }),
    )
    expect(body.model).toBe('large-model')
    expect(stub.last().body).toEqual({
      model: 'large-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_tokens: 64,
      temperature: 0.2,
    })
  })

  test("behavior: stream: true relays the upstream's events", async () => {
    const api = setup()
    const response = await api.post('/free/chat', { model: 'tiny', messages, stream: true })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/event-stream')
    expect(await textReader(response.body!).rest()).toBe(eventsOf(chunksOf('small-model', false)).join(''))
    expect(stub.last().body.stream).toBe(true)
  })

  test('error: out of bounds is a 400 naming the field, and nothing reaches the upstream', async () => {
    const api = setup({ FREE_CHAT_MAX_MESSAGES: '2', FREE_CHAT_MAX_CHARACTERS: '10' })
    const cases: [unknown, string][] = [
      [{ messages, max_tokens: 257 }, 'max_tokens'],
      [{ messages, model: 'secret-model' }, 'model'],
      [{ messages: [] }, 'messages'],
      [{ messages: [...messages, ...messages, ...messages] }, 'messages'],
      [{ messages: [{ role: 'user', content: 'x'.repeat(11) }] }, 'messages.0.content'],
      [
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.invalid' } }] }] },
        'messages.0.content',
      ],
      [{ messages: [{ role: 'tool', content: 'Hi' }] }, 'messages.0.role'],
      [
        {
          messages: [
            { role: 'user', content: '123456' },
            { role: 'user', content: '123456' },
          ],
        },
        'messages',
      ],
      [{ messages, temperature: 3 }, 'temperature'],
    ]
    for (const [body, field] of cases)
      expect({ field: (await refused(await api.post('/free/chat', body), 400)).field }).toEqual({ field })
    expect(stub.received).toEqual([])
  })

  test('error: an upstream failure is a 502 or 503 and charges nothing', async () => {
    const api = setup()
    stub.state.answer = () => Response.json({ error: { message: 'overloaded' } }, { status: 500 })
    expect((await refused(await api.post('/free/chat', { messages }), 502)).code).toBe('upstream_failed')
    stub.state.answer = () => Response.json({ error: { message: 'rate limited' } }, { status: 429 })
    expect((await refused(await api.post('/free/chat', { messages }), 503)).code).toBe('upstream_unavailable')
    expect(api.settled).toEqual([])
  })
})

describe('limits', () => {
  test('behavior: a client gets FREE_CHAT_BURST calls at once, then a 429 with Retry-After paced by FREE_CHAT_PER_DAY', async () => {
    const api = setup({ FREE_CHAT_BURST: '2', FREE_CHAT_PER_DAY: '24' })
    await ok(await api.post('/free/chat', { messages }))
    await ok(await api.get('/free/chat/models'))
    const response = await api.post('/free/chat', { messages })
    expect(response.status).toBe(429)
    // One call an hour: 24 a day.
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(3_500)
    expect(response.headers.get('ratelimit-policy')).toBe('"free-chat";q=2;w=7200')
    expect(stub.hits.get('/v1/chat/completions')).toBe(1)
  })

  test('behavior: past FREE_CHAT_DAILY_BUDGET, every client gets a 429 before the upstream is asked', async () => {
    const api = setup({ FREE_CHAT_DAILY_BUDGET: '1' })
    await ok(await api.post('/free/chat', { messages }))
    const body = await refused(await api.post('/free/chat', { messages }), 429)
    expect(body.detail).toContain('all clients together')
    expect(body.retryAfterSeconds).toBeGreaterThan(80_000)
    expect(stub.hits.get('/v1/chat/completions')).toBe(1)
  })
})

describe('availability', () => {
  test('error: without a chat upstream, a 503 naming CHAT_UPSTREAM_URL', async () => {
    const api = moduleGateway(manifest, { ports: {}, env: { FREE_CHAT_MODELS: freeModels } })
    expect((await refused(await api.post('/free/chat', { messages }), 503)).detail).toContain('CHAT_UPSTREAM_URL')
    expect((await refused(await api.get('/free/chat/models'), 503)).detail).toContain('CHAT_UPSTREAM_URL')
  })

  test('error: without a free model, a 503 naming FREE_CHAT_MODELS, before the upstream is asked', async () => {
    const upstream = openai({ baseUrl: stub.url })
    const api = moduleGateway(manifest, { ports: { chat: upstream } })
    expect((await refused(await api.post('/free/chat', { messages }), 503)).detail).toContain('FREE_CHAT_MODELS')
    expect(stub.received).toEqual([])
  })

  test('error: a FREE_CHAT_MODELS entry that is neither an id nor alias=id fails the start', () => {
    expect(() => setup({ FREE_CHAT_MODELS: 'tiny=,large-model' })).toThrow(ConfigError)
  })
})

describe('GET /free/chat/models', () => {
  test('default: the free models the upstream lists, with its own description and context length; others left out', async () => {
    const api = setup({ FREE_CHAT_MODELS: `${freeModels},gone=retired-model` })
    // The models list as OpenRouter documents it (GET /api/v1/models): ids with name, description, context_length.
    stub.state.answer = ({ path }) =>
      path === '/v1/models'
        ? Response.json({
            data: [
              {
                id: 'small-model',
                name: 'Small Model',
                created: 1_700_000_000,
                description: 'A small open-weight model.',
                context_length: 8_192,
                pricing: { prompt: '0', completion: '0' },
              },
              { id: 'large-model', name: 'Large Model', created: 1_700_000_001, context_length: 131_072 },
              { id: 'secret-model', name: 'Secret', created: 1_700_000_002 },
            ],
          })
        : undefined
    expect(await ok(await api.get('/free/chat/models'))).toEqual({
      tier: 'free',
      cost: '$0.00',
      source: 'chat-upstream',
      models: [
        { id: 'tiny', upstream: 'small-model', description: 'A small open-weight model.', context_length: 8_192 },
        { id: 'large-model', upstream: 'large-model', description: 'Large Model', context_length: 131_072 },
      ],
      count: 2,
      note: expect.any(String),
    })
  })
})
