import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import * as Notify from '../../core/Notify.js'
import * as Routes from './routes.js'
import { EmailOutput, SmsOutput, StatusOutput } from './schema.js'
import * as Service from './service.js'

/** Retries of a deferred hand-off: six attempts over about half an hour. */
const retries = { maxAttempts: 6, retryBaseMs: 60_000, retryMaxMs: 900_000 }

/** How long after a paid call its queue item becomes due, past the call's own hand-off (`timeoutMs`). */
const graceAfterMs = 30_000

/** A payer's bucket: `perHour` calls an hour, in bursts of up to `perHour`. */
function perHour(calls: number) {
  return { capacity: calls, refill: calls, intervalMs: 3_600_000 }
}

/** The email family's environment. */
const emailEnv = Type.Object({
  NOTIFY_EMAIL_PER_PAYER_PER_HOUR: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'emails one payer may send an hour (in bursts of as many); past it a 429 before anything is charged',
  }),
  NOTIFY_EMAIL_TIMEOUT_MS: Notify.emailTimeoutVariable,
})

/** The SMS family's environment. */
const smsEnv = Type.Object({
  NOTIFY_SMS_PER_PAYER_PER_HOUR: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'texts one payer may send an hour (in bursts of as many); past it a 429 before anything is charged',
  }),
  NOTIFY_SMS_TIMEOUT_MS: Notify.smsTimeoutVariable,
})

/** The hand-off policy of a channel whose provider answers within `timeoutMs`. */
function policyOf(timeoutMs: number): Service.Policy {
  return { ...retries, graceMs: timeoutMs + graceAfterMs }
}

function emailDeps(
  ports: Pick<Module.Ports, 'store' | 'mailer'>,
  env: { NOTIFY_EMAIL_PER_PAYER_PER_HOUR: number; NOTIFY_EMAIL_TIMEOUT_MS: number },
): Service.Deps {
  return {
    store: ports.store,
    send: ({ to, subject, body, cc, bcc, replyTo }) =>
      ports.mailer.send({ to, subject: subject ?? '', text: body ?? '', cc, bcc, replyTo }),
    limit: perHour(env.NOTIFY_EMAIL_PER_PAYER_PER_HOUR),
    policy: policyOf(env.NOTIFY_EMAIL_TIMEOUT_MS),
  }
}

function smsDeps(
  ports: Pick<Module.Ports, 'store' | 'texter'> & { publicUrl?: string | undefined },
  env: { NOTIFY_SMS_PER_PAYER_PER_HOUR: number; NOTIFY_SMS_TIMEOUT_MS: number },
) {
  const { texter } = ports
  return {
    store: ports.store,
    // Without a public URL there is nowhere to report to: the text stays `sent` once the API accepted it.
    send: ({ id, to, body }: { id: string; to: string; body?: string | undefined }) =>
      texter.send({
        to,
        body: body ?? '',
        callbackUrl: ports.publicUrl ? Routes.callbackUrlOf(ports.publicUrl, id) : undefined,
      }),
    report: texter.report,
    publicUrl: ports.publicUrl,
    limit: perHour(env.NOTIFY_SMS_PER_PAYER_PER_HOUR),
    policy: policyOf(env.NOTIFY_SMS_TIMEOUT_MS),
  }
}

/**
 * Email (`POST /api/v1/notify/email`) through the operator's SMTP relay. The paid call waits for the relay: its 250
 * makes the message `sent`, a 5xx to the recipient or the message `bounced` (the call succeeds and is charged either
 * way: the relay's real answer is the service); a 4xx or no answer leaves it `queued` for the hand-off worker, which
 * retries with backoff and gives up (`failed`) after six attempts. SMTP has no delivery receipt: an email stays `sent`.
 */
export const emailManifest = Module.define({
  name: 'notify-email',
  paths: ['/api/v1/notify/email'],
  needs: ['store', 'queue', 'mailer'],
  env: emailEnv,
  outputs: { 'POST /api/v1/notify/email': EmailOutput },
  routes: ({ ports, env }) => Routes.email(emailDeps(ports, env)),
  workers: [
    {
      queue: Service.handoffQueue('email'),
      leaseMs: 120_000,
      run: (item, { ports, env }) => Service.handOff(emailDeps(ports, env), item),
    },
  ],
})

/**
 * SMS (`POST /api/v1/notify/sms`) through a Twilio-shaped API. The paid call waits for the API: `queued`/`sent` from
 * it makes the text `sent`, a 4xx (an invalid or blocked number) `failed`; a 429, 5xx or no answer leaves it `queued`
 * for the hand-off worker. With PUBLIC_URL set, the API reports to `POST /api/v1/notify/callback/twilio?id=…`, whose
 * `X-Twilio-Signature` is verified: only such a report makes a text `delivered` (or `bounced` when undelivered).
 */
export const smsManifest = Module.define({
  name: 'notify-sms',
  paths: ['/api/v1/notify/sms'],
  needs: ['store', 'queue', 'texter'],
  uses: ['publicUrl'],
  env: smsEnv,
  outputs: { 'POST /api/v1/notify/sms': SmsOutput },
  extraRoutes: [`POST ${Routes.callbackPath}`],
  routes: ({ ports, env }) => Routes.sms(smsDeps(ports, env)),
  ready: ({ ports }) => Module.reasonOf(ports.texter.available()),
  workers: [
    {
      queue: Service.handoffQueue('sms'),
      leaseMs: 120_000,
      run: (item, { ports, env }) => Service.handOff(smsDeps(ports, env), item),
    },
  ],
})

/** Status (`GET /api/v1/notify/status?id=`) of the payer's own message, email or SMS. */
export const statusManifest = Module.define({
  name: 'notify-status',
  paths: ['/api/v1/notify/status'],
  needs: ['store'],
  outputs: { 'GET /api/v1/notify/status': StatusOutput },
  routes: ({ ports }) => Routes.status({ store: ports.store }),
})
