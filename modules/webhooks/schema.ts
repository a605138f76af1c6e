import { type Static, Type } from '@sinclair/typebox'
import * as Events from '../../core/Events.js'

/** An event name a webhook may subscribe to, or `*` for all. */
export const EventName = Type.Union(
  [Type.Literal('*'), ...Object.keys(Events.types).map((name) => Type.Literal(name))],
  { description: `An event name (${Object.keys(Events.types).join(', ')}) or \`*\` for every event.` },
)

/** Body of `POST /api/v1/webhook/register`. */
export const RegisterBody = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description: 'Where deliveries are POSTed; public http(s) only (checked by the outbound guard).',
    }),
    events: Type.Array(EventName, { minItems: 1, maxItems: 32, uniqueItems: true, description: 'Events to receive.' }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/webhook/register`. */
export type RegisterBody = Static<typeof RegisterBody>

/** A webhook id: `wh_` and 32 hex digits. */
const WebhookId = Type.String({ pattern: '^wh_[0-9a-f]{32}$', description: 'Webhook id from webhook/register.' })

/** Body of `POST /api/v1/webhook/test` and `POST /api/v1/webhook/delete`. */
export const WebhookBody = Type.Object({ webhookId: WebhookId }, { additionalProperties: false })
/** Body of `POST /api/v1/webhook/test` and `/delete`. */
export type WebhookBody = Static<typeof WebhookBody>
