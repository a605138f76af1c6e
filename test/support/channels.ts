import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { channelAuthorizerIndex, channelChain } from '../../adapters/chain/channel.js'
import { account } from '../../adapters/chain/devnet.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import { silent } from '../../app/log.js'
import { channels } from '../../app/payment/channel.js'
import type { paidGateway } from './paid.js'

/**
 * A second gateway's channel side, as another process builds it: its own relayer (devnet account `relayerIndex`), its
 * own connection to the gateway's store file in `dataDir` (SQLite, `BEGIN IMMEDIATE` across connections as across
 * processes), the same chain and receiver authorizer.
 */
export function otherProcessChannels(parameters: {
  gateway: Awaited<ReturnType<typeof paidGateway>>
  dataDir: string
  relayerIndex: number
  reservationMs?: number
}) {
  const { gateway, dataDir, relayerIndex, reservationMs } = parameters
  const store = sqlite({ path: join(dataDir, 'store.sqlite') })
  const side = channels({
    terms: gateway.terms,
    store,
    logger: silent(),
    ...(reservationMs === undefined ? {} : { reservationMs }),
    chain: channelChain({
      client: gateway.devnet.publicClient as never,
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
      relayer: privateKeyToAccount(account({ index: relayerIndex }).privateKey),
      authorizer: privateKeyToAccount(account({ index: channelAuthorizerIndex }).privateKey),
      token: gateway.terms.asset.address,
      receiver: gateway.terms.payTo,
    }),
  })
  return { channels: side, store }
}
