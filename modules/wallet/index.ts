import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The wallet module, mounted by the gateway. */
export function wallet(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Custodial wallets through a server-wallet vendor (`/api/v1/wallet/*`): the vendor holds the keys, the gateway holds
 * none; each wallet is its creator's alone. Unavailable (503 before payment) until the vendor is configured.
 */
export const manifest = Module.define({
  name: 'wallet',
  paths: ['/api/v1/wallet/'],
  needs: ['store', 'custodian', 'broadcaster', 'chains'],
  env: Type.Object({
    WALLET_MAX_PER_OWNER: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 25,
      description: 'Most custodial wallets one owner may create (each is an account at the vendor)',
    }),
    WALLET_CREATE_PER_MINUTE: Type.Integer({
      minimum: 0,
      default: 10,
      description: 'Free `wallet/create` calls per client per minute (0: no limit)',
    }),
  }),
  rateLimit: (env) => {
    const perMinute = env.WALLET_CREATE_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  routes: ({ ports, env }) =>
    wallet({
      store: ports.store,
      custodian: ports.custodian,
      broadcaster: ports.broadcaster,
      endpoint: ports.chains.find((chain) => chain.chainId === ports.broadcaster.chainId)!,
      maxPerOwner: env.WALLET_MAX_PER_OWNER,
      now: () => new Date(),
    }),
  ready: ({ ports }) => Module.reasonOf(ports.custodian.available()),
})
