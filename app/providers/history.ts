import { Type } from '@sinclair/typebox'
import { base } from 'viem/chains'
import { blockscout } from '../../adapters/history/blockscout.js'
import { indexer } from '../../adapters/history/indexer.js'
import * as TokenList from '../../core/TokenList.js'
import { define } from './shared.js'

/** The settlement chain's history per address: our indexer of a devnet's blocks, Blockscout on Base; none elsewhere. */
export const history = define({
  port: 'history',
  description: 'a transaction history (the devnet indexer, or Blockscout on Base: BLOCKSCOUT_URL_BASE)',
  env: Type.Object({
    BLOCKSCOUT_URL_BASE: Type.String({
      minLength: 1,
      default: 'https://base.blockscout.com',
      description:
        'Blockscout instance (REST API v2) the analytics endpoints read when the gateway settles on Base; on a devnet they index its blocks themselves',
      secret: true,
    }),
  }),
  build: ({ env, shared: { settlement } }) => {
    if (settlement.isDevnet)
      return indexer({ client: settlement.client, tokens: TokenList.of('base', settlement.chain.id) })
    return settlement.chain.id === base.id ? blockscout({ url: env.BLOCKSCOUT_URL_BASE }) : undefined
  },
})
