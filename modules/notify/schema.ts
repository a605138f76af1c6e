import { type Static, Type } from '@sinclair/typebox'
import * as Sms from '../../core/Sms.js'

/** The WHATWG `type=email` address pattern, with a dot required in the domain: one mailbox, no display name. */
const emailPattern =
  "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"

/** Longest SMS text the API takes, in characters (Twilio's limit; at most 10 segments are advised). */
export const maxSmsLength = 1_600

/** Body of `POST /api/v1/notify/email`. */
export const EmailBody = Type.Object(
  {
    to: Type.String({
      maxLength: 254,
      pattern: emailPattern,
      description: 'One recipient address, e.g. `ada@example.com`.',
    }),
    subject: Type.Optional(Type.String({ maxLength: 200, description: 'Subject line. @default "(no subject)"' })),
    body: Type.String({ minLength: 1, maxLength: 100_000, description: 'Plain-text body.' }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/notify/email`. */
export type EmailBody = Static<typeof EmailBody>

/** Body of `POST /api/v1/notify/sms`. */
export const SmsBody = Type.Object(
  {
    to: Type.String({ pattern: Sms.e164Pattern, description: 'Recipient in E.164, e.g. `+14155550100`.' }),
    body: Type.String({
      minLength: 1,
      maxLength: maxSmsLength,
      description: 'Text; GSM-7 segments hold 160 (153 when split) septets, UCS-2 ones 70 (67) UTF-16 units.',
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/notify/sms`. */
export type SmsBody = Static<typeof SmsBody>

/** A message id: `ntf_` and 32 hex digits. */
export const MessageId = Type.String({
  pattern: '^ntf_[0-9a-f]{32}$',
  description: 'Message id from notify/email or notify/sms.',
})

/** Query of `GET /api/v1/notify/status`. */
export const StatusQuery = Type.Object({ id: MessageId })
/** Query of `GET /api/v1/notify/status`. */
export type StatusQuery = Static<typeof StatusQuery>

/** Query of the SMS API's status callback: the message it reports on. */
export const CallbackQuery = Type.Object({ id: MessageId })

const Status = Type.Union(
  ['queued', 'sent', 'delivered', 'bounced', 'failed'].map((status) => Type.Literal(status)),
  {
    description:
      '`queued` (not yet accepted; retried), `sent` (the relay or SMS API accepted it), `delivered` (a verified SMS delivery receipt; email has none), `bounced`, `failed`.',
  },
)

/** Answer of `POST /api/v1/notify/email`. */
export const EmailOutput = Type.Object({
  id: Type.String(),
  status: Status,
  error: Type.Optional(Type.String({ description: 'The relay’s refusal, when bounced or deferred.' })),
})

/** Answer of `POST /api/v1/notify/sms`. */
export const SmsOutput = Type.Object({
  id: Type.String(),
  status: Status,
  segments: Type.Integer({ description: 'Segments the carrier sends and bills.' }),
  encoding: Type.Union([Type.Literal('GSM-7'), Type.Literal('UCS-2')]),
  error: Type.Optional(Type.String({ description: 'The SMS API’s refusal, when failed or deferred.' })),
})

/** Answer of `GET /api/v1/notify/status`. */
export const StatusOutput = Type.Object({
  id: Type.String(),
  status: Status,
  channel: Type.Union([Type.Literal('email'), Type.Literal('sms')]),
  to: Type.String(),
  error: Type.Optional(Type.String()),
  history: Type.Array(Type.Object({ status: Status, at: Type.String({ format: 'date-time' }) })),
})
