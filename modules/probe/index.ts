import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'

/**
 * The x402 probe (`POST /free/x402-check`): requests a caller's URL and its origin's discovery documents through the
 * outbound guard and reports every payment protocol, price, network, asset and payee found, and what is malformed.
 * Each call sends up to four requests out, so it has a rate limit of its own, on by default, in place of the free
 * family's.
 */
export const manifest = Module.define({
  name: 'probe',
  paths: ['/free/x402-check'],
  needs: ['outbound'],
  env: Type.Object({
    X402_CHECK_RATE_LIMIT_PER_MINUTE: Type.Integer({
      minimum: 0,
      default: 30,
      description:
        'calls per minute each client (by IP) may make to `/free/x402-check`, in bursts of as many (each sends up to four requests out); `0`: no limit. Beyond it a 429 problem+json',
    }),
    X402_CHECK_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 5_000,
      description:
        'time limit of each of the four requests of one `/free/x402-check` (the URL, the well-known manifest, ' +
        'the OpenAPI document, llms.txt), sent at once, redirects included, in ms',
    }),
    X402_CHECK_MAX_BYTES: Type.Integer({
      minimum: 1024,
      maximum: 16 * 1024 * 1024,
      default: 2 * 1024 * 1024,
      description: 'largest answer body `/free/x402-check` reads from each of those requests, in bytes',
    }),
  }),
  rateLimit: (env) => {
    const perMinute = env.X402_CHECK_RATE_LIMIT_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  routes: ({ ports, env }) =>
    routes({ outbound: ports.outbound, timeoutMs: env.X402_CHECK_TIMEOUT_MS, maxBytes: env.X402_CHECK_MAX_BYTES }),
})
