import { Type } from '@sinclair/typebox'
import { privateKeyToAccount } from 'viem/accounts'
import { account } from '../../adapters/chain/devnet.js'
import { escrowArbiter as arbiter, arbiterIndex } from '../../adapters/chain/escrow.js'
import { define } from './shared.js'

/**
 * The gateway's escrow arbiter (robot tasks): ROBOTS_ARBITER_PRIVATE_KEY, or on a devnet the account at mnemonic index
 * {@link arbiterIndex}, funded at genesis; none without an escrow contract or a key.
 */
export const escrowArbiter = define({
  port: 'escrowArbiter',
  description:
    'an escrow arbiter key with ETH for gas (ROBOTS_ARBITER_PRIVATE_KEY; the devnet funds one) on our escrow contract',
  env: Type.Object({
    ROBOTS_ARBITER_PRIVATE_KEY: Type.Optional(
      Type.String({
        pattern: '^0x[0-9a-fA-F]{64}$',
        defaultText: 'none (on a devnet, the funded mnemonic account #19)',
        description:
          'Key of the escrow arbiter that releases robot-task escrows to operators and refunds requesters; needs ETH for gas. Without it (and off a devnet) the robots family answers 503',
        secret: true,
      }),
    ),
  }),
  build: ({ env, shared: { settlement } }) => {
    const key = env.ROBOTS_ARBITER_PRIVATE_KEY as `0x${string}` | undefined
    if (!settlement.escrow || (!key && !settlement.isDevnet)) return undefined
    return arbiter({
      client: settlement.client,
      address: settlement.escrow,
      account: privateKeyToAccount(key ?? account({ index: arbiterIndex }).privateKey),
      chain: settlement.chain,
      transport: settlement.transport,
    })
  },
})
