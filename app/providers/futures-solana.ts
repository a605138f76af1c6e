import { Type } from '@sinclair/typebox'
import { solanaFuturesTreasury } from '../../adapters/solana/futures.js'
import { define } from './shared.js'

/**
 * The compute-futures treasury on Solana: deposits to the associated token account of FUTURES_SOLANA_DEPOSIT_ADDRESS
 * (or of the operator key's address) on FUTURES_SOLANA_RPC_URL's network, refunds from
 * FUTURES_SOLANA_OPERATOR_SECRET_KEY. None without the node or a deposit address.
 */
export const futuresSolana = define({
  port: 'futuresSolana',
  description: 'a Solana compute-futures operator (FUTURES_SOLANA_RPC_URL and FUTURES_SOLANA_DEPOSIT_ADDRESS)',
  env: Type.Object({
    FUTURES_SOLANA_RPC_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: 'none: Solana deposits answer 503',
        description:
          'JSON-RPC node of the Solana network compute-futures deposits are read on and refunded on; may carry a key. Without it (or without a Solana deposit address) `chain: "solana"` deposits answer 503',
      }),
    ),
    FUTURES_SOLANA_DEPOSIT_ADDRESS: Type.Optional(
      Type.String({
        pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
        defaultText: "the Solana operator key's address",
        description:
          'Owner (base58) of the token account Solana deposits go to: its associated token account for FUTURES_SOLANA_MINT',
      }),
    ),
    FUTURES_SOLANA_OPERATOR_SECRET_KEY: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^(\\[[0-9,\\s]+\\]|[1-9A-HJ-NP-Za-km-z]{80,90})$',
        defaultText: 'none',
        description:
          'Keypair (64 bytes: a `solana-keygen` JSON array, or base58) of the Solana wallet that refunds Solana deposits from its associated token account; needs SOL for fees and the deposited USDC. Without it refunds of Solana-funded accounts answer 503',
      }),
    ),
    FUTURES_SOLANA_MINT: Type.String({
      pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
      default: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      description: 'Mint (SPL Token) of Solana deposits and refunds (mainnet USDC by default)',
    }),
  }),
  build: async ({ env }) => {
    const { FUTURES_SOLANA_DEPOSIT_ADDRESS: depositAddress, FUTURES_SOLANA_OPERATOR_SECRET_KEY: secretKey } = env
    if (!env.FUTURES_SOLANA_RPC_URL || (!depositAddress && !secretKey)) return undefined
    return solanaFuturesTreasury({
      url: env.FUTURES_SOLANA_RPC_URL,
      mint: env.FUTURES_SOLANA_MINT,
      depositAddress,
      secretKey,
    })
  },
})
