import { Type } from '@sinclair/typebox'
import { twilio } from '../../adapters/notify/twilio.js'
import * as Notify from '../../core/Notify.js'
import { define } from './shared.js'

/** The Twilio-shaped SMS API of the SMS family, once its account, token and sender are set; none before. */
export const texter = define({
  port: 'texter',
  description: 'an SMS API (NOTIFY_TWILIO_ACCOUNT_SID, NOTIFY_TWILIO_AUTH_TOKEN and NOTIFY_SMS_FROM)',
  env: Type.Object({
    NOTIFY_TWILIO_URL: Type.String({
      minLength: 1,
      default: 'https://api.twilio.com',
      description: 'Twilio-shaped SMS API of `/api/v1/notify/sms` (`/2010-04-01/Accounts/{sid}/Messages.json`)',
    }),
    NOTIFY_TWILIO_ACCOUNT_SID: Type.Optional(Type.String({ minLength: 1, description: 'account SID (`AC…`)' })),
    NOTIFY_TWILIO_AUTH_TOKEN: Type.Optional(
      Type.String({
        minLength: 1,
        secret: true,
        description: 'auth token: the API password and the key of callback signatures',
      }),
    ),
    NOTIFY_SMS_FROM: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'sender: an E.164 number, a short code, an alphanumeric id, or a Messaging Service SID (`MG…`)',
      }),
    ),
    NOTIFY_SMS_TIMEOUT_MS: Notify.smsTimeoutVariable,
  }),
  build: ({ env }) =>
    env.NOTIFY_TWILIO_ACCOUNT_SID && env.NOTIFY_TWILIO_AUTH_TOKEN && env.NOTIFY_SMS_FROM
      ? twilio({
          baseUrl: env.NOTIFY_TWILIO_URL,
          accountSid: env.NOTIFY_TWILIO_ACCOUNT_SID,
          authToken: env.NOTIFY_TWILIO_AUTH_TOKEN,
          from: env.NOTIFY_SMS_FROM,
          timeoutMs: env.NOTIFY_SMS_TIMEOUT_MS,
        })
      : undefined,
})
