import { type Static, Type } from '@sinclair/typebox'
import * as Events from '../../core/Events.js'

/** Every name a webhook may subscribe to: `*`, ours, then the original gateway's. */
const names = ['*', ...Object.keys(Events.types), ...Object.keys(Events.originalTypes)]

/** An event name a webhook may subscribe to: ours, the original gateway's, or `*` for all. */
export const EventName = Type.Union(
  names.map((name) => Type.Literal(name)),
  {
    description: `An event name (${Object.keys(Events.types).join(', ')}), \`*\` for every event, or one of the original gateway's names: ${Object.entries(
      Events.originalTypes,
    )
      .map(([name, { type }]) => `${name} (${type ?? 'never emitted here'})`)
      .join(', ')}.`,
  },
)

/** The subscriber's own JSON, kept with the record and shown back. */
const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Any JSON object of yours, kept with the webhook and shown in its answers; never delivered.',
})

/** Body of `POST /api/v1/webhook/register`. */
export const RegisterBody = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description: 'Where deliveries are POSTed; public http(s) only (checked by the outbound guard).',
    }),
    events: Type.Array(EventName, {
      minItems: 1,
      maxItems: names.length,
      uniqueItems: true,
      description: 'Events to receive.',
    }),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/webhook/register`. */
export type RegisterBody = Static<typeof RegisterBody>

/** Query of `GET /api/v1/webhook/list`. */
export const ListQuery = Type.Object({
  status: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'Only webhooks in this state: `active`, or `disabled` (after repeated failures or a 410).',
    }),
  ),
})
/** Query of `GET /api/v1/webhook/list`. */
export type ListQuery = Static<typeof ListQuery>

/** A webhook id: `wh_` and 32 hex digits. */
const WebhookId = Type.String({ pattern: '^wh_[0-9a-f]{32}$', description: 'Webhook id from webhook/register.' })

/** Body of `POST /api/v1/webhook/test` and `POST /api/v1/webhook/delete`. */
export const WebhookBody = Type.Object({ webhookId: WebhookId }, { additionalProperties: false })
/** Body of `POST /api/v1/webhook/test` and `/delete`. */
export type WebhookBody = Static<typeof WebhookBody>
