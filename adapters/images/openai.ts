import type * as Chat from '../../core/Chat.js'
import type * as Image from '../../core/Image.js'
import { openai as inference } from '../upstream/openai.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * Any OpenAI-compatible images API (OpenAI's own at `https://api.openai.com/v1`, or a server that speaks it):
 * `POST /images/generations` through the shared OpenAI adapter, and `POST /images/edits`, a multipart upload of the
 * image (`image`, `mask`, `prompt`, `model`, `n`, `size`, `quality`), in the API's own shapes. Neither is ever sent twice: a
 * second call would draw (and bill) again.
 */
export function openai(parameters: openai.Parameters): Image.Images {
  const {
    name = 'the images upstream',
    baseUrl,
    apiKey,
    timeoutMs = 180_000,
    maxResponseBytes = 64 * 1024 * 1024,
    ...options
  } = parameters
  const upstream = inference({ name, baseUrl, apiKey, timeoutMs, maxResponseBytes, ...options })
  const client = vendor({
    id: 'images-edits',
    name,
    baseUrl,
    auth: apiKey ? { type: 'bearer', token: apiKey } : { type: 'none' },
    timeoutMs,
    maxResponseBytes,
    ...options,
  })

  return {
    generate: (request) => upstream.generateImages(request),

    async edit(request) {
      const outcome = await client.json({
        method: 'POST',
        path: '/images/edits',
        label: 'image edit',
        multipart: () => {
          const form = new FormData()
          const file = ({ bytes, filename, type }: Image.File) => new File([new Uint8Array(bytes)], filename, { type })
          form.set('image', file(request.image))
          if (request.mask) form.set('mask', file(request.mask))
          form.set('prompt', request.prompt)
          form.set('model', request.model)
          form.set('n', String(request.n))
          if (request.size) form.set('size', request.size)
          if (request.quality) form.set('quality', request.quality)
          return form
        },
      })
      if (!outcome.ok) return outcome
      const body = fieldsOf(outcome.body)
      if (!Array.isArray(body.data))
        return client.fail('failed', `${name} answered without a data array`, outcome.status)
      return { ok: true, body: body as Chat.List }
    },

    available() {
      const generations = upstream.available()
      return generations.ok ? client.available() : generations
    },
  }
}

export declare namespace openai {
  type Parameters = vendor.Options & {
    /** Base URL of the API, ending in `/v1`; never shown. */
    baseUrl: string
    /** Sent as `Authorization: Bearer <apiKey>`; absent, none is sent (a local server). Never shown. */
    apiKey?: string | undefined
    /** Largest answer accepted, in bytes (images come back as URLs or base64). @default 64 MiB */
    maxResponseBytes?: number
    /** Name of the upstream in messages. @default 'the images upstream' */
    name?: string
  }
}
