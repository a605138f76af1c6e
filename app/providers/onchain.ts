import { transfers } from '../../adapters/chain/transfers.js'
import { define } from './shared.js'

/** The settlement chain's ERC-20 transfers and the tokens invoices and escrows may be in (its USDC). */
export const onchain = define({
  port: 'onchain',
  description: 'a chain',
  build: ({ shared: { settlement } }) => ({
    chainId: settlement.chain.id,
    transfers: transfers({ client: settlement.client }),
    tokens: [{ symbol: 'USDC', address: settlement.terms.asset.address, decimals: settlement.terms.asset.decimals }],
  }),
})
