import { Type } from '@sinclair/typebox'
import { InvalidTransitionError } from './Errors.js'
import type { Encoding } from './Sms.js'
import type { Availability } from './Upstream.js'

/**
 * Notifications (email and SMS) and the ports that hand them to a provider. A message's status moves only on what the
 * provider really said: `queued` until a relay or the SMS API accepts it (`sent`), `bounced` when the relay or the
 * carrier refuses it for good, `failed` when it is given up, and `delivered` only on a delivery receipt whose
 * signature was verified. SMTP has no delivery receipt, so an email stays `sent` once its relay accepted it.
 */

/** Where a message is. */
export type Status = 'queued' | 'sent' | 'delivered' | 'bounced' | 'failed'

/** How a message travels. */
export type Channel = 'email' | 'sms'

/** One message, as the store keeps it. */
export type Message = {
  /** Email or SMS. */
  channel: Channel
  /** Recipient: an email address, or an E.164 phone number. */
  to: string
  /** Subject of an email. */
  subject?: string | undefined
  /** Carbon-copy recipients of an email. */
  cc?: string[] | undefined
  /** Blind carbon-copy recipients of an email: in the envelope, never in the headers. */
  bcc?: string[] | undefined
  /** Where replies to an email go (`Reply-To`). */
  replyTo?: string | undefined
  /** The sender's own JSON, kept with the message and shown back; never given to the provider. */
  metadata?: Record<string, unknown> | undefined
  /** The text, kept only until the provider accepted or refused it. */
  body?: string | undefined
  /** Where it is. */
  status: Status
  /** Hand-off attempts that found the provider unreachable, busy or refusing for now. */
  deferrals: number
  /** The provider's id of the message (SMTP `Message-ID`, Twilio `SM…` SID), once accepted. */
  providerId?: string | undefined
  /** The provider's answer to the hand-off, e.g. `250 2.0.0 OK`. */
  response?: string | undefined
  /** Why it bounced, failed or was last deferred. */
  error?: string | undefined
  /** Segments of an SMS (what the carrier bills). */
  segments?: number | undefined
  /** Encoding of an SMS. */
  encoding?: Encoding | undefined
  /** Every status it entered, with when (ISO 8601). */
  history: { status: Status; at: string }[]
}

/** What a provider said of a message. */
export type Event =
  | {
      /** The relay or the SMS API accepted it (SMTP 250; Twilio `queued`, `sending`, `sent`). */ type: 'accepted'
      /** The provider's id of the message. */
      providerId: string
      /** The provider's answer. */
      response: string
    }
  | { /** A verified delivery receipt said it arrived. */ type: 'delivered' }
  | {
      /** The relay or the carrier refused it for good (SMTP 5xx, Twilio `undelivered`). */ type: 'bounced'
      reason: string
    }
  | { /** The provider gave it up, or it was given up after too many deferrals. */ type: 'failed'; reason: string }
  | {
      /** A hand-off found the provider unreachable, busy or refusing for now; it is tried again. */ type: 'deferred'
      reason: string
    }

/** Statuses each event applies to. */
const from: { readonly [type in Event['type']]: readonly Status[] } = {
  accepted: ['queued', 'sent'],
  delivered: ['queued', 'sent'],
  bounced: ['queued', 'sent'],
  failed: ['queued', 'sent'],
  deferred: ['queued'],
}

/** Whether `event` applies to a message in `status`: a final status takes none (a late or repeated report). */
export function applies(status: Status, event: Event['type']): boolean {
  return from[event].includes(status)
}

/**
 * The next state of a message, in the shape of every state machine (`Machine.Transition`). Pure, so a store may run
 * it again after a lost race. Throws {@link InvalidTransitionError} when the event does not apply.
 */
export function transition(message: Message, event: Event, now: Date): Message {
  if (!applies(message.status, event.type))
    throw new InvalidTransitionError(`A message that is ${message.status} cannot take '${event.type}'.`, {
      details: { status: message.status, event: event.type },
    })
  const enter = (status: Status, fields: Partial<Message>): Message => ({
    ...message,
    ...fields,
    status,
    history: message.status === status ? message.history : [...message.history, { status, at: now.toISOString() }],
  })
  switch (event.type) {
    case 'accepted':
      return enter('sent', {
        providerId: message.providerId ?? event.providerId,
        response: message.response ?? event.response,
        body: undefined,
        error: undefined,
      })
    case 'delivered':
      return enter('delivered', { body: undefined })
    case 'bounced':
      return enter('bounced', { body: undefined, error: event.reason })
    case 'failed':
      return enter('failed', { body: undefined, error: event.reason })
    case 'deferred':
      return enter('queued', { deferrals: message.deferrals + 1, error: event.reason })
  }
}

/** What came of one hand-off of a message to its provider. */
export type Handoff =
  | {
      /** Accepted. */ ok: true
      /** The provider's id of the message. */
      providerId: string
      /** The provider's answer, e.g. `250 2.0.0 OK` or `queued`. */
      response: string
    }
  | {
      /** Not accepted. */ ok: false
      /**
       * `bounced`: the relay refused the recipient or the message for good (SMTP 5xx); `failed`: the SMS API refused
       * the message for good (an invalid or unreachable number); `retry`: no answer in time, the relay is busy or
       * unreachable (SMTP 4xx, HTTP 429 or 5xx); `refused`: the provider refused our credentials or account, which
       * only the operator can fix.
       */
      kind: 'bounced' | 'failed' | 'retry' | 'refused'
      /** The provider's words, safe to show the caller (never a credential). */
      reason: string
    }

/**
 * The `NOTIFY_EMAIL_TIMEOUT_MS` variable: the SMTP relay's time limit (the mailer's provider) and the wait a paid call
 * gives it (the email family's hand-off), one schema in both slices.
 */
export const emailTimeoutVariable = Type.Integer({
  minimum: 100,
  maximum: 60_000,
  default: 10_000,
  description:
    'time limit of the SMTP connection, greeting and each answer, in ms; a paid call waits for the relay that long',
})

/**
 * The `NOTIFY_SMS_TIMEOUT_MS` variable: the SMS API's time limit (the texter's provider) and the wait a paid call gives
 * it (the SMS family's hand-off), one schema in both slices.
 */
export const smsTimeoutVariable = Type.Integer({
  minimum: 100,
  maximum: 60_000,
  default: 10_000,
  description: 'time limit of one call to the SMS API, in ms; a paid call waits for it that long',
})

/** The email port: hands a message to a relay. */
export type Mailer = {
  /** Hands one plain-text email to the relay, from the operator's sender address, with its copies and `Reply-To`. */
  send: (message: {
    to: string
    subject: string
    text: string
    cc?: string[] | undefined
    bcc?: string[] | undefined
    replyTo?: string | undefined
  }) => Promise<Handoff>
}

/** A provider's status report on an SMS, read from a callback whose signature verified. */
export type Report = {
  /** The provider's id of the message. */
  providerId: string
  /** What it says, as an event; `undefined` for a status that moves nothing (`received`, `read` of inbound). */
  event: Extract<Event, { type: 'accepted' | 'delivered' | 'bounced' | 'failed' }> | undefined
}

/** The SMS port: hands a message to an SMS API and reads its signed status callbacks. */
export type Texter = {
  /** Hands one text to the API, from the operator's sender; the API reports on it to `callbackUrl`, when given. */
  send: (message: { to: string; body: string; callbackUrl?: string | undefined }) => Promise<Handoff>
  /** Reads a status callback POSTed to `url` with form `params`: the report, or `undefined` when its signature fails. */
  report: (callback: {
    url: string
    params: Record<string, string>
    signature: string | undefined
  }) => Report | undefined
  /** Whether calls may start now (its circuit breaker). */
  available: () => Availability
}
