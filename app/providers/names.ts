import { createPublicClient, http, type PublicClient } from 'viem'
import { mainnet } from 'viem/chains'
import { contracts } from '../../adapters/chain/devnet.js'
import { ens } from '../../adapters/chain/ens.js'
import { define } from './shared.js'

/**
 * The name service: on a devnet ours (`contracts/NameService.sol`, at the addresses every devnet deploys to); off one
 * ENS, read from Ethereum at CHAIN_RPC_ETHEREUM through ENS's Universal Resolver (viem's `ensUniversalResolver`). A
 * devnet without our Universal Resolver (a journal of a devnet older than it) leaves the port absent (the name
 * endpoints answer 503), with a warning.
 */
export const names = define({
  port: 'names',
  description: 'a name service (ENS on Ethereum when settling on Base, our own on a devnet)',
  build: async ({ shared: { settlement, config, logger } }) => {
    if (!settlement.isDevnet) {
      const transport = http(config.ethereumRpcUrl, { retryCount: 0, timeout: 4_000 })
      const client = createPublicClient({ chain: mainnet, transport }) as PublicClient
      return ens({ client, chainId: mainnet.id, source: 'ens' })
    }
    const { universalResolver } = contracts().names
    const code = await settlement.client.getCode({ address: universalResolver }).catch(() => undefined)
    if (code === undefined || code === '0x') {
      logger.log('warn', 'name_service_unavailable', {
        reason: `The devnet has no Universal Resolver at ${universalResolver}: it was started before the name service was deployed; start a new devnet (move DATA_DIR/devnet.journal away) to resolve names.`,
      })
      return undefined
    }
    return ens({ client: settlement.client, chainId: settlement.chain.id, source: 'devnet', universalResolver })
  },
})
