import { Type } from '@sinclair/typebox'
import { solanaRpc, defaultUrl as solanaRpcUrl } from '../../adapters/solana/rpc.js'
import { define } from './shared.js'

/** Token mints on a Solana node: the decimals the aggregator's quotes format their amounts with. */
export const solanaMints = define({
  port: 'solanaMints',
  description: 'a Solana JSON-RPC node (SOLANA_RPC_URL)',
  env: Type.Object({
    SOLANA_RPC_URL: Type.String({
      secret: true,
      pattern: '^https?://',
      default: solanaRpcUrl,
      description:
        "Solana JSON-RPC node the aggregator quote reads each mint's decimals from (`getTokenSupply`), for the formatted amounts beside the raw ones; a provider's URL may carry its key",
    }),
  }),
  build: ({ env }) => solanaRpc({ url: env.SOLANA_RPC_URL }),
})
