import type * as Module from '../core/Module.js'
import type { AnyProvider } from '../core/Provider.js'
import * as agentcard from '../modules/agentcard/index.js'
import * as agentWallet from '../modules/agentwallet/index.js'
import * as ai from '../modules/ai/index.js'
import * as analytics from '../modules/analytics/index.js'
import * as audit from '../modules/audit/index.js'
import * as auth from '../modules/auth/index.js'
import * as batch from '../modules/batch/index.js'
import * as bridge from '../modules/bridge/index.js'
import * as chaindata from '../modules/chaindata/index.js'
import * as compute from '../modules/compute/index.js'
import * as cron from '../modules/cron/index.js'
import * as escrow from '../modules/escrow/index.js'
import * as free from '../modules/free/index.js'
import * as futures from '../modules/futures/index.js'
import * as fx from '../modules/fx/index.js'
import * as gpu from '../modules/gpu/index.js'
import * as inference from '../modules/inference/index.js'
import * as invoice from '../modules/invoice/index.js'
import * as kyc from '../modules/kyc/index.js'
import * as logs from '../modules/logs/index.js'
import * as msg from '../modules/msg/index.js'
import * as notify from '../modules/notify/index.js'
import * as payroll from '../modules/payroll/index.js'
import * as prices from '../modules/prices/index.js'
import * as probe from '../modules/probe/index.js'
import * as research from '../modules/research/index.js'
import * as resolve from '../modules/resolve/index.js'
import * as robots from '../modules/robots/index.js'
import * as rpc from '../modules/rpc/index.js'
import * as safety from '../modules/safety/index.js'
import * as sctp from '../modules/sctp/index.js'
import * as search from '../modules/search/index.js'
import * as solana from '../modules/solana/index.js'
import * as stellar from '../modules/stellar/index.js'
import * as storage from '../modules/storage/index.js'
import * as swap from '../modules/swap/index.js'
import * as tax from '../modules/tax/index.js'
import * as trust from '../modules/trust/index.js'
import * as txdecode from '../modules/txdecode/index.js'
import * as webhooks from '../modules/webhooks/index.js'
import * as xrp from '../modules/xrp/index.js'

export type { Onchain, Token } from '../core/Module.js'

/** Every endpoint family of the gateway, mounted in this order. Adding a family is one folder and one line here. */
export const families: readonly Module.AnyModule[] = [
  free.manifest,
  ai.manifest,
  ai.decentralizedManifest,
  rpc.manifest,
  chaindata.manifest,
  prices.manifest,
  fx.manifest,
  auth.manifest,
  audit.manifest,
  logs.manifest,
  invoice.manifest,
  escrow.manifest,
  robots.manifest,
  agentWallet.manifest,
  kyc.manifest,
  batch.manifest,
  sctp.manifest,
  payroll.manifest,
  stellar.manifest,
  xrp.manifest,
  txdecode.manifest,
  analytics.manifest,
  resolve.manifest,
  bridge.manifest,
  solana.swapManifest,
  solana.assetsManifest,
  solana.pricesManifest,
  swap.manifest,
  probe.manifest,
  agentcard.manifest,
  safety.manifest,
  trust.manifest,
  storage.manifest,
  tax.manifest,
  search.webManifest,
  search.extractManifest,
  search.qnaManifest,
  research.manifest,
  webhooks.manifest,
  cron.manifest,
  notify.emailManifest,
  notify.smsManifest,
  notify.statusManifest,
  msg.manifest,
  futures.manifest,
  futures.pricingManifest,
  inference.manifest,
  compute.manifest,
  gpu.manifest,
]

/** What each port is, as a sentence names it when a module cannot run for want of it. */
export const portNames: Record<Module.Port, string> = {
  store: 'a store',
  queue: "a durable queue (the store's database)",
  events: 'an events outbox',
  onchain: 'a chain',
  escrow: 'an escrow contract',
  escrowArbiter:
    'an escrow arbiter key with ETH for gas (ROBOTS_ARBITER_PRIVATE_KEY; the devnet funds one) on our escrow contract',
  chains: 'a chain',
  evm: 'an EVM JSON-RPC client',
  ethereum: 'an Ethereum node (CHAIN_RPC_ETHEREUM)',
  names: 'a name service (ENS on Ethereum when settling on Base, our own on a devnet)',
  oracle: 'a price source',
  prices: 'price feeds',
  fx: 'fiat price feeds',
  fxReference: 'a reference-rate source (FX_REFERENCE_URL)',
  batch: 'a batch contract',
  agentWallet: 'the agent-wallet contracts (EntryPoint v0.7 and our AgentAccountFactory; the devnet has them)',
  stellar: 'a Horizon server (HORIZON_URL)',
  xrp: 'a rippled server (RIPPLED_URL)',
  solanaSwap: 'a swap aggregator (JUPITER_API_KEY, or JUPITER_URL of one that needs no key)',
  solanaMints: 'a Solana JSON-RPC node (SOLANA_RPC_URL)',
  solanaAssets: 'a DAS asset index (DAS_URL or HELIUS_API_KEY)',
  solanaPrices: 'a Pyth Hermes server (PYTH_API_KEY, or HERMES_URL of one that needs no key)',
  chat: 'an OpenAI-compatible upstream (CHAT_UPSTREAM_URL)',
  decentralized: 'an OpenAI-compatible upstream (DECENTRALIZED_UPSTREAM_URL)',
  aggregator: 'a swap aggregator (ZEROX_API_KEY)',
  intel: 'a security-intelligence source (GOPLUS_URL)',
  simulator: 'a token-trade simulator',
  outbound: 'an outbound guard',
  history: 'a transaction history (the devnet indexer, or Blockscout on Base: BLOCKSCOUT_URL_BASE)',
  bridges: 'bridge adapters',
  payments: 'a payment ledger',
  research: 'the research sources',
  webSearch: 'a web search API (TAVILY_API_KEY, BRAVE_API_KEY or EXA_API_KEY)',
  extractor: 'a page extractor',
  sessionSecret: 'a session secret',
  storage: 'a blockstore (the store)',
  historicalPrices: 'a historical price source (DEFILLAMA_COINS_URL or COINGECKO_API_KEY)',
  mailer: 'an SMTP relay (NOTIFY_SMTP_URL and NOTIFY_EMAIL_FROM)',
  texter: 'an SMS API (NOTIFY_TWILIO_ACCOUNT_SID, NOTIFY_TWILIO_AUTH_TOKEN and NOTIFY_SMS_FROM)',
  publicUrl: 'a public URL (PUBLIC_URL)',
  books: 'a store',
  contractSources: 'a contract verification service (Sourcify, Blockscout)',
  compute: 'a compute model catalog (COMPUTE_MODELS)',
  futures: 'a compute-futures operator (FUTURES_DEPOSIT_ADDRESS or FUTURES_OPERATOR_PRIVATE_KEY; the devnet funds one)',
  futuresSolana: 'a Solana compute-futures operator (FUTURES_SOLANA_RPC_URL and FUTURES_SOLANA_DEPOSIT_ADDRESS)',
  deferred: 'payments (deferred settlement of asynchronous jobs)',
  computeUpstream: 'an OpenAI-compatible compute upstream (COMPUTE_UPSTREAM_URL)',
  replicate: 'Replicate (REPLICATE_API_TOKEN)',
}

/**
 * Why `module` cannot run on `ports`, or `undefined` when every port it needs is present; a port a provider builds is
 * named by the provider's description.
 */
export function missingOf(
  module: Module.AnyModule,
  ports: Partial<Module.Ports>,
  providers: readonly AnyProvider[] = [],
): string | undefined {
  const needs = module.needs as readonly Module.Port[]
  if (needs.every((port) => ports[port] !== undefined)) return undefined
  const described = new Map(providers.map((provider) => [provider.port, provider.description]))
  const names = [...new Set(needs.map((port) => described.get(port) ?? portNames[port]))]
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  return `needs ${listed} and none is configured`
}
