import { Type } from '@sinclair/typebox'
import * as EvmChain from '../../core/EvmChain.js'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The chain-data module, mounted by the gateway. */
export function chaindata(deps: Service.Deps) {
  return routes(deps)
}

const publicUrl = (name: EvmChain.Name) => EvmChain.find(name)!.publicUrl

/** An RPC URL variable of a chain other than `base`, on its public URL unless set. */
const urlOf = (name: EvmChain.Name) =>
  Type.String({
    minLength: 1,
    default: publicUrl(name),
    description: `JSON-RPC URL of ${EvmChain.find(name)!.title} for the chain-data endpoints (keyless public node unless set); may carry a provider key`,
    secret: true,
  })

/**
 * Gas, block height and liveness, and nonces on 7 EVM chains (`/free/gas`, `/free/chain-status`, `/free/nonce`,
 * `/api/v1/oracle/gas`); curated tokens and wallet balances on `base` and `ethereum` (`/api/v1/tokens`,
 * `/api/v1/balances`), read from the same nodes.
 */
export const manifest = Module.define({
  name: 'chaindata',
  paths: ['/free/gas', '/free/chain-status', '/free/nonce', '/api/v1/oracle/gas', '/api/v1/balances', '/api/v1/tokens'],
  needs: ['chains', 'evm', 'ethereum'],
  uses: ['oracle', 'batch'],
  env: Type.Object({
    CHAIN_RPC_BASE: Type.Optional(
      Type.String({
        minLength: 1,
        defaultText: 'the settlement chain',
        description:
          'JSON-RPC URL the chain-data endpoints read as `base`; unset, they read the chain the gateway settles on (the devnet on embedded defaults)',
        secret: true,
      }),
    ),
    CHAIN_RPC_ARBITRUM: urlOf('arbitrum'),
    CHAIN_RPC_POLYGON: urlOf('polygon'),
    CHAIN_RPC_OPTIMISM: urlOf('optimism'),
    CHAIN_RPC_AVALANCHE: urlOf('avalanche'),
    CHAIN_RPC_BSC: urlOf('bsc'),
  }),
  routes: ({ ports, env }) =>
    chaindata(
      Service.from({
        settlement: ports.chains[0]!,
        ethereum: ports.ethereum,
        connect: ports.evm,
        oracle: ports.oracle,
        batchContract: ports.batch?.base.address,
        urls: {
          base: env.CHAIN_RPC_BASE,
          arbitrum: env.CHAIN_RPC_ARBITRUM,
          polygon: env.CHAIN_RPC_POLYGON,
          optimism: env.CHAIN_RPC_OPTIMISM,
          avalanche: env.CHAIN_RPC_AVALANCHE,
          bsc: env.CHAIN_RPC_BSC,
        },
      }),
    ),
})
