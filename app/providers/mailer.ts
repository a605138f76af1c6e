import { Type } from '@sinclair/typebox'
import { smtp } from '../../adapters/notify/smtp.js'
import * as Notify from '../../core/Notify.js'
import { define } from './shared.js'

/** The SMTP relay of the email family, once its URL and sender are set; none before. */
export const mailer = define({
  port: 'mailer',
  description: 'an SMTP relay (NOTIFY_SMTP_URL and NOTIFY_EMAIL_FROM)',
  env: Type.Object({
    NOTIFY_SMTP_URL: Type.Optional(
      Type.String({
        minLength: 1,
        secret: true,
        description:
          'SMTP relay of `/api/v1/notify/email`, with its credentials: `smtps://user:pass@host:465` or `smtp://user:pass@host:587` (STARTTLS); unset, email is unavailable',
      }),
    ),
    NOTIFY_EMAIL_FROM: Type.Optional(
      Type.String({ minLength: 3, description: 'sender of every email, e.g. `Gateway <notify@example.com>`' }),
    ),
    NOTIFY_EMAIL_TIMEOUT_MS: Notify.emailTimeoutVariable,
  }),
  build: ({ env }) =>
    env.NOTIFY_SMTP_URL && env.NOTIFY_EMAIL_FROM
      ? smtp({ url: env.NOTIFY_SMTP_URL, from: env.NOTIFY_EMAIL_FROM, timeoutMs: env.NOTIFY_EMAIL_TIMEOUT_MS })
      : undefined,
})
