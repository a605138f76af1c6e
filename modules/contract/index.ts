import { Type } from '@sinclair/typebox'
import * as EvmChain from '../../core/EvmChain.js'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The contract module, mounted by the gateway. */
export function contract(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Any EVM contract's functions on the registry's chains (`/api/v1/contract/*`), given a signature or an ABI (else the
 * verified ABI from Sourcify or Blockscout): reads, and writes as unsigned transactions or through the payer's
 * custodial wallet when a server-wallet vendor is configured. No private key is ever taken.
 */
export const manifest = Module.define({
  name: 'contract',
  paths: ['/api/v1/contract/'],
  needs: ['chains', 'evm', 'ethereum'],
  uses: ['contractSources', 'store', 'custodian', 'broadcaster'],
  env: Type.Object(EvmChain.rpcVariables),
  routes: ({ ports, env }) =>
    contract({
      nodes: EvmChain.nodes({
        settlement: ports.chains[0]!,
        ethereum: ports.ethereum,
        connect: ports.evm,
        urls: EvmChain.urlsOf(env),
      }),
      sources: ports.contractSources ?? [],
      wallets:
        ports.store && ports.custodian && ports.broadcaster
          ? { store: ports.store, custodian: ports.custodian, broadcaster: ports.broadcaster }
          : undefined,
    }),
})
