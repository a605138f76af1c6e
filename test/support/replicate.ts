import { Webhook } from 'standardwebhooks'

/** A prediction as the stand-in keeps it, in Replicate's documented shape. */
export type StubPrediction = {
  id: string
  model: string
  version: string | null
  input: Record<string, unknown>
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled'
  output: unknown
  error: string | null
  logs: string
  webhook: string | null
  created_at: string
  urls: { get: string; cancel: string; web: string }
}

/** The signing secret of the stand-in's webhooks (`whsec_` and base64 of 32 bytes). */
export const webhookSecret = `whsec_${btoa('replicate-stand-in-signing-key-32')}`

/**
 * A local server on 127.0.0.1 that speaks Replicate's predictions API: `POST /v1/models/{owner}/{name}/predictions`
 * and `POST /v1/predictions { version }` answer 201 `{ id, status: 'starting', urls, ... }`; `GET /v1/predictions/{id}`;
 * `POST /v1/predictions/{id}/cancel`. The test moves a prediction on (`process`, `succeed`, `fail`) and gets the signed
 * webhook Replicate would send (`webhook`), Standard Webhooks style.
 */
export function replicateStub(parameters: { token: string }) {
  const predictions = new Map<string, StubPrediction>()
  const received: { method: string; path: string; authorization: string | null; body: any }[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const text = await request.text()
      const body = text ? JSON.parse(text) : undefined
      received.push({
        method: request.method,
        path: url.pathname,
        authorization: request.headers.get('authorization'),
        body,
      })
      if (request.headers.get('authorization') !== `Bearer ${parameters.token}`)
        return Response.json(
          { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 },
          { status: 401 },
        )
      const official = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(url.pathname)
      if (request.method === 'POST' && (official || url.pathname === '/v1/predictions')) {
        if (!body?.input || (!official && !/^[0-9a-f]{64}$/.test(body.version ?? '')))
          return Response.json({ title: 'Invalid version or not permitted', status: 422 }, { status: 422 })
        const id = crypto.randomUUID().replaceAll('-', '').slice(0, 26)
        const base = `http://127.0.0.1:${server.port}/v1/predictions/${id}`
        const prediction: StubPrediction = {
          id,
          model: official ? `${official[1]}/${official[2]}` : 'owner/pinned',
          version: official ? null : body.version,
          input: body.input,
          status: 'starting',
          output: null,
          error: null,
          logs: '',
          webhook: body.webhook ?? null,
          created_at: new Date().toISOString(),
          urls: { get: base, cancel: `${base}/cancel`, web: `https://replicate.com/p/${id}` },
        }
        predictions.set(id, prediction)
        return Response.json(prediction, { status: 201 })
      }
      const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(url.pathname)
      const found = one && predictions.get(one[1]!)
      if (!found) return Response.json({ detail: 'Not found.', status: 404 }, { status: 404 })
      if (request.method === 'POST' && one![2]) {
        if (found.status === 'starting' || found.status === 'processing') found.status = 'canceled'
        return Response.json(found)
      }
      if (request.method === 'GET' && !one![2]) return Response.json(found)
      return Response.json({ detail: 'Method not allowed.', status: 405 }, { status: 405 })
    },
  })

  function move(id: string, change: Partial<StubPrediction>): StubPrediction {
    const found = predictions.get(id)
    if (!found) throw new Error(`No prediction ${id}`)
    Object.assign(found, change)
    return found
  }

  return {
    /** Base URL of the API, `http://127.0.0.1:<port>/v1`. */
    url: `http://127.0.0.1:${server.port}/v1`,
    /** Every request received, in order. */
    received,
    /** Every prediction, by id. */
    predictions,
    /** The model started it. */
    process: (id: string) => move(id, { status: 'processing' }),
    /** It finished with `output`. */
    succeed: (id: string, output: unknown) => move(id, { status: 'succeeded', output }),
    /** It failed with `error`. */
    fail: (id: string, error: string) => move(id, { status: 'failed', error }),
    /** The webhook Replicate sends for the prediction as it is now, signed with `secret` at `now`. */
    webhook(id: string, options: { secret?: string; now?: Date } = {}) {
      const prediction = predictions.get(id)!
      const body = JSON.stringify(prediction)
      const messageId = `msg_${crypto.randomUUID()}`
      const now = options.now ?? new Date()
      const signature = new Webhook(options.secret ?? webhookSecret).sign(messageId, now, body)
      return {
        url: prediction.webhook!,
        init: {
          method: 'POST',
          body,
          headers: {
            'content-type': 'application/json',
            'webhook-id': messageId,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signature,
          },
        },
      }
    },
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}
