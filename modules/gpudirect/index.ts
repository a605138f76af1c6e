import { Type } from '@sinclair/typebox'
import * as Catalog from '../../core/Catalog.js'
import * as Module from '../../core/Module.js'
import * as Price from '../../core/Price.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'
import * as Service from './service.js'

const env = Type.Object({
  GPU_DIRECT_OPERATOR_SHARE_BPS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 10_000,
    description:
      "the operator's share of each paid GPU direct run, in basis points of its price, recorded for payout to the operator's wallet; the gateway keeps the rest (the original gateway routed the whole price to the operator)",
  }),
  GPU_DIRECT_RUN_TIMEOUT_SECONDS: Type.Integer({
    minimum: 5,
    maximum: 240,
    default: 120,
    description:
      "longest a GPU direct run may take at the operator's proxy before it fails with a 504, nothing charged (the original's 120 s); at most 240 so it ends within the 300 s payment window",
  }),
  GPU_DIRECT_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 30,
    description:
      'calls per minute each client may make to the free GPU direct endpoints (register, operators, quote); `0` for no limit',
  }),
})

/** The price of a run: the catalog's. */
const runPrice = Price.quote({ price: Catalog.find('POST', '/api/v1/gpu-direct/run')!.price })

/** The family's dependencies from its resources. */
function depsOf(resources: Module.Resources<'store' | 'outbound' | 'onchain', typeof env>): Service.Deps {
  const { ports, env } = resources
  return {
    store: ports.store,
    books: ports.store,
    outbound: ports.outbound,
    chainId: ports.onchain.chainId,
    price: runPrice,
    shareBps: BigInt(env.GPU_DIRECT_OPERATOR_SHARE_BPS),
    runTimeoutMs: env.GPU_DIRECT_RUN_TIMEOUT_SECONDS * 1000,
  }
}

/**
 * GPU direct (`/api/v1/gpu-direct/*`, the original gateway's "Spraay Direct"): operators register their own inference
 * proxy by a signature of their wallet; a paid run goes, through the outbound guard, to the fastest healthy operator
 * serving its model, and the operator's share is recorded for payout. A job checks every proxy's health each minute;
 * an operator that fails it gets no runs until it passes again. A failed run settles nothing.
 */
export const manifest = Module.define({
  name: 'gpu-direct',
  paths: ['/api/v1/gpu-direct/'],
  needs: ['store', 'outbound', 'onchain'],
  env,
  rateLimit: (env) => {
    const perMinute = env.GPU_DIRECT_RATE_LIMIT_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  outputs,
  routes: (resources) => routes(depsOf(resources)),
  jobs: [{ name: 'gpu-direct-health', run: (resources) => Service.checkHealth(depsOf(resources)) }],
})
