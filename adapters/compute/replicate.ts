import * as Compute from '../../core/Compute.js'
import type * as Upstream from '../../core/Upstream.js'
import { vendor } from '../vendor/vendor.js'

/**
 * Replicate's HTTP API (`https://api.replicate.com/v1`) as the predictions port: create
 * (`POST /models/{owner}/{name}/predictions` for an official model, `POST /predictions { version }` for a pinned
 * `owner/name:<version>`), read (`GET /predictions/{id}`) and cancel (`POST /predictions/{id}/cancel`). A create
 * with a webhook asks for the `completed` event only. Creates are never retried: a second one would run (and bill)
 * the model twice.
 */
export function replicate(parameters: replicate.Parameters): Compute.Predictions {
  const { baseUrl = 'https://api.replicate.com/v1', token, webhooks, ...options } = parameters
  const client = vendor({
    id: 'replicate',
    name: 'Replicate',
    baseUrl,
    auth: { type: 'bearer', token, env: 'REPLICATE_API_TOKEN' },
    timeoutMs: 30_000,
    ...options,
  })

  async function prediction(
    outcome: Upstream.Outcome<vendor.Answer>,
  ): Promise<Upstream.Outcome<{ prediction: Compute.Prediction }>> {
    if (!outcome.ok) return outcome
    return Compute.isPrediction(outcome.body)
      ? { ok: true, prediction: outcome.body }
      : client.fail('failed', 'Replicate answered without a prediction id and status', outcome.status)
  }

  return {
    async create(request) {
      const [path, version] = request.model.split(':') as [string, string | undefined]
      const body = {
        ...(version ? { version } : {}),
        input: request.input,
        ...(request.webhook ? { webhook: request.webhook, webhook_events_filter: ['completed'] } : {}),
      }
      const target = version ? '/predictions' : `/models/${path}/predictions`
      return prediction(await client.post(target, body, { label: 'prediction', idempotent: false }))
    },
    async get(id) {
      return prediction(
        await client.get(`/predictions/${encodeURIComponent(id)}`, { label: 'prediction', cache: false }),
      )
    },
    async cancel(id) {
      return prediction(
        await client.post(`/predictions/${encodeURIComponent(id)}/cancel`, undefined, {
          label: 'cancel',
          idempotent: true,
        }),
      )
    },
    available: () => client.available(),
    webhooks: webhooks && {
      url: (path) => new URL(path, webhooks.publicUrl).toString(),
      verify: (body, headers) => Compute.verifyWebhook({ secret: webhooks.secret, body, headers }),
    },
  }
}

export declare namespace replicate {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.replicate.com/v1' */
    baseUrl?: string | undefined
    /** The API token (`REPLICATE_API_TOKEN`), sent as a bearer token; absent, the port is unavailable. Never shown. */
    token: string | undefined
    /** Where Replicate posts completed predictions (our public origin) and the `whsec_...` secret they are signed with. */
    webhooks?: { publicUrl: string; secret: string } | undefined
  }
}
