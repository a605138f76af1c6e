import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { openai } from '../../../adapters/upstream/openai.js'
import { chunksOf, completionOf, eventsOf, openaiStub, stubModels, textReader } from '../../support/openai.js'

const stub = openaiStub()
afterAll(() => stub.stop())
beforeEach(() => stub.reset())

const apiKey = 'sk-test-openai-key'
const upstream = (parameters: Partial<openai.Parameters> = {}) =>
  openai({ baseUrl: stub.url, apiKey, retryDelayMs: 0, ...parameters })
const messages = [{ role: 'user', content: 'Hi' }]

describe('complete', () => {
  test('default: POSTs /chat/completions with the request unchanged and relays the completion unchanged', async () => {
    const request = {
      model: 'small-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          ],
        },
      ],
      max_tokens: 64,
      temperature: 0.2,
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
        },
      ],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
    }
    const outcome = await upstream().complete(request)
    expect(stub.last().method).toBe('POST')
    expect(stub.last().path).toBe('/v1/chat/completions')
    expect(stub.last().headers.get('authorization')).toBe(`Bearer ${apiKey}`)
    expect(stub.last().body).toEqual(request)
    expect(outcome).toEqual({ ok: true, answer: { type: 'completion', completion: completionOf('small-model') } })
  })

  test('behavior: `stream: true` resolves after the first event; the rest arrives as the upstream sends it', async () => {
    stub.state.hold = true
    const outcome = await upstream().complete({
      model: 'small-model',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    })
    if (!outcome.ok || outcome.answer.type !== 'stream') throw new Error('expected a stream')
    expect(stub.last().headers.get('accept')).toBe('text/event-stream')
    const events = eventsOf(chunksOf('small-model', true))
    const reader = textReader(outcome.answer.events)
    expect(await reader.next()).toBe(events[0]!)
    // The first event is in the caller's hands while the upstream has not sent the second.
    expect(stub.lastStream().sent).toBe(1)
    stub.proceed()
    expect(await reader.rest()).toBe(events.slice(1).join(''))
  })

  test('error: an error object as the first event refuses the stream, with the upstream message', async () => {
    stub.state.answer = () =>
      new Response('data: {"error":{"message":"Provider returned error","code":502}}\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      })
    expect(await upstream().complete({ model: 'small-model', messages, stream: true })).toEqual({
      ok: false,
      reason: 'failed',
      status: undefined,
      message: 'Provider returned error',
    })
  })

  test.each([
    ['data: [DONE]\n\n', 'the OpenAI-compatible upstream ended the stream before its first chunk'],
    ['data: not json\n\n', 'the OpenAI-compatible upstream sent an event that is not JSON'],
    [
      'data: {"object":"chat.completion.chunk"}\n\n',
      'the OpenAI-compatible upstream answered without choices in its first chunk',
    ],
  ])('error: a first event %j is a failure', async (event, message) => {
    stub.state.answer = () => new Response(event, { headers: { 'content-type': 'text/event-stream' } })
    expect(await upstream().complete({ model: 'small-model', messages, stream: true })).toMatchObject({
      ok: false,
      reason: 'failed',
      message,
    })
  })

  test('error: a 200 without choices is a failure, with the error it carries if any', async () => {
    stub.state.answer = () => Response.json({ error: { message: 'No endpoints found for this model', code: 404 } })
    expect(await upstream().complete({ model: 'small-model', messages })).toMatchObject({
      ok: false,
      reason: 'failed',
      message: 'No endpoints found for this model',
    })
    stub.state.answer = () => Response.json({ id: 'x' })
    expect(await upstream({ name: 'the chat upstream' }).complete({ model: 'small-model', messages })).toMatchObject({
      ok: false,
      message: 'the chat upstream answered without choices',
    })
  })

  test('error: an upstream 400 is `rejected` with its message', async () => {
    stub.state.answer = () =>
      Response.json(
        { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error' } },
        { status: 400 },
      )
    expect(await upstream().complete({ model: 'small-model', messages })).toEqual({
      ok: false,
      reason: 'rejected',
      status: 400,
      message: "Invalid value for 'temperature'",
    })
  })
})

describe('models', () => {
  test('default: GETs /models and answers its data', async () => {
    expect(await upstream().models()).toEqual({ ok: true, models: stubModels as never })
    expect(stub.last().method).toBe('GET')
    expect(stub.last().path).toBe('/v1/models')
  })

  test('behavior: the list is cached for modelsTtlMs; callers that miss together share one request', async () => {
    const clock = { now: 0 }
    const cached = upstream({ modelsTtlMs: 1_000, now: () => clock.now })
    await Promise.all([cached.models(), cached.models(), cached.models()])
    expect(stub.hits.get('/v1/models')).toBe(1)
    clock.now = 999
    await cached.models()
    expect(stub.hits.get('/v1/models')).toBe(1)
    clock.now = 1_000
    await cached.models()
    expect(stub.hits.get('/v1/models')).toBe(2)
  })

  test('behavior: a failure is not cached', async () => {
    const cached = upstream({ retries: 0 })
    stub.state.answer = () => Response.json({ error: { message: 'down' } }, { status: 500 })
    expect(await cached.models()).toMatchObject({ ok: false, reason: 'failed', message: 'down' })
    stub.state.answer = undefined
    expect((await cached.models()).ok).toBe(true)
    expect(stub.hits.get('/v1/models')).toBe(2)
  })

  test('error: a list without model ids is a failure', async () => {
    stub.state.answer = () => Response.json({ object: 'list', data: [{ name: 'no id' }] })
    expect(await upstream().models()).toMatchObject({ ok: false, reason: 'failed' })
  })
})

describe('embed and generateImages', () => {
  test('default: POST /embeddings and /images/generations unchanged, answers relayed unchanged', async () => {
    const embeddings = await upstream().embed({ model: 'small-model', input: ['a', 'b'], encoding_format: 'float' })
    expect(stub.last().path).toBe('/v1/embeddings')
    expect(stub.last().body).toEqual({ model: 'small-model', input: ['a', 'b'], encoding_format: 'float' })
    expect(embeddings).toEqual({
      ok: true,
      body: {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 0.125] }],
        model: 'small-model',
        usage: { prompt_tokens: 2, total_tokens: 2 },
      },
    })
    const images = await upstream().generateImages({ model: 'small-model', prompt: 'a red fox', size: '256x256' })
    expect(stub.last().path).toBe('/v1/images/generations')
    expect(stub.last().body).toEqual({ model: 'small-model', prompt: 'a red fox', size: '256x256' })
    expect(images).toEqual({
      ok: true,
      body: { created: 1_700_000_000, data: [{ url: 'https://images.invalid/1.png', revised_prompt: 'a red fox' }] },
    })
  })

  test('error: an answer without a data array is a failure', async () => {
    stub.state.answer = () => Response.json({ object: 'list' })
    expect(await upstream().embed({ model: 'small-model', input: 'a' })).toMatchObject({ ok: false, reason: 'failed' })
  })
})
