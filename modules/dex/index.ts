import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'

/**
 * Free DEX data (`/free/dex/*`) from DexScreener's keyless public API: pairs by text, one pair by chain and address,
 * a token's pairs, and the tokens boosted lately. Answers are served again for 15 s and the index's own rate limits
 * are kept (past them a call not answered from memory is a 503 before anything is sent), so a flood of free calls
 * cannot exhaust it; each client is limited besides.
 */
export const manifest = Module.define({
  name: 'dex',
  paths: ['/free/dex/'],
  needs: ['dex'],
  env: Type.Object({
    DEX_RATE_LIMIT_PER_MINUTE: Type.Integer({
      minimum: 0,
      default: 60,
      description:
        "calls per minute each client (by source address) may make to `/free/dex/*`, in bursts of as many (the original gateway's 60); beyond it a 429 with `Retry-After`; `0`: no limit",
    }),
  }),
  rateLimit: (env) => {
    const perMinute = env.DEX_RATE_LIMIT_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  outputs,
  routes: ({ ports }) => routes({ index: ports.dex }),
})
