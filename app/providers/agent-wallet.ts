import { privateKeyToAccount } from 'viem/accounts'
import { agentWalletChain } from '../../adapters/chain/agentWallet.js'
import { account, contracts } from '../../adapters/chain/devnet.js'
import { walletDeployerIndex } from '../../adapters/chain/wallet.js'
import { define } from './shared.js'

/**
 * Our ERC-4337 agent-wallet contracts on a devnet of ours: its EntryPoint v0.7 and AgentAccountFactory, with the wallet
 * deployer (funded at genesis) relaying. Base has the canonical EntryPoint (0x0000000071727De22E5E9d8BAf0edAc6f37da032)
 * but not our factory, so there the port is absent and the agent-wallet module unavailable.
 */
export const agentWallet = define({
  port: 'agentWallet',
  description: 'the agent-wallet contracts (EntryPoint v0.7 and our AgentAccountFactory; the devnet has them)',
  build: ({ shared: { settlement } }) => {
    if (!settlement.isDevnet) return undefined
    const { entryPoint, accountFactory } = contracts().wallet
    return agentWalletChain({
      client: settlement.client,
      chainId: settlement.chain.id,
      entryPoint,
      factory: accountFactory,
      relayer: privateKeyToAccount(account({ index: walletDeployerIndex }).privateKey),
      chain: settlement.chain,
      transport: settlement.transport,
      tokens: [{ symbol: 'USDC', address: settlement.terms.asset.address, decimals: settlement.terms.asset.decimals }],
    })
  },
})
