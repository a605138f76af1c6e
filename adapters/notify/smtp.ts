import { createTransport } from 'nodemailer'
import type * as Notify from '../../core/Notify.js'

/**
 * Email through any SMTP relay (Amazon SES, Postmark, Resend, a company relay) with nodemailer, by URL:
 * `smtps://user:pass@host:465` for implicit TLS, `smtp://user:pass@host:587` for STARTTLS. The relay's 250 to the
 * message is the hand-off; a 5xx to the recipient or the message is a bounce; a 4xx, a dropped connection or no answer
 * within `timeoutMs` is a retry; a refused login is `refused` (the operator's credentials).
 */
export function smtp(parameters: smtp.Parameters): Notify.Mailer {
  const { url, from, timeoutMs = 10_000 } = parameters
  const transport = createTransport(
    { url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs },
    { from },
  )
  return {
    async send({ to, subject, text, cc, bcc, replyTo }) {
      try {
        const info = await transport.sendMail({ to, subject, text, cc, bcc, replyTo })
        return { ok: true, providerId: info.messageId, response: info.response }
      } catch (error) {
        return { ok: false, ...failureOf(error) }
      }
    },
  }
}

export declare namespace smtp {
  type Parameters = {
    /** The relay, with its credentials: `smtp://` or `smtps://`; never shown. */
    url: string
    /** Sender of every message, e.g. `Gateway <notify@example.com>`. */
    from: string
    /** Time limit of the connection, the greeting and each answer, in ms. @default 10_000 */
    timeoutMs?: number
  }
}

/** A nodemailer error as the relay's answer: its SMTP code, the command it answered, and its text. */
type SmtpError = { code?: string; responseCode?: number; command?: string; response?: string; message?: string }

/** What a failed `sendMail` means for the message. */
function failureOf(error: unknown): Omit<Extract<Notify.Handoff, { ok: false }>, 'ok'> {
  const { code, responseCode, command, response } = (error ?? {}) as SmtpError
  // The relay's own words when it answered; else the kind of fault, never the message (it may quote the URL).
  const reason = response ?? `${code ?? 'error'} talking to the relay`
  if (code === 'EAUTH') return { kind: 'refused', reason }
  // A refused sender is the operator's configuration; a refused recipient or message is this message's bounce.
  const permanent = responseCode !== undefined && responseCode >= 500
  if (permanent && (command === 'RCPT TO' || command === 'DATA' || code === 'EMESSAGE'))
    return { kind: 'bounced', reason }
  if (permanent) return { kind: 'refused', reason }
  return { kind: 'retry', reason }
}
