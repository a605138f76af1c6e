import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The agent-card module, mounted by the gateway. */
export function agentcard(deps: Deps) {
  return routes(deps)
}

/**
 * ERC-8004 agent cards (`/free/agent-card`): an agent's owner, agentURI and registration file, checked against the
 * registration shape, from the Identity Registry of the settlement chain: the canonical one on Base, ours on the
 * devnet. Registration files are fetched through the outbound guard.
 */
export const manifest = Module.define({
  name: 'agentcard',
  paths: ['/free/agent-card'],
  needs: ['chains', 'outbound'],
  env: Type.Object({
    IPFS_GATEWAY_URL: Type.String({
      minLength: 1,
      default: 'https://ipfs.io',
      description:
        'IPFS HTTP gateway that `ipfs://` agentURIs are fetched through (path-style, `<gateway>/ipfs/<cid>/<path>`), itself through the outbound guard',
    }),
  }),
  routes: ({ ports, env }) =>
    agentcard({ chain: ports.chains[0]!, outbound: ports.outbound, ipfsGateway: env.IPFS_GATEWAY_URL }),
})
