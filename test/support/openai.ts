/** A request the stub received. */
export type Received = {
  /** HTTP method. */
  method: string
  /** Path, e.g. `/v1/chat/completions`. */
  path: string
  /** Request headers. */
  headers: Headers
  /** Parsed JSON body, when there was one. */
  body: any
}

/** Models the stub serves. */
export const stubModels = [
  { id: 'small-model', object: 'model', created: 1_700_000_000, owned_by: 'stub' },
  { id: 'large-model', object: 'model', created: 1_700_000_001, owned_by: 'stub' },
  { id: 'secret-model', object: 'model', created: 1_700_000_002, owned_by: 'stub' },
] as const

/** The whole completion the stub answers for `model`. */
export function completionOf(model: string) {
  return {
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_stub',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello there.', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
  }
}

/** The chunks of the stub's streamed completion for `model`, before `data: [DONE]`. */
export function chunksOf(model: string, includeUsage: boolean) {
  const chunk = (delta: object, finish: string | null) => ({
    id: 'chatcmpl-stub',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })
  return [
    chunk({ role: 'assistant', content: '' }, null),
    chunk({ content: 'Hel' }, null),
    chunk({ content: 'lo.' }, null),
    chunk({}, 'stop'),
    ...(includeUsage
      ? [
          {
            id: 'chatcmpl-stub',
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model,
            choices: [],
            usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
          },
        ]
      : []),
  ]
}

/** The bytes of an event stream of `chunks`, as the OpenAI API sends it. */
export function eventsOf(chunks: readonly unknown[]): string[] {
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), 'data: [DONE]\n\n']
}

/**
 * A local server on 127.0.0.1 that speaks the OpenAI API: `GET /v1/models`, `POST /v1/chat/completions` (JSON,
 * or server-sent events with `stream: true`), `POST /v1/embeddings`, `POST /v1/images/generations`,
 * `POST /v1/audio/speech` (a WAV) and `POST /v1/audio/transcriptions` (multipart in, `{ text }` out). It records
 * every request, counts hits per path, and can be told to answer otherwise (`answer`) or to hold a stream after
 * its first event until the test says so (`hold`).
 */
export function openaiStub() {
  const received: Received[] = []
  const hits = new Map<string, number>()
  const streams: { sent: number; cancelled: boolean }[] = []
  const held: (() => void)[] = []
  const state = {
    /** Answers instead of the default when it returns a Response. */
    answer: undefined as ((request: Received) => Response | Promise<Response> | undefined) | undefined,
    /** Hold streams after their first event until {@link proceed}. */
    hold: false,
  }

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const path = new URL(request.url).pathname
      const recorded: Received = { method: request.method, path, headers: request.headers, body: await bodyOf(request) }
      received.push(recorded)
      hits.set(path, (hits.get(path) ?? 0) + 1)
      const override = await state.answer?.(recorded)
      if (override) return override
      const body = recorded.body
      if (request.method === 'GET' && path === '/v1/models') return Response.json({ object: 'list', data: stubModels })
      if (request.method === 'POST' && path === '/v1/chat/completions') {
        if (body.stream !== true) return Response.json(completionOf(body.model))
        return stream(eventsOf(chunksOf(body.model, body.stream_options?.include_usage === true)))
      }
      if (request.method === 'POST' && path === '/v1/embeddings')
        return Response.json({
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 0.125] }],
          model: body.model,
          usage: { prompt_tokens: 2, total_tokens: 2 },
        })
      if (request.method === 'POST' && path === '/v1/audio/speech')
        return new Response(silentWav, { headers: { 'content-type': 'audio/wav' } })
      if (request.method === 'POST' && path === '/v1/audio/transcriptions')
        return Response.json({ text: `heard ${body.file.size} bytes of ${body.file.name}` })
      if (request.method === 'POST' && path === '/v1/images/generations')
        return Response.json({
          created: 1_700_000_000,
          data: [{ url: 'https://images.invalid/1.png', revised_prompt: body.prompt }],
        })
      return Response.json(
        { error: { message: `No route ${request.method} ${path}`, type: 'invalid_request_error' } },
        { status: 404 },
      )
    },
  })

  /** An event stream of `events`, one write each, held after the first while `hold` is set. */
  function stream(events: string[]): Response {
    const progress = { sent: 0, cancelled: false }
    streams.push(progress)
    const release = state.hold ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve()
    const encoder = new TextEncoder()
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (progress.sent === 1) await release
          const event = events[progress.sent]
          if (event === undefined) return controller.close()
          progress.sent++
          controller.enqueue(encoder.encode(event))
        },
        cancel() {
          progress.cancelled = true
        },
      }),
      { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } },
    )
  }

  return {
    /** Base URL of the API, `http://127.0.0.1:<port>/v1`. */
    url: `http://127.0.0.1:${server.port}/v1`,
    /** Every request received, in order. */
    received,
    /** Requests per path. */
    hits,
    /** Mutable behavior. */
    state,
    /** Progress of every stream sent: events written, and whether the reader cancelled it. */
    streams,
    /** Progress of the last stream sent. */
    lastStream: () => streams.at(-1)!,
    /** The last request received. */
    last: () => received.at(-1)!,
    /** Lets every held stream send the rest of its events. */
    proceed: () => {
      for (const release of held.splice(0)) release()
    },
    /** Forgets requests, streams and overrides; releases held streams. */
    reset() {
      for (const release of held.splice(0)) release()
      received.length = 0
      streams.length = 0
      hits.clear()
      state.answer = undefined
      state.hold = false
    },
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}

/** A WAV file of no samples (8 kHz, 16-bit mono): what the stub's `/audio/speech` answers. */
export const silentWav = new Uint8Array([
  ...new TextEncoder().encode('RIFF'),
  36,
  0,
  0,
  0,
  ...new TextEncoder().encode('WAVEfmt '),
  16,
  0,
  0,
  0,
  1,
  0,
  1,
  0,
  0x40,
  0x1f,
  0,
  0,
  0x80,
  0x3e,
  0,
  0,
  2,
  0,
  16,
  0,
  ...new TextEncoder().encode('data'),
  0,
  0,
  0,
  0,
])

/** A request's body: JSON parsed; a multipart form's fields, files as `{ name, size }`. */
async function bodyOf(request: Request): Promise<any> {
  if (request.headers.get('content-type')?.startsWith('multipart/form-data')) {
    const form = await request.formData()
    return Object.fromEntries(
      [...form.entries()].map(([name, value]) => [
        name,
        typeof value === 'string' ? value : { name: (value as File).name, size: (value as File).size },
      ]),
    )
  }
  const text = await request.text()
  return text ? JSON.parse(text) : undefined
}

/** Reads a stream chunk by chunk, as text: `next` gives one chunk (undefined at the end), `rest` all that remain. */
export function textReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  return {
    async next() {
      const { done, value } = await reader.read()
      return done ? undefined : decoder.decode(value)
    },
    async rest() {
      let text = ''
      for (let chunk = await this.next(); chunk !== undefined; chunk = await this.next()) text += chunk
      return text
    },
  }
}
