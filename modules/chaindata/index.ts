import { Type } from '@sinclair/typebox'
import * as EvmChain from '../../core/EvmChain.js'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The chain-data module, mounted by the gateway. */
export function chaindata(deps: Service.Deps) {
  return routes(deps)
}

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
  env: Type.Object(EvmChain.rpcVariables),
  routes: ({ ports, env }) =>
    chaindata(
      Service.from({
        settlement: ports.chains[0]!,
        ethereum: ports.ethereum,
        connect: ports.evm,
        oracle: ports.oracle,
        batchContract: ports.batch?.base.address,
        urls: EvmChain.urlsOf(env),
      }),
    ),
})
