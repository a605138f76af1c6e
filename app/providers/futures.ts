import { Type } from '@sinclair/typebox'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { account } from '../../adapters/chain/devnet.js'
import { futuresOperatorIndex, futuresTreasury } from '../../adapters/chain/futures.js'
import { define } from './shared.js'

/**
 * The compute-futures treasury on the settlement chain: deposits to FUTURES_DEPOSIT_ADDRESS (or the operator's
 * address), refunds from FUTURES_OPERATOR_PRIVATE_KEY; on a devnet the account at mnemonic index
 * {@link futuresOperatorIndex}, funded at genesis, is both. None off a devnet without either.
 */
export const futures = define({
  port: 'futures',
  description:
    'a compute-futures operator (FUTURES_DEPOSIT_ADDRESS or FUTURES_OPERATOR_PRIVATE_KEY; the devnet funds one)',
  env: Type.Object({
    FUTURES_OPERATOR_PRIVATE_KEY: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{64}$',
        defaultText: 'none (on a devnet, the funded mnemonic account #17)',
        description:
          'Key of the compute-futures operator wallet that sends refunds in USDC; needs ETH for gas and the deposited USDC. Without it refunds answer 503',
        secret: true,
      }),
    ),
    FUTURES_DEPOSIT_ADDRESS: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{40}$',
        defaultText: "the operator key's address",
        description:
          'Where depositors send USDC on the settlement chain. Without it and without an operator key (and off a devnet) the compute-futures ledger answers 503',
      }),
    ),
  }),
  build: ({ env, shared: { settlement } }) => {
    const key = env.FUTURES_OPERATOR_PRIVATE_KEY as Hex | undefined
    const operator = key
      ? privateKeyToAccount(key)
      : settlement.isDevnet
        ? privateKeyToAccount(account({ index: futuresOperatorIndex }).privateKey)
        : undefined
    const depositAddress = (env.FUTURES_DEPOSIT_ADDRESS as Address | undefined) ?? operator?.address
    if (!depositAddress) return undefined
    return futuresTreasury({
      client: settlement.client,
      chainId: settlement.chain.id,
      token: settlement.terms.asset.address,
      depositAddress,
      operator: operator && { account: operator, chain: settlement.chain, transport: settlement.transport },
    })
  },
})
