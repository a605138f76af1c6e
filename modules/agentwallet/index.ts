import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The agent-wallet module, mounted by the gateway. */
export function agentWallet(deps: Deps) {
  return routes(deps)
}

/** Non-custodial ERC-4337 agent wallets (`/api/v1/agent-wallet/*`) owned by the paying wallet. */
export const manifest = Module.define({
  name: 'agent-wallet',
  paths: ['/api/v1/agent-wallet/'],
  needs: ['agentWallet'],
  routes: ({ ports }) => agentWallet({ chain: ports.agentWallet }),
})
