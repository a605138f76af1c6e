import * as Cache from '../../core/Cache.js'
import type * as Chat from '../../core/Chat.js'
import type * as Upstream from '../../core/Upstream.js'
import { http } from './http.js'

/**
 * Any server that speaks the OpenAI API (a hosted router, a local llama.cpp or vLLM server, a decentralized
 * inference network's gateway): `POST /chat/completions` (JSON or server-sent events), `POST /embeddings`,
 * `POST /images/generations` and `GET /models`, in the API's own shapes. The models list is cached.
 */
export function openai(parameters: openai.Parameters): Chat.InferenceUpstream {
  const { name = 'the OpenAI-compatible upstream', modelsTtlMs = 5 * 60_000, now = Date.now, ...rest } = parameters
  const client = http({ ...rest, name, now })
  const cache = Cache.create<Chat.Model[]>({ ttlMs: modelsTtlMs, maxEntries: 1, now })
  let pending: Promise<Upstream.Outcome<{ models: Chat.Model[] }>> | undefined

  /** The failure for a 2xx body that is not the documented answer: the upstream's own error, if it put one there. */
  function malformed(body: unknown, expected: string, status?: number): Upstream.Failure {
    const error = objectOf(body)?.error
    const message = typeof error === 'string' ? error : objectOf(error)?.message
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
    return Array.isArray(objectOf(chunk)?.choices) ? undefined : malformed(chunk, 'choices in its first chunk')
  }

  async function list(path: string, body: unknown): Promise<Upstream.Outcome<{ body: Chat.List }>> {
    const outcome = await client.json({ method: 'POST', path, body })
    if (!outcome.ok) return outcome
    const answer = objectOf(outcome.body)
    if (!Array.isArray(answer?.data)) return malformed(outcome.body, 'a data array')
    return { ok: true, body: answer as Chat.List }
  }

  async function fetchModels(): Promise<Upstream.Outcome<{ models: Chat.Model[] }>> {
    const outcome = await client.json({ method: 'GET', path: '/models' })
    if (!outcome.ok) return outcome
    const data = objectOf(outcome.body)?.data
    if (!Array.isArray(data) || !data.every((model) => typeof objectOf(model)?.id === 'string'))
      return malformed(outcome.body, 'a data array of models with ids')
    cache.set('models', data)
    return { ok: true, models: data }
  }

  return {
    async complete(request) {
      if (request.stream === true) {
        const outcome = await client.stream({ path: '/chat/completions', body: request, check: checkFirst })
        return outcome.ok ? { ok: true, answer: { type: 'stream', events: outcome.events } } : outcome
      }
      const outcome = await client.json({ method: 'POST', path: '/chat/completions', body: request })
      if (!outcome.ok) return outcome
      const completion = objectOf(outcome.body)
      if (!Array.isArray(completion?.choices)) return malformed(outcome.body, 'choices')
      return { ok: true, answer: { type: 'completion', completion: completion as Chat.Completion } }
    },

    async models() {
      const cached = cache.get('models')
      if (cached) return { ok: true, models: cached }
      // Callers that miss together share one request.
      pending ??= fetchModels().finally(() => {
        pending = undefined
      })
      return pending
    },

    embed: (request) => list('/embeddings', request),
    generateImages: (request) => list('/images/generations', request),
    available: () => client.available(),
  }
}

export declare namespace openai {
  type Parameters = Omit<http.Parameters, 'name'> & {
    /** Name of the upstream in messages. @default 'the OpenAI-compatible upstream' */
    name?: string
    /** How long the models list is served from memory, in ms. @default 300_000 */
    modelsTtlMs?: number
  }
}

/** `value` as a plain object, or `undefined`. */
function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}
