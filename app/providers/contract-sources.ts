import { Type } from '@sinclair/typebox'
import { base } from 'viem/chains'
import { blockscoutSource } from '../../adapters/source/blockscout.js'
import { sourcify } from '../../adapters/source/sourcify.js'
import * as ContractSource from '../../core/ContractSource.js'
import { define } from './shared.js'

/**
 * Where verified contract source is read: Sourcify, then on Base its Blockscout explorer. None on a devnet: no
 * verification service indexes it, and one answering for a public chain with the same id would describe another
 * contract.
 */
export const contractSources = define({
  port: 'contractSources',
  description: 'a contract verification service (Sourcify, Blockscout)',
  env: Type.Object({
    INFERENCE_SOURCIFY_URL: Type.String({
      minLength: 1,
      default: 'https://sourcify.dev/server',
      description:
        'Sourcify server asked first for verified contract source (not on a devnet, which it does not index)',
    }),
    INFERENCE_BLOCKSCOUT_URL: ContractSource.blockscoutUrlVariable,
  }),
  build: ({ env, shared: { settlement } }) => {
    if (settlement.isDevnet) return undefined
    return [
      sourcify({ baseUrl: env.INFERENCE_SOURCIFY_URL }),
      ...(settlement.chain.id === base.id
        ? [blockscoutSource({ chainId: base.id, baseUrl: env.INFERENCE_BLOCKSCOUT_URL })]
        : []),
    ]
  },
})
