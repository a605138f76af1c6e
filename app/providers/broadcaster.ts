import { node } from '../../adapters/broadcaster/node.js'
import { define } from './shared.js'

/** Sends the transactions custodial wallets signed to the settlement chain's node, through its client. */
export const broadcaster = define({
  port: 'broadcaster',
  description: "the settlement chain's node (eth_sendRawTransaction)",
  build: ({ shared: { settlement } }) =>
    node({ chainId: settlement.chain.id, request: (request) => settlement.client.request(request) }),
})
