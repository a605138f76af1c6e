import * as Module from '../../core/Module.js'
import { routes } from './routes.js'

/**
 * Wallet messages (`/api/v1/msg/*`), end to end encrypted: a wallet registers a messaging public key by signing it
 * (free, outside the catalog), senders encrypt to it on their side (`Messaging.encrypt` in core), and the gateway
 * stores and relays only the envelopes, from the verified payer to the recipient's inbox, which only its owner reads.
 */
export const manifest = Module.define({
  name: 'msg',
  paths: ['/api/v1/msg/'],
  needs: ['store', 'onchain'],
  extraRoutes: ['POST /api/v1/msg/keys', 'GET /api/v1/msg/keys/:address'],
  routes: ({ ports }) => routes({ store: ports.store, chainId: ports.onchain.chainId }),
})
