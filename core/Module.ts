import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { Address, Hash, Hex } from 'viem'
import type { AgentWalletChain } from './AgentWallet.js'
import type { Chains as BatchChains } from './BatchChain.js'
import type { Connect as ConnectBridges } from './Bridge.js'
import type { ChatUpstream, InferenceUpstream } from './Chat.js'
import type * as Compute from './Compute.js'
import type { Direct as ComputeDirect, Models as ComputeModels } from './Compute.js'
import type { Sources as ContractSources } from './ContractSource.js'
import type { Custodian } from './CustodialWallet.js'
import type * as Dex from './Dex.js'
import { ConfigError } from './Errors.js'
import type { EscrowArbiter, EscrowChain } from './EscrowChain.js'
import * as Events from './Events.js'
import type { SolanaTreasury as FuturesSolanaTreasury, Treasury as FuturesTreasury } from './Futures.js'
import type { FxReference } from './FxReference.js'
import type { HistoricalPrices } from './HistoricalPrice.js'
import type { History } from './History.js'
import type { Holdings } from './Holdings.js'
import type { Images } from './Image.js'
import type { Ledger, Payer as LedgerPayer } from './Ledger.js'
import type { Meters } from './Meter.js'
import type { NameService } from './NameService.js'
import type * as Notify from './Notify.js'
import type { Oracle } from './Oracle.js'
import type { Guard as OutboundGuard } from './Outbound.js'
import type * as PredictionMarket from './PredictionMarket.js'
import type * as Price from './Price.js'
import type { PriceFeeds } from './PriceFeeds.js'
import type * as Queue from './Queue.js'
import type * as RateLimit from './RateLimit.js'
import type * as Research from './Research.js'
import type { Broadcaster, Connect, Endpoint } from './Rpc.js'
import type * as Safety from './Safety.js'
import type * as Search from './Search.js'
import type * as Solana from './Solana.js'
import type { StellarNetwork } from './StellarNetwork.js'
import type { StockData } from './StockData.js'
import type { Providers as StorageProviders } from './Storage.js'
import type { Store } from './Store.js'
import type { SwapAggregator } from './SwapAggregator.js'
import type { Transfers } from './Transfers.js'
import type { Availability } from './Upstream.js'
import type { XrpNetwork } from './XrpNetwork.js'

/**
 * What an endpoint family is: the catalog paths it serves, the ports it needs by name, its own slice of the
 * environment, its background jobs and its readiness. The composition root builds every port once, parses every
 * module's environment into one configuration, and mounts each module from one list; a module whose port is absent
 * is not mounted and its paths answer 503 with the reason, before any payment. Nothing here knows a web framework:
 * `routes` returns whatever the gateway mounts (an Elysia plugin there).
 */

/** A token the stateful modules accept (invoices, escrows). */
export type Token = {
  /** Symbol, e.g. `USDC`. */
  symbol: string
  /** ERC-20 address. */
  address: Address
  /** Decimals. */
  decimals: number
}

/** What the settlement chain offers the stateful modules. */
export type Onchain = {
  /** EIP-155 chain id. */
  chainId: number
  /** Finds ERC-20 transfers (invoice payment detection). */
  transfers: Transfers
  /** Tokens invoices and escrows may be in. */
  tokens: readonly Token[]
}

/** A payment held by an asynchronous job: its ledger key and amount (atomic units), kept in the job's record. */
export type Held = {
  /** The verified payer. */
  payer: Address
  /** The authorization's nonce. */
  nonce: Hex
  /** The amount claimed, in atomic units. */
  amount: bigint
}

/** What settling a held payment came to. */
export type Settled =
  | {
      /** Settled on chain: the payer paid. */
      ok: true
      /** The settlement transaction. */
      transaction: Hash
      /** The receipt header of the payment's protocol (`PAYMENT-RESPONSE`, `X-PAYMENT-RESPONSE` or `Payment-Receipt`). */
      receipt: Record<string, string>
    }
  | {
      /** Not settled. */
      ok: false
      /** `pending`: sent, outcome unknown, ask again; `failed`: it never will be (nothing moved); `released`: released before. */
      reason: 'pending' | 'failed' | 'released'
      /** One sentence. */
      message: string
    }

/**
 * Payments settled when an asynchronous job ends, never when the call that started it answers: a handler hands its
 * call's payment to a job (`paid.defer`), answers 202, and the job's worker later settles it (the job succeeded)
 * or releases it (failed, canceled, timed out). Every ledger guarantee holds: one authorization is used once across
 * processes, and a payment is released only while it was never sent.
 */
export type Deferred = {
  /** Settles a held payment; idempotent: a settled one answers its transaction again. */
  settle: (held: Held) => Promise<Settled>
  /** Releases a held payment that was never sent; `false` when it is not (or no longer) held by a job. */
  release: (held: Held, reason: string) => Promise<boolean>
}

/**
 * The payment of one call, by where its outcome is recorded (JSON, amounts as decimal strings): an entry of the
 * payment ledger (an authorization, an `upto` permit, a Solana transaction), or a voucher on a payment channel.
 */
export type Holding =
  | {
      /** Recorded in the payment ledger. */
      type: 'ledger'
      /** Ledger key: the payer (an EVM address, or a Solana account CAIP-10 style)... */
      payer: LedgerPayer
      /** ...and the nonce. */
      nonce: Hex
    }
  | {
      /** A voucher on a payment channel, charged when the call is served. */
      type: 'channel'
      /** The channel's payer. */
      payer: Address
      /** The channel. */
      channelId: Hex
      /** The voucher's ceiling, in atomic units: the call is charged once the channel's charged amount reaches it. */
      ceiling: string
      /** The call's price, in atomic units. */
      amount: string
    }

/** A payment that was made, as events and callbacks report it. */
export type Payment = {
  /** Who paid: an EVM address, or a Solana account CAIP-10 style. */
  payer: string
  /** What was charged, RAW (atomic units of the asset). */
  amountRaw: string
  /** The settlement transaction (a Solana signature in base58); `null` for a channel voucher, claimed later. */
  transaction: string | null
  /** The payment channel of a voucher. */
  channelId?: string | undefined
}

/** What became of a paid call's payment: paid, never paid (and never will be), or not decided yet. */
export type PaymentOutcome =
  | { /** Settled or charged. */ state: 'paid'; payment: Payment }
  | { /** Released, failed or never recorded: nothing was charged. */ state: 'unpaid'; reason: string }
  | { /** Being settled, or held by a job. */ state: 'undecided' }

/**
 * A paid call, as the gateway hands it to the route's handler once its payment is held: who paid, what pays, and
 * the two things a handler may do under the payment. Free routes get none.
 */
export type Paid = {
  /**
   * The verified payer: the caller, an EVM address. Reading it in a call paid from Solana throws (a 403 that charges
   * nothing): a Solana account has no EVM address to own records by.
   */
  readonly payer: Address
  /** Where the payment is recorded; `undefined` for a re-read by signing in, which nothing pays for. */
  readonly held: Holding | undefined
  /**
   * The store under this payment: every insert, update, remove and append through it is recorded with the payment
   * before the handler goes on, and taken back, newest first, when the call is never paid. A paid handler writes the
   * records it answers with through it; a write through the module's own `store` stands whatever becomes of the
   * payment.
   */
  readonly journal: Store
  /**
   * Hands the payment to the asynchronous job `job`: once the handler answers (below 400) it is left to the job,
   * unsettled, for `deferred` to settle or release. The payment's key and amount; `undefined` when the call was paid
   * in a scheme that cannot wait (a channel voucher is redeemed with its call) or not paid at all.
   */
  defer: (job: string) => Held | undefined
}

/**
 * Every port a module may ask for, by name: the one typed registry the composition root fills. An interface, so that
 * a deployment (or a test) adds a port of its own by declaration merging, with the provider that builds it.
 */
export interface Ports {
  /** Durable records: a write through it stands (a paid handler writes what its call buys through `paid.journal`). */
  store: Store
  /** Durable work in the store's database, claimed once across processes (see `workers`). */
  queue: Queue.Queue
  /** The events outbox: events fanned out to the owners' webhooks. */
  events: Events.Events
  /** The settlement chain's transfers and tokens. */
  onchain: Onchain
  /** Our escrow contract on the settlement chain. */
  escrow: EscrowChain
  /** The gateway's own arbiter account on our escrow contract, which releases and cancels escrows settled on proof. */
  escrowArbiter: EscrowArbiter
  /** Chains RPC forwarding reads from; at least one. */
  chains: readonly Endpoint[]
  /** The settlement chain's node: the one of `chains` with the settlement chain's id, found once at boot. */
  settlementChain: Endpoint
  /** Opens a JSON-RPC client to any EVM chain's node by URL, with a short time limit (chain-data reads). */
  evm: Connect
  /** Ethereum mainnet's node (CHAIN_RPC_ETHEREUM), with the same short time limit as `evm`. */
  ethereum: Endpoint
  /** The name service (ENS on Ethereum; our own registry on a devnet). */
  names: NameService
  /** USD price source. */
  oracle: Oracle
  /** AggregatorV3 USD price feeds (USDC, ETH, SOL), checked at start. */
  prices: PriceFeeds
  /** AggregatorV3 USD feeds of fiat currencies (EUR / USD, GBP / USD, ...), checked at start. */
  fx: PriceFeeds
  /** Published reference exchange rates, the second opinion on the fiat feeds. */
  fxReference: FxReference
  /** The batch-payment contract on each accepted chain. */
  batch: BatchChains
  /** Our ERC-4337 agent-wallet contracts on the settlement chain, with a relayer that sponsors their transactions. */
  agentWallet: AgentWalletChain
  /** The Stellar network (Horizon). */
  stellar: StellarNetwork
  /** The XRP Ledger (rippled). */
  xrp: XrpNetwork
  /** A Solana swap aggregator (Jupiter). */
  solanaSwap: Solana.Aggregator
  /** Token mints on a Solana node (their decimals). */
  solanaMints: Solana.Mints
  /** A Solana Digital Asset Standard index (Helius or any DAS provider). */
  solanaAssets: Solana.AssetIndex
  /** A Pyth price service (Hermes). */
  solanaPrices: Solana.PriceService
  /** An OpenAI-compatible chat upstream (the limits on it are the ai family's environment). */
  chat: ChatUpstream
  /** An OpenAI-compatible upstream that also embeds and draws (the limits on it are the decentralized family's environment). */
  decentralized: InferenceUpstream
  /** A swap aggregator whose quotes are compared with Uniswap v3's (the 0x Swap API). */
  aggregator: SwapAggregator
  /** An index of DEX trading pairs across chains (DexScreener). */
  dex: Dex.Index
  /** A second opinion on tokens and addresses (GoPlus) for the safety screens. */
  intel: Safety.Intel
  /** The runtime code of the contract that simulates a buy and a sell in one eth_call (SafetySimulator). */
  simulator: Safety.Simulator
  /** The guard in front of every request to a URL a caller gave. */
  outbound: OutboundGuard
  /** The settlement chain's transaction history per address (our indexer on a devnet, Blockscout on Base). */
  history: History
  /** What an address holds (native coin, tokens, NFTs) on each chain served (the devnet node, Blockscout elsewhere). */
  holdings: Holdings
  /** What this gateway's ledger says of a payer's settled payments. */
  payments: Pick<Ledger, 'settled'>
  /** Opens the cross-chain bridges (LI.FI, Across) at the URLs of the bridge family's environment. */
  bridges: ConnectBridges
  /** The embedded blockstore and the pinning providers the storage family's environment configures. */
  storage: StorageProviders
  /** Historical USD prices of assets (DefiLlama's coins API, or CoinGecko when keyed), for tax reports. */
  historicalPrices: HistoricalPrices
  /** The research databases (OpenAlex, Crossref, arXiv, bioRxiv, PubMed, PubChem, Census, data.gov, a dictionary). */
  research: Research.Sources
  /** A web search API (Tavily, Brave Search or Exa), once keyed. */
  webSearch: Search.Engine
  /** Our page extractor (Readability) behind the outbound guard. */
  extractor: Search.Extractor
  /** Key shared by every gateway process that signs session tokens; at least 32 bytes. */
  sessionSecret: string
  /** An SMTP relay that sends the notify family's email (NOTIFY_SMTP_URL). */
  mailer: Notify.Mailer
  /** A Twilio-shaped SMS API that sends the notify family's texts and signs its status callbacks. */
  texter: Notify.Texter
  /** The gateway's public origin (PUBLIC_URL), for URLs handed to providers that call back. */
  publicUrl: string
  /** The compute-futures operator on the settlement chain: its deposit address and the wallet that sends refunds. */
  futures: FuturesTreasury
  /** The compute-futures operator on Solana: its deposit token account and the wallet that refunds Solana deposits. */
  futuresSolana: FuturesSolanaTreasury
  /** Verification services asked, in order, for a contract's verified source (Sourcify, the chain's Blockscout). */
  contractSources: readonly ContractSources[]
  /** The operator's compute models (COMPUTE_MODELS) and the OpenAI-compatible upstream of the kinds that answer at once. */
  compute: {
    /** The model catalog. */
    models: ComputeModels
    /** The OpenAI-compatible upstream, when configured. */
    direct?: ComputeDirect | undefined
  }
  /** Payments settled when an asynchronous job ends (present wherever payments are taken). */
  deferred: Deferred
  /** What became of a paid call's payment, by where it is recorded (present wherever payments are taken). */
  paymentOutcome: (held: Holding) => Promise<PaymentOutcome>
  /** The compute family's OpenAI-compatible upstream (chat, embeddings, images, speech, transcription). */
  computeUpstream: Compute.Direct
  /** Replicate's predictions API (compute images and videos, GPU runs). */
  replicate: Compute.Predictions
  /** A prediction-market venue's listings, order books and trades (Polymarket's public APIs). */
  predictionMarkets: PredictionMarket.Venue
  /** A stock market data source (Finnhub once keyed, Yahoo Finance keyless otherwise). */
  stocks: StockData
  /** The images family's OpenAI-compatible images API (generations and edits). */
  images: Images
  /** A server-wallet vendor (Phantom) holding the custodial wallets' keys, which never reach the gateway. */
  custodian: Custodian
  /** Sends signed transactions to the settlement chain's node. */
  broadcaster: Broadcaster
}

/** The name of a port. */
export type Port = keyof Ports

/**
 * The node of the settlement chain among the chains RPC forwarding reads from. Throws {@link ConfigError} when none
 * has its id: a deployment passing its own ports must list the settlement chain's node among `chains`.
 */
export function settlementEndpoint(ports: {
  chains: readonly Endpoint[]
  onchain: Pick<Onchain, 'chainId'>
}): Endpoint {
  const endpoint = ports.chains.find((chain) => chain.chainId === ports.onchain.chainId)
  if (!endpoint) throw new ConfigError(`No configured chain has the settlement chain's id ${ports.onchain.chainId}.`)
  return endpoint
}

/** Per-request values the gateway gives every route handler. */
export type Context = {
  /** The paid call: set on every route of a paid catalog entry before its handler runs; absent on free routes. */
  paid: Paid
}

/**
 * A module's dependencies for one paid call: its `store` is the call's journal, so that what the call writes is taken
 * back should it never be paid, and its `events` carry the call's payment, so that none is delivered unless it is paid.
 * Dependencies with neither are returned as they are.
 */
export function withJournal<deps extends object>(deps: deps, paid: Paid): deps {
  const journaled = 'store' in deps && deps.store !== undefined ? { store: paid.journal } : {}
  const { held } = paid
  const events =
    'events' in deps && deps.events !== undefined && held
      ? { events: Events.under(deps.events as Events.Events, held) }
      : {}
  return { ...deps, ...journaled, ...events }
}

/** A background job: the runner calls `run` on schedule and makes sure one tick runs on one process only. */
export type Job<needs extends Port = Port, env extends TObject = TObject, uses extends Port = never> = {
  /** Unique name, kebab-case; part of the claim key, so never change it. */
  name: string
  /** Cron pattern (minute hour day month weekday). @default '* * * * *' */
  schedule?: string
  /** One tick of the job. */
  run: (context: Resources<needs, env, uses>) => Promise<unknown>
}

/** What a worker did with a claimed item. */
export type Outcome =
  | { /** Done; `result` is kept with the item. */ done: true; result?: unknown }
  | { /** Try again at `at`. */ retryAt: Date; error: string }
  | { /** Give up. */ failed: string }

/**
 * A worker of a durable queue: every gateway process polls the queue and claims due items (each goes to one
 * process per lease); `run` handles one and says what became of it. A throw is a retry with backoff.
 */
export type Worker<needs extends Port = Port, env extends TObject = TObject, uses extends Port = never> = {
  /** The queue it claims from. */
  queue: string
  /** How many items one process handles at once. @default 10 */
  concurrency?: number
  /**
   * How long a claim holds an item before another process may take it, in ms: longer than one `run`; or that figure
   * from the module's environment. @default 30_000
   */
  leaseMs?: number | ((env: Static<env>) => number)
  /** Handles one claimed item. */
  run: (item: Queue.Claim, context: Resources<needs, env, uses>) => Promise<Outcome>
}

/** What a module's functions receive: the ports it named and its parsed environment. */
export type Resources<needs extends Port, env extends TObject, uses extends Port = never> = {
  /** The ports the module needs, each present, and those it uses when present. */
  ports: Pick<Ports, needs> & Partial<Pick<Ports, uses>>
  /** The module's own environment, parsed. */
  env: Static<env>
}

/** What a call to an entry names: its path parameters and its query, as validated. */
export type Target = {
  /** Path parameters, e.g. `{ id }` of `/api/v1/invoice/:id`. */
  params: Readonly<Record<string, string | undefined>>
  /** Query parameters. */
  query: Readonly<Record<string, unknown>>
}

/**
 * An entry an agent may re-read by signing in (x402 `sign-in-with-x`, CAIP-122) instead of paying again: whoever paid
 * for this very resource (method, path and query, at the entry's current price) may, and so may its owners.
 */
export type Reaccess<needs extends Port = Port, env extends TObject = TObject, uses extends Port = never> = {
  /** The addresses that own the resource a call names; they re-read it without having paid for it. @default nobody */
  owners?: (target: Target, context: Resources<needs, env, uses>) => Promise<readonly string[]>
}

/**
 * Re-access for the owners of a store record: the record of `collection` whose id `idOf` reads off the call. A call
 * that names no id, or a missing record, has no owners.
 */
export function ownedIn(
  collection: string,
  idOf: (target: Target) => string | undefined,
): Reaccess<'store', TObject, never> {
  return {
    owners: async (target, { ports }) => {
      const id = idOf(target)
      return id === undefined ? [] : ((await ports.store.get(collection, id))?.owners ?? [])
    },
  }
}

/** The `id` a call names, in its path or as `?id=`; `undefined` when it names none. */
export function idOf(target: Target): string | undefined {
  const id = target.params.id ?? target.query.id
  return typeof id === 'string' ? id : undefined
}

/** The manifest of one endpoint family. */
export type Module<needs extends Port = Port, env extends TObject = TObject, uses extends Port = never> = {
  /** Name of the family, e.g. `invoice`. */
  name: string
  /** Start of every catalog path the module serves. */
  paths: readonly string[]
  /** Ports the module needs; when one is absent the module is not mounted and its paths answer 503. */
  needs: readonly needs[]
  /** Ports the module uses when present and does without otherwise. @default [] */
  uses?: readonly uses[]
  /**
   * The module's slice of the environment; a variable with `secret: true` in its schema is never printed. Each
   * variable's `description` (and `defaultText` where the schema's `default` is not what people should read) is its
   * row of the configuration table in docs/configuration.md (`npm run docs`).
   */
  env?: env
  /** Per-client token bucket of the module's free endpoints (by payer where known, else by IP). @default none */
  rateLimit?: (env: Static<env>) => RateLimit.Options | undefined
  /** The module's routes (an Elysia plugin in the gateway). May throw at boot on a bad environment. */
  routes: (context: Resources<needs, env, uses>) => unknown
  /**
   * Checked before payment on every call: why the module cannot take calls now (an open breaker), if so; `key` is the
   * catalog key called, for a module whose entries depend on different upstreams.
   */
  ready?: (context: Resources<needs, env, uses>, key: string) => string | undefined
  /**
   * Vendor callbacks the module serves outside the catalog (`POST /callbacks/<family>/...`): free, unpaid, their body
   * handed over as text, byte for byte, for the module to verify its signature. @default []
   */
  callbacks?: readonly string[]
  /**
   * JSON Schemas of the answers of served entries whose shapes the spec does not show, by catalog key (`GET /path`):
   * discovery documents them as the 200 answer.
   */
  outputs?: Readonly<Record<string, TSchema>>
  /**
   * What discovery publishes of served entries beside the catalog, by catalog key and then by name (e.g. where a
   * deposit goes, before any deposit): each name is an `x-<name>` of the operation in OpenAPI and a field of its
   * resource in the payment manifest. Read once, at boot.
   */
  facts?: (context: Resources<needs, env, uses>) => Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /**
   * Free routes the module serves outside the catalog, as `METHOD /path` (e.g. a public key registry the paid entries
   * rely on, or a provider's signed status callback, which the module checks itself; form bodies are read): never
   * paid, rate-limited as the module's free endpoints are, answering 503 with the reason when the module is not
   * mounted, absent from the catalog's discovery documents (the module's docs page lists them).
   * @default []
   */
  extraRoutes?: readonly string[]
  /**
   * Served paid entries an agent re-reads by signing in instead of paying again (x402 `sign-in-with-x`), by catalog
   * key: `{}` for whoever paid for the very resource, or with the owners of what it names.
   */
  reaccess?: Readonly<Record<string, Reaccess<needs, env, uses>>>
  /** Meters of the served entries also offered priced by usage (x402 `upto`), by catalog key; read from the environment. */
  meters?: (env: Static<env>) => Meters
  /** Price rules of the served entries priced per request (a range or `varies`), by catalog key; may read the env. */
  prices?: Price.Rules | ((env: Static<env>) => Price.Rules)
  /**
   * Validity windows of the offers of served entries whose payment waits for an asynchronous job, in seconds, by
   * catalog key: longer than the job may take. @default the payment terms' `maxTimeoutSeconds`
   */
  windows?: (env: Static<env>) => Readonly<Record<string, number>>
  /** Background jobs. */
  jobs?: readonly Job<needs, env, uses>[]
  /** Workers of durable queues. */
  workers?: readonly Worker<needs, env, uses>[]
}

/** Any module, whatever its ports and environment. */
// biome-ignore lint/suspicious/noExplicitAny: a list of modules holds manifests of every shape.
export type AnyModule = Module<any, any, any>

/** Declares a module; typed so that `routes`, `ready` and `jobs` see exactly the ports named in `needs`. */
export function define<
  const needs extends Port = never,
  env extends TObject = TObject<{}>,
  const uses extends Port = never,
>(module: Module<needs, env, uses>): Module<needs, env, uses> {
  return module
}

/** The reason of an unavailable upstream, for a module's `ready`; `undefined` when it takes calls. */
export function reasonOf(availability: Availability): string | undefined {
  return availability.ok ? undefined : availability.reason
}
