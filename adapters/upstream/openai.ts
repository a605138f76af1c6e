import type * as Chat from '../../core/Chat.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * Any server that speaks the OpenAI API (a hosted router, a local llama.cpp or vLLM server, a decentralized
 * inference network's gateway): `POST /chat/completions` (JSON or server-sent events), `POST /embeddings`,
 * `POST /images/generations` and `GET /models`, in the API's own shapes. The models list is cached.
 */
export function openai(parameters: openai.Parameters): Chat.InferenceUpstream {
  const { name = 'the OpenAI-compatible upstream', baseUrl, apiKey, modelsTtlMs = 5 * 60_000, ...options } = parameters
  const client = vendor({
    id: 'openai-compatible',
    name,
    baseUrl,
    // A local server needs no key; a hosted one answers 401 without it, which the caller sees.
    auth: apiKey ? { type: 'bearer', token: apiKey } : { type: 'none' },
    timeoutMs: 120_000,
    // The only GET is the models list.
    cache: { ttlMs: modelsTtlMs, maxEntries: 1 },
    ...options,
  })

  /** The failure for a 2xx body that is not the documented answer: the upstream's own error, if it put one there. */
  function malformed(body: unknown, expected: string, status?: number): Upstream.Failure {
    const error = fieldsOf(body).error
    const message = typeof error === 'string' ? error : fieldsOf(error).message
    return typeof message === 'string'
      ? client.fail('failed', message, status)
      : client.fail('failed', `${name} answered without ${expected}`, status)
  }

  /** Judges a stream's first event: a chunk goes on; `[DONE]` at once, an error object or non-JSON refuses the stream. */
  function checkFirst(data: string): Upstream.Failure | undefined {
    if (data.trim() === '[DONE]') return client.fail('failed', `${name} ended the stream before its first chunk`)
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      return client.fail('failed', `${name} sent an event that is not JSON`)
    }
    return Array.isArray(fieldsOf(chunk).choices) ? undefined : malformed(chunk, 'choices in its first chunk')
  }

  async function list(path: string, body: unknown): Promise<Upstream.Outcome<{ body: Chat.List }>> {
    const outcome = await client.post(path, body)
    if (!outcome.ok) return outcome
    const answer = fieldsOf(outcome.body)
    if (!Array.isArray(answer.data)) return malformed(outcome.body, 'a data array')
    return { ok: true, body: answer as Chat.List }
  }

  return {
    async complete(request) {
      if (request.stream === true) {
        const outcome = await client.stream({ path: '/chat/completions', body: request, check: checkFirst })
        return outcome.ok ? { ok: true, answer: { type: 'stream', events: outcome.events } } : outcome
      }
      const outcome = await client.post('/chat/completions', request)
      if (!outcome.ok) return outcome
      const completion = fieldsOf(outcome.body)
      if (!Array.isArray(completion.choices)) return malformed(outcome.body, 'choices')
      return { ok: true, answer: { type: 'completion', completion: completion as Chat.Completion } }
    },

    async models() {
      // A list that is not the documented one is refused by `check`, so it is never cached.
      const outcome = await client.get('/models', {
        check: (body, status) =>
          modelsOf(body) ? undefined : malformed(body, 'a data array of models with ids', status),
      })
      if (!outcome.ok) return outcome
      return { ok: true, models: modelsOf(outcome.body)! }
    },

    embed: (request) => list('/embeddings', request),
    generateImages: (request) => list('/images/generations', request),
    available: () => client.available(),
  }
}

export declare namespace openai {
  type Parameters = vendor.Options & {
    /** Base URL of the API, ending in `/v1`, e.g. `https://openrouter.ai/api/v1`; never shown. */
    baseUrl: string
    /** Sent as `Authorization: Bearer <apiKey>`; absent, no authorization is sent (a local server). Never shown. */
    apiKey?: string | undefined
    /** Name of the upstream in messages. @default 'the OpenAI-compatible upstream' */
    name?: string
    /** How long the models list is served from memory, in ms. @default 300_000 */
    modelsTtlMs?: number
  }
}

/** The models of a `/models` answer, when it is the documented list of objects with ids. */
function modelsOf(body: unknown): Chat.Model[] | undefined {
  const data = fieldsOf(body).data
  return Array.isArray(data) && data.every((model) => typeof fieldsOf(model).id === 'string')
    ? (data as Chat.Model[])
    : undefined
}
