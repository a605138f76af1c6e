import { Type } from '@sinclair/typebox'
import { createPublicClient, http, type PublicClient } from 'viem'
import { batchChain } from '../../adapters/chain/batch.js'
import { ConfigError } from '../../core/Errors.js'
import { define } from './shared.js'

/** EIP-155 chain id of peaq. */
const peaqChainId = 3338

/** The batch-payment contract on each accepted chain: the settlement chain's, and peaq's once its three variables are set. */
export const batch = define({
  port: 'batch',
  description: 'a batch contract',
  env: Type.Object({
    PEAQ_RPC_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: 'none: `chain=peaq` refused',
        description:
          "peaq JSON-RPC for batches; with `PEAQ_BATCH_CONTRACT` and `PEAQ_USDC` (all three or none); peaq is accepted only while its contract's code hash equals Base's",
      }),
    ),
    PEAQ_BATCH_CONTRACT: Type.Optional(
      Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'the batch contract on peaq' }),
    ),
    PEAQ_USDC: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDC on peaq' })),
  }),
  assert: ({ PEAQ_RPC_URL, PEAQ_BATCH_CONTRACT, PEAQ_USDC }) => {
    const set = [PEAQ_RPC_URL, PEAQ_BATCH_CONTRACT, PEAQ_USDC].filter((value) => value !== undefined).length
    if (set !== 0 && set !== 3)
      throw new ConfigError('PEAQ_RPC_URL, PEAQ_BATCH_CONTRACT and PEAQ_USDC go together: set all three or none.')
  },
  build: ({ env, shared }) => {
    const { PEAQ_RPC_URL: rpcUrl, PEAQ_BATCH_CONTRACT: address, PEAQ_USDC: usdc } = env
    if (!rpcUrl || !address || !usdc) return { base: shared.settlement.batch }
    const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) }) as PublicClient
    return {
      base: shared.settlement.batch,
      peaq: batchChain({
        client,
        address: address as `0x${string}`,
        chainId: peaqChainId,
        tokens: { USDC: usdc as `0x${string}` },
      }),
    }
  },
})
