import { Type } from '@sinclair/typebox'
import { outboxQueue } from '../../core/Events.js'
import * as Module from '../../core/Module.js'
import * as Webhooks from '../../core/Webhooks.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/**
 * Webhooks (`/api/v1/webhook/*`): registered receivers of the payer's events, signed by the Standard Webhooks
 * specification. Two workers run in every process: the outbox's, which fans each event out to the owner's subscribed
 * webhooks, and the deliveries', which POSTs each signed delivery with retries (exponential backoff with jitter),
 * fails it after `WEBHOOK_MAX_ATTEMPTS`, and disables a webhook after a 410 or `WEBHOOK_DISABLE_AFTER` failed
 * deliveries in a row.
 */
export const manifest = Module.define({
  name: 'webhooks',
  paths: ['/api/v1/webhook/'],
  needs: ['store', 'queue', 'outbound'],
  uses: ['paymentOutcome'],
  env: Type.Object({
    WEBHOOK_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description: 'time limit of one webhook delivery POST (and of `webhook/test`), in ms',
    }),
    WEBHOOK_MAX_ATTEMPTS: Type.Integer({
      minimum: 1,
      maximum: 50,
      default: 10,
      description: 'attempts of one webhook delivery (and cron callback) before it is marked failed',
    }),
    WEBHOOK_RETRY_BASE_MS: Type.Integer({
      minimum: 1,
      default: 5_000,
      description: 'first retry delay of a failed delivery, in ms; doubled per attempt, with full jitter',
    }),
    WEBHOOK_RETRY_MAX_MS: Type.Integer({
      minimum: 1,
      default: 3_600_000,
      description: 'longest retry delay of a failed delivery, in ms',
    }),
    WEBHOOK_LEASE_MS: Type.Integer({
      minimum: 1_000,
      maximum: 3_600_000,
      default: 90_000,
      description:
        'lease of a claimed delivery, in ms: a process that dies mid-delivery leaves it to another once this ends; keep it above `WEBHOOK_TIMEOUT_MS`',
    }),
    WEBHOOK_DISABLE_AFTER: Type.Integer({
      minimum: 1,
      default: 5,
      description: 'failed deliveries in a row after which a webhook is disabled (a 410 disables it at once)',
    }),
  }),
  routes: ({ ports, env }) => routes(depsOf(ports, env)),
  workers: [
    { queue: outboxQueue, run: (item, { ports, env }) => Service.fanOut(depsOf(ports, env), item) },
    {
      queue: Webhooks.deliveryQueue,
      concurrency: 32,
      leaseMs: (env) => env.WEBHOOK_LEASE_MS,
      run: (item, { ports, env }) =>
        Webhooks.deliver({
          store: ports.store,
          outbound: ports.outbound,
          policy: depsOf(ports, env).policy,
          item: item as never,
        }),
    },
  ],
})

function depsOf(
  ports: Pick<Module.Ports, 'store' | 'queue' | 'outbound'> & Partial<Pick<Module.Ports, 'paymentOutcome'>>,
  env: {
    WEBHOOK_TIMEOUT_MS: number
    WEBHOOK_MAX_ATTEMPTS: number
    WEBHOOK_RETRY_BASE_MS: number
    WEBHOOK_RETRY_MAX_MS: number
    WEBHOOK_DISABLE_AFTER: number
  },
): Service.Deps {
  return {
    store: ports.store,
    queue: ports.queue,
    outbound: ports.outbound,
    paymentOutcome: ports.paymentOutcome,
    policy: {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: env.WEBHOOK_RETRY_MAX_MS,
      disableAfter: env.WEBHOOK_DISABLE_AFTER,
    },
  }
}
