import { escrowChain } from '../../adapters/chain/escrow.js'
import { define } from './shared.js'

/** Our escrow contract on the settlement chain: a devnet of ours has one; Base has none of ours. */
export const escrow = define({
  port: 'escrow',
  description: 'an escrow contract',
  build: ({ shared: { settlement } }) =>
    settlement.escrow
      ? escrowChain({ client: settlement.client, address: settlement.escrow, chainId: settlement.chain.id })
      : undefined,
})
