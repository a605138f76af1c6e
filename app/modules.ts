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
import * as contract from '../modules/contract/index.js'
import * as cron from '../modules/cron/index.js'
import * as dex from '../modules/dex/index.js'
import * as escrow from '../modules/escrow/index.js'
import * as free from '../modules/free/index.js'
import * as freeChat from '../modules/freechat/index.js'
import * as futures from '../modules/futures/index.js'
import * as fx from '../modules/fx/index.js'
import * as gpu from '../modules/gpu/index.js'
import * as gpuDirect from '../modules/gpudirect/index.js'
import * as images from '../modules/images/index.js'
import * as inference from '../modules/inference/index.js'
import * as invoice from '../modules/invoice/index.js'
import * as kyc from '../modules/kyc/index.js'
import * as logs from '../modules/logs/index.js'
import * as markets from '../modules/markets/index.js'
import * as msg from '../modules/msg/index.js'
import * as notify from '../modules/notify/index.js'
import * as payroll from '../modules/payroll/index.js'
import * as portfolio from '../modules/portfolio/index.js'
import * as prices from '../modules/prices/index.js'
import * as probe from '../modules/probe/index.js'
import * as research from '../modules/research/index.js'
import * as resolve from '../modules/resolve/index.js'
import * as robots from '../modules/robots/index.js'
import * as rpc from '../modules/rpc/index.js'
import * as safety from '../modules/safety/index.js'
import * as search from '../modules/search/index.js'
import * as solana from '../modules/solana/index.js'
import * as stellar from '../modules/stellar/index.js'
import * as stocks from '../modules/stocks/index.js'
import * as storage from '../modules/storage/index.js'
import * as supplyChain from '../modules/supplychain/index.js'
import * as swap from '../modules/swap/index.js'
import * as tax from '../modules/tax/index.js'
import * as trust from '../modules/trust/index.js'
import * as txdecode from '../modules/txdecode/index.js'
import * as wallet from '../modules/wallet/index.js'
import * as webhooks from '../modules/webhooks/index.js'
import * as xrp from '../modules/xrp/index.js'
import { providers as defaultProviders } from './providers.js'

export type { Onchain, Token } from '../core/Module.js'

/** Every endpoint family of the gateway, mounted in this order. Adding a family is one folder and one line here. */
export const families: readonly Module.AnyModule[] = [
  free.manifest,
  // dex: DexScreener's pairs and boosted tokens, free (`/free/dex/*`), served again for 15 s within its rate limits.
  dex.manifest,
  // The AI families, each for another buyer:
  // ai: OpenAI's chat completions and model list, relayed to CHAT_UPSTREAM_URL under the family's model and token limits.
  ai.manifest,
  // decentralized: the same OpenAI shapes plus embeddings and images, on a second upstream (DECENTRALIZED_UPSTREAM_URL).
  ai.decentralizedManifest,
  // free-chat: the operator's free models on the chat upstream, bounded per call, per client and per day (`/free/chat`).
  freeChat.manifest,
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
  // wallet: custodial wallets whose keys a server-wallet vendor holds (Phantom), each its creator's alone.
  wallet.manifest,
  kyc.manifest,
  batch.manifest,
  // sctp (the original's name): supply-chain payments, suppliers' invoices matched to purchase orders, paid in batches.
  supplyChain.manifest,
  payroll.manifest,
  stellar.manifest,
  xrp.manifest,
  txdecode.manifest,
  // contract: any contract's functions read, or written as unsigned transactions or through a custodial wallet.
  contract.manifest,
  analytics.manifest,
  portfolio.manifest,
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
  // markets: Polymarket's events, markets, order books and trades, keyless.
  markets.manifest,
  // stocks: quotes, search, candles and company profiles from Finnhub once keyed, Yahoo Finance's keyless ones before.
  stocks.manifest,
  webhooks.manifest,
  cron.manifest,
  notify.emailManifest,
  notify.smsManifest,
  notify.statusManifest,
  msg.manifest,
  futures.manifest,
  futures.pricingManifest,
  // inference: analyses of the settlement chain's facts (an address, a transaction, a contract), answered by the chat
  // upstream as validated JSON beside the facts it read.
  inference.manifest,
  // compute: jobs on the operator's own model catalog (COMPUTE_MODELS), priced per model, on its own upstream and
  // Replicate.
  compute.manifest,
  // gpu: runs of pinned Replicate models, paid when the run succeeds.
  gpu.manifest,
  // images: the original gateway's image models, DALL-E and GPT Image at once, FLUX and SDXL paid when they succeed.
  images.manifest,
  // gpu-direct: runs on operators' own GPUs, registered by wallet signature, each paying the operator a recorded share.
  gpuDirect.manifest,
]

/**
 * What each of the gateway's own ports is (boot builds them from its storage and settings; a provider's port is named
 * by its description), as a sentence names it when a module cannot run for want of it.
 */
const ownPortNames: Readonly<Partial<Record<Module.Port, string>>> = {
  store: 'a store',
  queue: "a durable queue (the store's database)",
  events: 'an events outbox',
  payments: 'a payment ledger',
  sessionSecret: 'a session secret',
  publicUrl: 'a public URL (PUBLIC_URL)',
  deferred: 'payments (deferred settlement of asynchronous jobs)',
}

/**
 * Why `module` cannot run on `ports`, or `undefined` when every port it needs is present; a port a provider builds is
 * named by the provider's description.
 */
export function missingOf(
  module: Module.AnyModule,
  ports: Partial<Module.Ports>,
  providers: readonly AnyProvider[] = defaultProviders,
): string | undefined {
  const needs = module.needs as readonly Module.Port[]
  if (needs.every((port) => ports[port] !== undefined)) return undefined
  const described = new Map(providers.map((provider) => [provider.port, provider.description]))
  const names = [...new Set(needs.map((port) => ownPortNames[port] ?? described.get(port) ?? `the ${port} port`))]
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  return `needs ${listed} and none is configured`
}
