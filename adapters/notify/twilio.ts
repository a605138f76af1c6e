import { createHmac, timingSafeEqual } from 'node:crypto'
import type * as Notify from '../../core/Notify.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * SMS through Twilio's Messages API or any API of its shape, by base URL: `POST
 * {base}/2010-04-01/Accounts/{AccountSid}/Messages.json` (HTTP Basic `AccountSid:AuthToken`, a form with `To`, `From`
 * or `MessagingServiceSid`, `Body`, `StatusCallback`) answers 201 `{ sid: "SM…", status: "queued" | "accepted", … }`,
 * or an error `{ code, message, more_info, status }`. Status callbacks are form POSTs (`MessageSid`, `MessageStatus`,
 * `ErrorCode`, …) signed in `X-Twilio-Signature`: base64 of HMAC-SHA1, keyed by the auth token, over the full URL
 * Twilio called followed by each POST parameter's name and value, sorted by name.
 */
export function twilio(parameters: twilio.Parameters): Notify.Texter {
  const { baseUrl = 'https://api.twilio.com', accountSid, authToken, from, ...options } = parameters
  const client = vendor({
    id: 'twilio',
    name: 'the SMS API',
    baseUrl,
    auth: { type: 'basic', username: accountSid, password: authToken, env: 'NOTIFY_TWILIO_AUTH_TOKEN' },
    timeoutMs: 10_000,
    errorMessage: ({ status, text }) => {
      try {
        const body = fieldsOf(JSON.parse(text ?? ''))
        if (typeof body.message === 'string') return `${body.code ?? status}: ${body.message}`
      } catch {}
      return `answered HTTP ${status}`
    },
    ...options,
  })
  // A Messaging Service (`MG…`) picks the sender itself; anything else is the sending number or short code.
  const sender: Record<string, string> = from.startsWith('MG') ? { MessagingServiceSid: from } : { From: from }
  return {
    async send({ to, body, callbackUrl }) {
      const outcome = await client.json({
        method: 'POST',
        path: `/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`,
        form: { To: to, ...sender, Body: body, ...(callbackUrl ? { StatusCallback: callbackUrl } : {}) },
        idempotent: false,
        label: 'message',
      })
      if (!outcome.ok) {
        const kind =
          outcome.reason === 'rejected'
            ? 'failed'
            : outcome.status === 401 || outcome.status === 403 || outcome.status === 404
              ? 'refused'
              : 'retry'
        return { ok: false, kind, reason: outcome.message }
      }
      const answer = fieldsOf(outcome.body)
      if (typeof answer.sid !== 'string' || typeof answer.status !== 'string')
        return { ok: false, kind: 'retry', reason: 'the SMS API answered without a message sid and status' }
      return { ok: true, providerId: answer.sid, response: answer.status }
    },
    report({ url, params, signature }) {
      if (signature === undefined || !authToken || !verify({ url, params, signature, authToken })) return undefined
      const providerId = params.MessageSid ?? params.SmsSid
      if (!providerId) return undefined
      return { providerId, event: eventOf(params) }
    },
    available: () => client.available(),
  }
}

export declare namespace twilio {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.twilio.com' */
    baseUrl?: string
    /** Account SID (`AC…`). */
    accountSid: string
    /** Auth token: the API's password and the key of callback signatures; never shown. */
    authToken: string | undefined
    /** Sender: an E.164 number, a short code, an alphanumeric sender id, or a Messaging Service SID (`MG…`). */
    from: string
  }
}

/** The `X-Twilio-Signature` of a callback: base64 HMAC-SHA1 of `url` and the sorted parameters, keyed by the token. */
export function sign(parameters: { url: string; params: Record<string, string>; authToken: string }): string {
  const { url, params, authToken } = parameters
  const data = Object.keys(params)
    .sort()
    .reduce((text, name) => text + name + params[name], url)
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64')
}

/** Whether `signature` is the callback's signature, compared in constant time. */
function verify(parameters: { url: string; params: Record<string, string>; signature: string; authToken: string }) {
  const expected = Buffer.from(sign(parameters))
  const given = Buffer.from(parameters.signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

/** What a callback's `MessageStatus` says of the message. */
function eventOf(params: Record<string, string>): Notify.Report['event'] {
  const status = params.MessageStatus ?? params.SmsStatus
  const error = params.ErrorCode ? `error ${params.ErrorCode}` : undefined
  switch (status) {
    case 'accepted':
    case 'scheduled':
    case 'queued':
    case 'sending':
    case 'sent':
      return { type: 'accepted', providerId: params.MessageSid ?? params.SmsSid ?? '', response: status }
    case 'delivered':
      return { type: 'delivered' }
    case 'undelivered':
      return { type: 'bounced', reason: `the carrier did not deliver it${error ? ` (${error})` : ''}` }
    case 'failed':
    case 'canceled':
      return { type: 'failed', reason: `the SMS API reported it ${status}${error ? ` (${error})` : ''}` }
    default:
      return undefined
  }
}
