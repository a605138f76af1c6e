import { feedOracle } from '../../adapters/chain/oracle.js'
import { define } from './shared.js'

/** One USD price source over the token and fiat feeds, as many of them as there are. */
export const oracle = define({
  port: 'oracle',
  description: 'a price source',
  build: ({ ports: { prices, fx } }) =>
    prices || fx ? feedOracle({ feeds: [prices, fx].filter((set) => set !== undefined) }) : undefined,
})
