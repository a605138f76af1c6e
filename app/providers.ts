import type { AnyProvider } from '../core/Provider.js'
import { agentWallet } from './providers/agent-wallet.js'
import { aggregator } from './providers/aggregator.js'
import { batch } from './providers/batch.js'
import { bridges } from './providers/bridges.js'
import { broadcaster } from './providers/broadcaster.js'
import { chains } from './providers/chains.js'
import { chat } from './providers/chat.js'
import { compute } from './providers/compute.js'
import { computeUpstream } from './providers/compute-upstream.js'
import { contractSources } from './providers/contract-sources.js'
import { custodian } from './providers/custodian.js'
import { decentralized } from './providers/decentralized.js'
import { dex } from './providers/dex.js'
import { escrow } from './providers/escrow.js'
import { escrowArbiter } from './providers/escrow-arbiter.js'
import { ethereum } from './providers/ethereum.js'
import { evm } from './providers/evm.js'
import { extractor } from './providers/extractor.js'
import { futures } from './providers/futures.js'
import { futuresSolana } from './providers/futures-solana.js'
import { fxReference } from './providers/fx-reference.js'
import { historicalPrices } from './providers/historical-prices.js'
import { history } from './providers/history.js'
import { holdings } from './providers/holdings.js'
import { images } from './providers/images.js'
import { intel } from './providers/intel.js'
import { mailer } from './providers/mailer.js'
import { names } from './providers/names.js'
import { onchain } from './providers/onchain.js'
import { oracle } from './providers/oracle.js'
import { outbound } from './providers/outbound.js'
import { predictionMarkets } from './providers/prediction-markets.js'
import { fx, prices } from './providers/price-feeds.js'
import { replicate } from './providers/replicate.js'
import { research } from './providers/research.js'
import { settlementChain } from './providers/settlement-chain.js'
import { simulator } from './providers/simulator.js'
import { solanaAssets } from './providers/solana-assets.js'
import { solanaMints } from './providers/solana-mints.js'
import { solanaPrices } from './providers/solana-prices.js'
import { solanaSwap } from './providers/solana-swap.js'
import { stellar } from './providers/stellar.js'
import { stocks } from './providers/stocks.js'
import { storage } from './providers/storage.js'
import { texter } from './providers/texter.js'
import { webSearch } from './providers/web-search.js'
import { xrp } from './providers/xrp.js'

export { type Shared, vendorHealth } from './providers/shared.js'

/**
 * Every port provider of the gateway, built in this order (a provider reads the ports built before it): boot builds
 * each port once from the provider's own env slice, unless the deployment passes that port itself. Adding a vendor is
 * one file under app/providers/ and one line here.
 */
export const providers: readonly AnyProvider[] = [
  // The guard of every request to a URL a caller gave, which the extractor fetches through.
  outbound,
  // The settlement chain's own reads and contracts.
  chains,
  evm,
  ethereum,
  onchain,
  settlementChain,
  escrow,
  escrowArbiter,
  batch,
  agentWallet,
  // broadcaster: sends what custodial wallets signed, once simulated and checked.
  broadcaster,
  history,
  holdings,
  names,
  simulator,
  // Price sources, each for another question:
  // prices: live USD prices of tokens, from the settlement chain's AggregatorV3 feeds.
  prices,
  // fx: live USD prices of fiat currencies, from the same chain's fiat feeds.
  fx,
  // oracle: one USD price source over those two, for the families that only need "what is X worth now".
  oracle,
  // fxReference: published reference exchange rates (the ECB's), the second opinion beside the fiat feeds.
  fxReference,
  // historicalPrices: a token's USD price at a past time (tax lots), from DefiLlama or CoinGecko.
  historicalPrices,
  // solanaPrices: Pyth's price feeds (Hermes), what the solana family's price endpoints relay, on any chain's assets.
  solanaPrices,
  // Other chains.
  stellar,
  xrp,
  solanaSwap,
  solanaMints,
  solanaAssets,
  futures,
  futuresSolana,
  // Vendors.
  chat,
  decentralized,
  computeUpstream,
  replicate,
  images,
  compute,
  aggregator,
  intel,
  dex,
  research,
  predictionMarkets,
  stocks,
  webSearch,
  extractor,
  contractSources,
  custodian,
  bridges,
  storage,
  mailer,
  texter,
]
