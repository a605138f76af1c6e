import { type TString, Type } from '@sinclair/typebox'
import { arbitrum, avalanche, base, bsc, mainnet, optimism, polygon } from 'viem/chains'
import { blockscout } from '../../adapters/holdings/blockscout.js'
import { node } from '../../adapters/holdings/node.js'
import * as EvmChain from '../../core/EvmChain.js'
import type * as Holdings from '../../core/Holdings.js'
import * as TokenList from '../../core/TokenList.js'
import { history } from './history.js'
import { define } from './shared.js'

/** A Blockscout instance of `chain` for the portfolio endpoints, on its public instance unless set (when it has one). */
const urlOf = (chain: string, publicUrl?: string): TString =>
  publicUrl === undefined
    ? Type.String({
        minLength: 1,
        pattern: '^https?://',
        description: `Blockscout instance (REST API v2) the portfolio endpoints read ${chain} from; unset, ${chain} is not served (no public instance)`,
      })
    : Type.String({
        minLength: 1,
        pattern: '^https?://',
        default: publicUrl,
        description: `Blockscout instance (REST API v2) the portfolio endpoints read ${chain} from`,
      })

const holdingsEnv = Type.Object({
  // Base's Blockscout is the history provider's variable: one schema in both slices.
  BLOCKSCOUT_URL_BASE: history.env!.properties.BLOCKSCOUT_URL_BASE,
  BLOCKSCOUT_URL_ETHEREUM: urlOf('ethereum', 'https://eth.blockscout.com'),
  BLOCKSCOUT_URL_ARBITRUM: urlOf('arbitrum', 'https://arbitrum.blockscout.com'),
  BLOCKSCOUT_URL_OPTIMISM: urlOf('optimism', 'https://optimism.blockscout.com'),
  BLOCKSCOUT_URL_POLYGON: urlOf('polygon', 'https://polygon.blockscout.com'),
  BLOCKSCOUT_URL_BSC: Type.Optional(urlOf('bsc')),
  BLOCKSCOUT_URL_AVALANCHE: Type.Optional(urlOf('avalanche')),
})

/**
 * What an address holds on each chain of the registry (core/EvmChain.ts): `base` from the devnet's own node when the
 * gateway settles on one (its logs and a Multicall3 read), else from Base's Blockscout; every other chain from its
 * public Blockscout instance (BLOCKSCOUT_URL_<CHAIN>). BSC and Avalanche have no public instance: served once set.
 */
export const holdings = define({
  port: 'holdings',
  description: 'a holdings index (the devnet node, or Blockscout: BLOCKSCOUT_URL_<CHAIN>)',
  env: holdingsEnv,
  build: ({ env, shared: { settlement } }): Holdings.Holdings => {
    const urls: Record<EvmChain.Name, string | undefined> = {
      base: env.BLOCKSCOUT_URL_BASE,
      ethereum: env.BLOCKSCOUT_URL_ETHEREUM,
      arbitrum: env.BLOCKSCOUT_URL_ARBITRUM,
      optimism: env.BLOCKSCOUT_URL_OPTIMISM,
      polygon: env.BLOCKSCOUT_URL_POLYGON,
      bsc: env.BLOCKSCOUT_URL_BSC,
      avalanche: env.BLOCKSCOUT_URL_AVALANCHE,
    }
    const chains = [base, mainnet, arbitrum, optimism, polygon, bsc, avalanche]
    return EvmChain.registry.flatMap(({ name, chainId }): Holdings.Network[] => {
      if (name === 'base' && settlement.isDevnet)
        return [
          node({
            client: settlement.client,
            chain: name,
            chainId: settlement.chain.id,
            native: settlement.chain.nativeCurrency,
            tokens: TokenList.of(name, settlement.chain.id),
          }),
        ]
      const url = urls[name]
      const native = chains.find((chain) => chain.id === chainId)!.nativeCurrency
      return url === undefined ? [] : [blockscout({ url, chain: name, chainId, native })]
    })
  },
})
