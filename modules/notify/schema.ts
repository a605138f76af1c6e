import { type Static, Type } from '@sinclair/typebox'
import * as Sms from '../../core/Sms.js'

/** The WHATWG `type=email` address pattern, with a dot required in the domain: one mailbox, no display name. */
const emailPattern =
  "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"

/** Longest SMS text the API takes, in characters (Twilio's limit; at most 10 segments are advised). */
export const maxSmsLength = 1_600

/** Most addresses of one copy field (`cc` or `bcc`). */
export const maxCopies = 10

/** One mailbox: no display name, no line breaks. */
const Mailbox = (description: string) => Type.String({ maxLength: 254, pattern: emailPattern, description })

/** `cc` or `bcc`: one address as the original gateway takes it, or a list of them. */
const Copies = (description: string) =>
  Type.Union([Mailbox(description), Type.Array(Mailbox(description), { minItems: 1, maxItems: maxCopies })], {
    description: `${description}: one address, or a list of at most ${maxCopies}.`,
  })

/** The sender's own JSON, kept with the message and shown back by notify/status. */
const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Any JSON object of yours, kept with the message and shown by notify/status; never sent to the provider.',
})

/** Body of `POST /api/v1/notify/email`. */
export const EmailBody = Type.Object(
  {
    to: Mailbox('One recipient address, e.g. `ada@example.com`.'),
    subject: Type.Optional(Type.String({ maxLength: 200, description: 'Subject line. @default "(no subject)"' })),
    body: Type.String({ minLength: 1, maxLength: 100_000, description: 'Plain-text body.' }),
    cc: Type.Optional(Copies('Carbon-copy recipients')),
    bcc: Type.Optional(Copies('Blind carbon-copy recipients (in the envelope, never in the headers)')),
    replyTo: Type.Optional(Mailbox('Where replies go (`Reply-To`).')),
    metadata: Type.Optional(Metadata),
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
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/notify/sms`. */
export type SmsBody = Static<typeof SmsBody>

/** The pattern of a message id: `ntf_` and 32 hex digits. */
export const messageIdPattern = '^ntf_[0-9a-f]{32}$'

/** The pattern of the original gateway's message ids (`ntf_<ms>_<6 base-36>`), which this gateway never issued. */
export const originalIdPattern = '^ntf_[0-9]+_[0-9a-z]+$'

/** A message id: `ntf_` and 32 hex digits. */
export const MessageId = Type.String({
  pattern: messageIdPattern,
  description: 'Message id from notify/email or notify/sms of this gateway (`ntf_` and 32 hex digits).',
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

/** When the message was accepted for sending. */
const CreatedAt = Type.String({ format: 'date-time', description: 'When the message was accepted for sending.' })

/** Answer of `POST /api/v1/notify/email`. */
export const EmailOutput = Type.Object({
  id: Type.String(),
  status: Status,
  type: Type.Literal('email', { description: 'The channel, as the original gateway names it.' }),
  to: Type.String(),
  subject: Type.String(),
  createdAt: CreatedAt,
  error: Type.Optional(Type.String({ description: 'The relay’s refusal, when bounced or deferred.' })),
})

/** Answer of `POST /api/v1/notify/sms`. */
export const SmsOutput = Type.Object({
  id: Type.String(),
  status: Status,
  type: Type.Literal('sms', { description: 'The channel, as the original gateway names it.' }),
  to: Type.String(),
  createdAt: CreatedAt,
  segments: Type.Integer({ description: 'Segments the carrier sends and bills.' }),
  encoding: Type.Union([Type.Literal('GSM-7'), Type.Literal('UCS-2')]),
  error: Type.Optional(Type.String({ description: 'The SMS API’s refusal, when failed or deferred.' })),
})

/** Answer of `GET /api/v1/notify/status`. */
export const StatusOutput = Type.Object({
  id: Type.String(),
  status: Status,
  channel: Type.Union([Type.Literal('email'), Type.Literal('sms')]),
  type: Type.Union([Type.Literal('email'), Type.Literal('sms')], { description: 'Same as `channel` (original name).' }),
  to: Type.String(),
  subject: Type.Optional(Type.String({ description: 'Subject of an email.' })),
  metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'The metadata sent with the message.' }),
  createdAt: CreatedAt,
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When it was handed over for good: an SMS on its verified delivery receipt; an email when its relay accepted it (SMTP has no receipt); null before.',
  }),
  error: Type.Optional(Type.String()),
  history: Type.Array(Type.Object({ status: Status, at: Type.String({ format: 'date-time' }) })),
})
