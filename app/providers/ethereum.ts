import { mainnet } from 'viem/chains'
import { define } from './shared.js'

/** Ethereum mainnet's node at CHAIN_RPC_ETHEREUM, with the chain-data reads' time limit. */
export const ethereum = define({
  port: 'ethereum',
  description: 'an Ethereum node (CHAIN_RPC_ETHEREUM)',
  build: ({ shared, ports }) =>
    ports.evm?.({ name: 'ethereum', chainId: mainnet.id, url: shared.config.ethereumRpcUrl }),
})
