import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { contractVerifier } from './service.js'

/**
 * Wallet messages (`/api/v1/msg/*`), end to end encrypted: a wallet registers a messaging public key by signing it
 * (free, outside the catalog; a smart wallet's signature is checked on the settlement chain when the gateway reads
 * it), senders encrypt to it on their side (`Messaging.encrypt` in core), and the gateway stores and relays only the
 * envelopes, from the verified payer to the recipient's inbox, which only its owner reads.
 */
export const manifest = Module.define({
  name: 'msg',
  paths: ['/api/v1/msg/'],
  needs: ['store', 'onchain'],
  uses: ['chains'],
  extraRoutes: ['POST /api/v1/msg/keys', 'GET /api/v1/msg/keys/:address'],
  // The owner of an inbox (the address it is for) re-reads it by signing in.
  reaccess: {
    'GET /api/v1/msg/inbox': {
      owners: async ({ query }) => (typeof query.address === 'string' ? [query.address] : []),
    },
  },
  env: Type.Object({
    MSG_KEYS_RATE_LIMIT_PER_MINUTE: Type.Integer({
      minimum: 0,
      default: 30,
      description:
        'calls per minute each client may make to the free messaging-key routes (`POST /api/v1/msg/keys`, `GET /api/v1/msg/keys/:address`); `0` for no limit',
    }),
  }),
  rateLimit: (env) => {
    const perMinute = env.MSG_KEYS_RATE_LIMIT_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  routes: ({ ports }) => {
    const { chainId } = ports.onchain
    const settlement = ports.chains?.find((endpoint) => endpoint.chainId === chainId)
    return routes({ store: ports.store, chainId, verifyContract: settlement && contractVerifier(settlement) })
  },
})
