import type * as Compute from '../../core/Compute.js'
import { readBounded } from '../../core/internal/stream.js'
import { openai as inference } from '../upstream/openai.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * The compute family's OpenAI-compatible upstream: chat completions, embeddings and image generation through the
 * shared OpenAI adapter, plus `POST /audio/speech` (audio bytes back) and `POST /audio/transcriptions` (multipart
 * upload, JSON back), in the API's own shapes.
 */
export function openai(parameters: openai.Parameters): Compute.Direct {
  const {
    name = 'the compute upstream',
    baseUrl,
    apiKey,
    fetch = globalThis.fetch,
    timeoutMs = 120_000,
    maxAudioBytes = 25 * 1024 * 1024,
    ...options
  } = parameters
  const upstream = inference({ name, baseUrl, apiKey, fetch, timeoutMs, ...options })
  const client = vendor({
    id: 'compute-audio',
    name,
    baseUrl,
    auth: apiKey ? { type: 'bearer', token: apiKey } : { type: 'none' },
    fetch,
    timeoutMs,
    ...options,
  })

  return {
    ...upstream,

    // The vendor kit reads JSON and text; speech answers with audio bytes, read here within the same limits.
    async speak(request) {
      const available = client.available()
      if (!available.ok) return client.fail('unavailable', available.reason)
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), timeoutMs)
      try {
        const response = await fetch(`${baseUrl.replace(/\/$/, '')}/audio/speech`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: JSON.stringify(request),
          signal: controller.signal,
        })
        if (!response.ok || !response.body) {
          const text = await response.text().catch(() => '')
          const error = fieldsOf(fieldsOf(safeJson(text)).error).message
          const message = typeof error === 'string' ? error : `${name} answered HTTP ${response.status}`
          return client.fail(
            response.status === 400 || response.status === 422 ? 'rejected' : 'failed',
            message,
            response.status,
          )
        }
        const contentType = response.headers.get('content-type') ?? 'application/octet-stream'
        if (contentType.includes('json'))
          return client.fail('failed', `${name} answered JSON instead of audio`, response.status)
        const audio = await readBounded(response.body, maxAudioBytes)
        if (!audio) return client.fail('too_large', `${name} answered more than ${maxAudioBytes} bytes of audio`)
        return { ok: true, audio, contentType }
      } catch {
        return controller.signal.aborted
          ? client.fail('timeout', `${name} did not answer within ${timeoutMs} ms`)
          : client.fail('failed', `${name} could not be reached`)
      } finally {
        clearTimeout(timer)
      }
    },

    async transcribe(request) {
      const outcome = await client.json({
        method: 'POST',
        path: '/audio/transcriptions',
        label: 'transcription',
        multipart: () => {
          const form = new FormData()
          form.set('file', new Blob([new Uint8Array(request.audio)]), request.filename)
          form.set('model', request.model)
          form.set('response_format', 'json')
          if (request.language) form.set('language', request.language)
          if (request.prompt) form.set('prompt', request.prompt)
          return form
        },
      })
      if (!outcome.ok) return outcome
      const body = fieldsOf(outcome.body)
      if (typeof body.text !== 'string') return client.fail('failed', `${name} answered without text`, outcome.status)
      return { ok: true, body: body as { text: string } }
    },

    available() {
      const direct = upstream.available()
      return direct.ok ? client.available() : direct
    },
  }
}

export declare namespace openai {
  type Parameters = vendor.Options & {
    /** Base URL of the API, ending in `/v1`; never shown. */
    baseUrl: string
    /** Sent as `Authorization: Bearer <apiKey>`; absent, none is sent (a local server). Never shown. */
    apiKey?: string | undefined
    /** Name of the upstream in messages. @default 'the compute upstream' */
    name?: string
    /** Largest speech answer accepted, in bytes. @default 25 MiB */
    maxAudioBytes?: number
  }
}

/** `text` parsed as JSON, or `undefined`. */
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
