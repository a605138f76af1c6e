import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The free utilities module, mounted by the gateway. */
export function free(deps: Deps) {
  return routes(deps)
}

/**
 * The free utilities (`/free/timestamp`, `uuid`, `convert`, `validate-address`, `validate-batch`, `estimate-batch`);
 * with a price source, conversions across assets too, and with the settlement chain's node as well, batch estimates
 * priced in USD.
 */
export const manifest = Module.define({
  name: 'free',
  paths: [
    '/free/timestamp',
    '/free/uuid',
    '/free/convert',
    '/free/validate-address',
    '/free/validate-batch',
    '/free/estimate-batch',
  ],
  needs: [],
  uses: ['oracle', 'chains'],
  env: Type.Object({
    FREE_RATE_LIMIT_PER_MINUTE: Type.Integer({
      minimum: 0,
      default: 300,
      description:
        'calls per minute each client (by source address: all of loopback as one, IPv6 by its /64) may make to the free utilities (`/free/timestamp`, `uuid`, `convert`, `validate-address`, `validate-batch`, `estimate-batch`), in bursts of as many; beyond it a 429 problem+json with `RateLimit`, `RateLimit-Policy` and `Retry-After`; `0`: no limit',
    }),
  }),
  rateLimit: (env) => {
    const perMinute = env.FREE_RATE_LIMIT_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  routes: ({ ports }) => free({ oracle: ports.oracle, settlement: ports.chains?.[0] }),
})
