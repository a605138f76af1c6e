import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Static } from '@sinclair/typebox'
import { RedisClient } from 'bun'
import postgresJs from 'postgres'
import {
  type Address,
  type Chain,
  createPublicClient,
  type Hex,
  http as httpTransport,
  type PublicClient,
  type Transport,
  toHex,
} from 'viem'
import { type HDKey, type LocalAccount, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { base, mainnet } from 'viem/chains'
import { across } from '../adapters/bridge/across.js'
import { lifi } from '../adapters/bridge/lifi.js'
import { agentWalletChain } from '../adapters/chain/agentWallet.js'
import { batchChain } from '../adapters/chain/batch.js'
import { channelAuthorizerIndex, channelChain, channelRelayerIndex } from '../adapters/chain/channel.js'
import {
  account,
  authorizationSettlerAddress,
  authorizationSettlerCode,
  contracts,
  devnet,
  devnetChain,
  devPriceFeeds,
} from '../adapters/chain/devnet.js'
import { ens } from '../adapters/chain/ens.js'
import { arbiterIndex, escrowArbiter, escrowChain } from '../adapters/chain/escrow.js'
import { futuresOperatorIndex, futuresTreasury } from '../adapters/chain/futures.js'
import { feedOracle } from '../adapters/chain/oracle.js'
import { baseFeeds, baseFiatFeeds, priceFeeds } from '../adapters/chain/priceFeeds.js'
import { simulator } from '../adapters/chain/safety.js'
import { transfers } from '../adapters/chain/transfers.js'
import { uptoChain } from '../adapters/chain/upto.js'
import { walletDeployerIndex } from '../adapters/chain/wallet.js'
import { openai as computeOpenai } from '../adapters/compute/openai.js'
import { replicate } from '../adapters/compute/replicate.js'
import { libsecp256k1, libsecp256k1Sign } from '../adapters/crypto/libsecp256k1.js'
import { readability } from '../adapters/extract/readability.js'
import { local } from '../adapters/facilitator/local.js'
import { remote } from '../adapters/facilitator/remote.js'
import { frankfurter } from '../adapters/fx/frankfurter.js'
import { blockscout } from '../adapters/history/blockscout.js'
import { indexer } from '../adapters/history/indexer.js'
import { grouped } from '../adapters/ledger/grouped.js'
import { postgres as postgresLedger } from '../adapters/ledger/postgres.js'
import { sqlite as sqliteLedger } from '../adapters/ledger/sqlite.js'
import { memory as memoryLimiter } from '../adapters/limiter/memory.js'
import { postgres as postgresLimiter } from '../adapters/limiter/postgres.js'
import { redis as redisLimiter } from '../adapters/limiter/redis.js'
import { smtp } from '../adapters/notify/smtp.js'
import { twilio } from '../adapters/notify/twilio.js'
import { outbound } from '../adapters/outbound/fetch.js'
import { coingecko } from '../adapters/pricing/coingecko.js'
import { defillama } from '../adapters/pricing/defillama.js'
import { postgres as postgresQueue } from '../adapters/queue/postgres.js'
import { sqlite as sqliteQueue } from '../adapters/queue/sqlite.js'
import { arxiv } from '../adapters/research/arxiv.js'
import { biorxiv } from '../adapters/research/biorxiv.js'
import { census } from '../adapters/research/census.js'
import { ckan } from '../adapters/research/ckan.js'
import { crossref } from '../adapters/research/crossref.js'
import { dictionary } from '../adapters/research/dictionary.js'
import { openalex } from '../adapters/research/openalex.js'
import { pubchem } from '../adapters/research/pubchem.js'
import { pubmed } from '../adapters/research/pubmed.js'
import { eip1193 } from '../adapters/rpc/eip1193.js'
import { http } from '../adapters/rpc/http.js'
import { brave } from '../adapters/search/brave.js'
import { exa } from '../adapters/search/exa.js'
import { tavily } from '../adapters/search/tavily.js'
import { das } from '../adapters/solana/das.js'
import { solanaFuturesTreasury } from '../adapters/solana/futures.js'
import { hermes } from '../adapters/solana/hermes.js'
import { jupiter } from '../adapters/solana/jupiter.js'
import { feePayer as solanaFeePayer } from '../adapters/solana/pay.js'
import { solanaRpc } from '../adapters/solana/rpc.js'
import { blockscoutSource } from '../adapters/source/blockscout.js'
import { sourcify } from '../adapters/source/sourcify.js'
import { horizon } from '../adapters/stellar/horizon.js'
import { embedded } from '../adapters/storage/embedded.js'
import { kubo } from '../adapters/storage/kubo.js'
import { pinata } from '../adapters/storage/pinata.js'
import { pinningService } from '../adapters/storage/pinningService.js'
import { postgres as postgresStore } from '../adapters/store/postgres.js'
import { sqlite as sqliteStore } from '../adapters/store/sqlite.js'
import { openai } from '../adapters/upstream/openai.js'
import { goplus } from '../adapters/vendor/goplus.js'
import { zerox } from '../adapters/vendor/zerox.js'
import { rippled } from '../adapters/xrp/rippled.js'
import type { RecoverPublicKey, SignDigest } from '../core/Authorization.js'
import type { BatchChain } from '../core/BatchChain.js'
import * as Catalog from '../core/Catalog.js'
import type { Direct, Predictions } from '../core/Compute.js'
import * as Compute from '../core/Compute.js'
import { events } from '../core/Events.js'
import type { Facilitator } from '../core/Facilitator.js'
import type { Ledger } from '../core/Ledger.js'
import type { Limiter } from '../core/Limiter.js'
import type { NameService } from '../core/NameService.js'
import type * as Notify from '../core/Notify.js'
import type { Guard as OutboundGuard } from '../core/Outbound.js'
import { type PaymentTerms, toDomain } from '../core/PaymentTerms.js'
import type { PriceFeeds } from '../core/PriceFeeds.js'
import type { Queue } from '../core/Queue.js'
import type * as Research from '../core/Research.js'
import type * as Rpc from '../core/Rpc.js'
import type * as Search from '../core/Search.js'
import type * as Storage from '../core/Storage.js'
import type { Store } from '../core/Store.js'
import * as TokenList from '../core/TokenList.js'
import * as Webhooks from '../core/Webhooks.js'
import * as analyticsFamily from '../modules/analytics/index.js'
import * as computeFamily from '../modules/compute/index.js'
import * as futuresFamily from '../modules/futures/index.js'
import * as fxFamily from '../modules/fx/index.js'
import * as inferenceFamily from '../modules/inference/index.js'
import * as notifyFamily from '../modules/notify/index.js'
import * as researchFamily from '../modules/research/index.js'
import * as robotsFamily from '../modules/robots/index.js'
import * as safetyFamily from '../modules/safety/index.js'
import * as searchFamily from '../modules/search/index.js'
import * as storageFamily from '../modules/storage/index.js'
import * as taxFamily from '../modules/tax/index.js'
import { payerIndexes } from './banner.js'
import { type Config, ConfigError } from './config.js'
import { createGateway } from './gateway.js'
import type { Logger } from './log.js'
import { metrics } from './metrics.js'
import { channels } from './payment/channel.js'
import { processLease } from './payment/lease.js'
import { receiptSigner } from './payment/receipt.js'
import { reconcile } from './payment/reconcile.js'
import { solana } from './payment/solana.js'
import { StartError } from './startup.js'
import { terms as termsOf } from './terms.js'

/**
 * Mnemonic index of the devnet account that relays the settlements of the process in lease `slot` when no key is
 * set: #9, #8, ... down to #3, so that the payee (#0) and the payers the banner offers (#1, #2) never relay.
 */
export function devnetRelayerIndex(slot: number): number | undefined {
  return slot <= 6 ? 9 - slot : undefined
}

/**
 * Chooses the adapters the configuration names and builds the gateway: the embedded devnet or an RPC chain,
 * the local or remote facilitator, the embedded or PostgreSQL ledger. Reconciles the ledger before serving.
 */
export async function boot(parameters: boot.Parameters): Promise<boot.ReturnType> {
  const closers: (() => Promise<unknown>)[] = []
  try {
    return await assemble(parameters, closers)
  } catch (error) {
    // A refused start leaves nothing open: no devnet journal lock, no database connection.
    for (const close of closers.reverse()) await close()
    throw error
  }
}

async function assemble(parameters: boot.Parameters, closers: (() => Promise<unknown>)[]): Promise<boot.ReturnType> {
  const { config } = parameters
  // One set of metrics for the process: reconciliation and settlement count through the same logger as requests.
  const meter = metrics()
  const logger = meter.observing(parameters.logger)
  // Storage first: an unreachable database fails the start before the devnet replays its journal.
  const storage = await openStorage(config, closers)
  const limiter = config.redisUrl ? await redisLimiterOf(config.redisUrl, closers) : storage.limiter
  const settlement = config.rpcUrl ? await rpcChain(config) : await embeddedDevnet(config)
  closers.push(settlement.close)
  const terms = settlement.terms
  await assertRecordsOfChain({ config, store: storage.store, client: settlement.client, where: settlement.where })

  // Moves made together (a settlement batch's, calls finishing at once) commit together.
  const ledger = grouped(parameters.ledger ?? storage.ledger)
  const lease = await processLease({ ledger, logger, ...parameters.lease })
  // Closed before the ledger (closers run in reverse): a clean stop removes the lease.
  closers.push(() => lease.stop())
  const relayers = relayerKeys(config, settlement)
  const configured = config.facilitatorUrl
    ? remote({ url: config.facilitatorUrl, client: settlement.client })
    : relayerFacilitator(config, settlement, { relayers, lease }, logger, await settlerOf(config, settlement))
  const facilitator = parameters.facilitator?.(configured) ?? configured
  // The ledger's confirmations and the stores' writes record their events in the queue of the shared database.
  const outbox = events({
    queue: storage.queue,
    wanted: Webhooks.subscriptions(storage.store),
  })
  // x402 `upto` is settled by the relayer of slot 0 in every process, the one facilitator its permits name; with a
  // remote facilitator this gateway holds no key to settle it.
  const upto = config.facilitatorUrl
    ? undefined
    : uptoChain({
        client: settlement.client,
        chain: settlement.chain,
        transport: settlement.transport,
        relayer: relayerOf(config, relayers, 0),
      })
  const books = {
    ledger,
    facilitator,
    domain: toDomain(terms),
    logger,
    store: storage.store,
    events: outbox,
    lease,
    upto,
    settlementTimeoutMs: config.settlementTimeoutMs,
  }

  await reconcile(books)
  const recoverPublicKey = await libsecp256k1()
  logger.log('info', 'signature_recovery', { implementation: recoverPublicKey ? 'libsecp256k1 (native)' : 'pure JS' })
  const paymentChannels = channelsOf(config, settlement, storage.store, lease, logger, recoverPublicKey)
  const solanaPayments = await solanaPaymentsOf(config, { ledger, lease, store: storage.store, logger, terms })

  const prices = await feedsOf(settlement, 'crypto', logger)
  const fx = await feedsOf(settlement, 'fiat', logger)
  const gateway = createGateway({
    config,
    terms,
    logger,
    ports: {
      ...defaultPorts(config, settlement, storage.store),
      queue: storage.queue,
      events: outbox,
      prices,
      fx,
      oracle: prices || fx ? feedOracle({ feeds: [prices, fx].filter((set) => set !== undefined) }) : undefined,
      names: await namesOf(config, settlement, logger),
      futuresSolana: await futuresSolanaOf(config),
      payments: { settled: (payer) => ledger.settled(payer) },
      ...parameters.ports,
    },
    families: parameters.families,
    metrics: meter,
    limiter,
    payment: {
      ledger,
      facilitator,
      lease,
      secret: config.mppSecret ?? crypto.randomUUID() + crypto.randomUUID(),
      recoverPublicKey,
      settlementTimeoutMs: config.settlementTimeoutMs,
      channels: paymentChannels,
      solana: solanaPayments,
      // Sign-in messages of smart wallets (ERC-1271, and ERC-6492 before deployment) are checked on the settlement chain.
      verifyMessage: (message) => settlement.client.verifyMessage(message),
      upto,
      receipts: receiptsOf(config, settlement, await libsecp256k1Sign()),
    },
  })

  return {
    gateway,
    terms,
    ledger,
    lease,
    store: storage.store,
    facilitator,
    devnet: settlement.devnet,
    jobs: [
      { name: 'reconcile-ledger', schedule: '* * * * *', run: () => reconcile(books), everyProcess: true },
      ...(paymentChannels
        ? [{ name: 'claim-channels', schedule: '* * * * *', run: () => paymentChannels.sweep().then(() => undefined) }]
        : []),
      ...(solanaPayments
        ? [
            {
              name: 'reconcile-solana',
              schedule: '* * * * *',
              run: () => solanaPayments.reconcile(),
              everyProcess: true,
            },
          ]
        : []),
      ...gateway.jobs,
    ],
    queue: storage.queue,
    workers: gateway.workers,
    async close() {
      for (const close of closers.reverse()) await close()
    },
  }
}

export declare namespace boot {
  type Parameters = {
    /** Parsed configuration. */
    config: Config
    /** Where events go. */
    logger: Logger
    /** A ledger to use instead of the configured one (tests). */
    ledger?: Ledger
    /** Timing of this process's lease (tests: a short ttl, a clock of their own). @default 15 s ttl, 5 s heartbeat, the wall clock */
    lease?: Pick<processLease.Parameters, 'ttlMs' | 'heartbeatMs' | 'now'>
    /** Wraps the configured facilitator (tests: a slow or failing chain). */
    facilitator?: ((configured: Facilitator) => Facilitator) | undefined
    /** Ports of the deployment's own, each replacing the one the configuration would build. */
    ports?: createGateway.Parameters['ports']
    /** The endpoint families to mount. @default the gateway's own */
    families?: createGateway.Parameters['families']
  }
  type ReturnType = {
    /** The gateway. */
    gateway: createGateway.ReturnType
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** The payment ledger. */
    ledger: Ledger
    /** This process's lease in the ledger. */
    lease: processLease.ReturnType
    /** Durable records of the stateful modules. */
    store: Store
    /** The facilitator that settles. */
    facilitator: Facilitator
    /** The embedded devnet, when no RPC URL is configured (a devnet reached over RPC_URL is not this). */
    devnet: devnet.Devnet | undefined
    /** Background work for the job runner, which claims each tick so that one process runs it. */
    jobs: createGateway.Job[]
    /** Durable work in the store's database. */
    queue: Queue
    /** The modules' queue workers, for the worker runner. */
    workers: createGateway.Worker[]
    /** Stops the devnet (releasing its journal) and closes the ledger and the store. */
    close: () => Promise<void>
  }
}

/** The OpenAI-compatible adapter of a configured upstream. */
function inferenceOf(upstream: Config['chatUpstream'], name: string) {
  return upstream ? openai({ name, baseUrl: upstream.url, apiKey: upstream.key }) : undefined
}

/** Heartbeat of the devnet's price feeds, in seconds: a day, so that a devnet left running keeps its prices. */
const devnetFeedHeartbeatS = 86_400

/**
 * The settlement chain's USD price feeds of `kind` (token prices or fiat currencies), each checked by `description()`
 * and `decimals()`: Chainlink's on Base, ours on a devnet. Feeds that fail the check leave the port absent (its
 * endpoints answer 503), with a warning.
 */
async function feedsOf(
  settlement: Settlement,
  kind: 'crypto' | 'fiat',
  logger: Logger,
): Promise<PriceFeeds | undefined> {
  const onBase = settlement.chain.id === base.id && !settlement.isDevnet
  const deployed = contracts().priceFeeds
  const feeds = onBase
    ? kind === 'crypto'
      ? baseFeeds
      : baseFiatFeeds
    : settlement.isDevnet
      ? devPriceFeeds
          .filter((feed) => feed.kind === kind)
          .map(({ symbol, description }) => ({
            symbol,
            description,
            address: deployed[symbol]!,
            heartbeatS: devnetFeedHeartbeatS,
          }))
      : undefined
  if (!feeds) return undefined
  try {
    return await priceFeeds({ client: settlement.client, chainId: settlement.chain.id, feeds })
  } catch (error) {
    logger.log('warn', 'price_feeds_unavailable', {
      kind,
      reason: error instanceof Error ? error.message : String(error),
    })
    return undefined
  }
}

/** Every port the configuration describes, each built once; one left out is absent and its modules unavailable. */
function defaultPorts(config: Config, settlement: Settlement, store: Store): createGateway.Parameters['ports'] {
  const chainId = settlement.chain.id
  // Chain-data reads fan out to several public nodes at once: one that does not answer in 4 s is reported as such.
  const evm: Rpc.Connect = (chain) => http({ ...chain, timeoutMs: 4_000, retryReads: false })
  const guard = outbound({ allow: config.outboundAllow })
  const compute = computeOf(config)
  return {
    store,
    chains: [settlement.endpoint],
    evm,
    ethereum: evm({ name: 'ethereum', chainId: mainnet.id, url: config.ethereumRpcUrl }),
    onchain: {
      chainId,
      transfers: transfers({ client: settlement.client }),
      tokens: [{ symbol: 'USDC', address: settlement.terms.asset.address, decimals: settlement.terms.asset.decimals }],
    },
    escrow: settlement.escrow
      ? escrowChain({ client: settlement.client, address: settlement.escrow, chainId })
      : undefined,
    escrowArbiter: arbiterOf(config, settlement),
    sessionSecret: config.sessionSecret ?? crypto.randomUUID() + crypto.randomUUID(),
    batch: { base: settlement.batch, ...(config.peaq ? { peaq: peaqBatch(config.peaq) } : {}) },
    agentWallet: settlement.isDevnet ? devnetAgentWallet(settlement) : undefined,
    stellar: config.stellar ? horizon(config.stellar) : undefined,
    xrp: config.rippledUrl ? rippled({ url: config.rippledUrl }) : undefined,
    solanaSwap: config.solana.aggregator && jupiter(config.solana.aggregator),
    solanaMints: solanaRpc({ url: config.solana.rpcUrl }),
    solanaAssets: config.solana.assetIndex && das(config.solana.assetIndex),
    solanaPrices: config.solana.priceService && hermes(config.solana.priceService),
    chat: inferenceOf(config.chatUpstream, 'the chat upstream'),
    decentralized: inferenceOf(config.decentralizedUpstream, 'the decentralized-inference upstream'),
    outbound: guard,
    research: researchOf(config),
    webSearch: webSearchOf(config),
    ...compute,
    extractor: extractorOf(config, guard),
    fxReference: fxReferenceOf(config),
    history: historyOf(config, settlement),
    bridges: (settings) => [lifi(settings.lifi), across(settings.across)],
    aggregator: config.zerox ? zerox({ baseUrl: config.zerox.url, apiKey: config.zerox.key }) : undefined,
    intel: intelOf(config),
    simulator,
    storage: storageOf(config),
    historicalPrices: historicalPricesOf(config),
    mailer: mailerOf(config),
    texter: texterOf(config),
    publicUrl: config.publicUrl,
    books: store,
    futures: futuresOf(config, settlement),
    contractSources: contractSourcesOf(config, settlement),
    compute: futuresComputeOf(config, compute.computeUpstream),
  }
}

/** The SMTP relay of the email family, once its URL and sender are set; none before. */
function mailerOf(config: Config): Notify.Mailer | undefined {
  const env = config.modules[notifyFamily.emailManifest.name] as
    | Static<NonNullable<typeof notifyFamily.emailManifest.env>>
    | undefined
  if (!env?.NOTIFY_SMTP_URL || !env.NOTIFY_EMAIL_FROM) return undefined
  return smtp({ url: env.NOTIFY_SMTP_URL, from: env.NOTIFY_EMAIL_FROM, timeoutMs: env.NOTIFY_EMAIL_TIMEOUT_MS })
}

/** The SMS API of the SMS family, once its account, token and sender are set; none before. */
function texterOf(config: Config): Notify.Texter | undefined {
  const env = config.modules[notifyFamily.smsManifest.name] as
    | Static<NonNullable<typeof notifyFamily.smsManifest.env>>
    | undefined
  if (!env?.NOTIFY_TWILIO_ACCOUNT_SID || !env.NOTIFY_TWILIO_AUTH_TOKEN || !env.NOTIFY_SMS_FROM) return undefined
  return twilio({
    baseUrl: env.NOTIFY_TWILIO_URL,
    accountSid: env.NOTIFY_TWILIO_ACCOUNT_SID,
    authToken: env.NOTIFY_TWILIO_AUTH_TOKEN,
    from: env.NOTIFY_SMS_FROM,
    timeoutMs: env.NOTIFY_SMS_TIMEOUT_MS,
  })
}

/**
 * The compute family's catalog (COMPUTE_MODELS) and its OpenAI-compatible upstream, on which compute-futures jobs
 * run; none while the compute family has no catalog.
 */
function futuresComputeOf(config: Config, direct: Direct | undefined) {
  const env = config.modules[computeFamily.manifest.name] as
    | Static<NonNullable<typeof computeFamily.manifest.env>>
    | undefined
  if (!env?.COMPUTE_MODELS) return undefined
  return { models: Compute.fromJson(env.COMPUTE_MODELS), direct }
}

/**
 * Where the inference family reads verified contract source: Sourcify, then on Base its Blockscout explorer. None on a
 * devnet: no verification service indexes it, and one answering for a public chain with the same id would describe
 * another contract.
 */
function contractSourcesOf(config: Config, settlement: Settlement) {
  const env = config.modules[inferenceFamily.manifest.name] as
    | Static<NonNullable<typeof inferenceFamily.manifest.env>>
    | undefined
  if (!env || settlement.isDevnet) return undefined
  return [
    sourcify({ baseUrl: env.INFERENCE_SOURCIFY_URL }),
    ...(settlement.chain.id === base.id
      ? [blockscoutSource({ chainId: base.id, baseUrl: env.INFERENCE_BLOCKSCOUT_URL })]
      : []),
  ]
}

/**
 * The compute-futures treasury: deposits to FUTURES_DEPOSIT_ADDRESS (or the operator's address), refunds from
 * FUTURES_OPERATOR_PRIVATE_KEY; on a devnet the account at mnemonic index {@link futuresOperatorIndex}, funded at
 * genesis, is both. None off a devnet without either.
 */
function futuresOf(config: Config, settlement: Settlement) {
  const env = config.modules[futuresFamily.manifest.name] as
    | Static<NonNullable<typeof futuresFamily.manifest.env>>
    | undefined
  if (!env) return undefined
  const key = env.FUTURES_OPERATOR_PRIVATE_KEY as Hex | undefined
  const operator = key
    ? privateKeyToAccount(key)
    : settlement.isDevnet
      ? privateKeyToAccount(account({ index: futuresOperatorIndex }).privateKey)
      : undefined
  const depositAddress = (env.FUTURES_DEPOSIT_ADDRESS as Address | undefined) ?? operator?.address
  if (!depositAddress) return undefined
  return futuresTreasury({
    client: settlement.client,
    chainId: settlement.chain.id,
    token: settlement.terms.asset.address,
    depositAddress,
    operator: operator && { account: operator, chain: settlement.chain, transport: settlement.transport },
  })
}

/**
 * The compute-futures treasury on Solana: deposits to the associated token account of FUTURES_SOLANA_DEPOSIT_ADDRESS
 * (or of the operator key's address) on FUTURES_SOLANA_RPC_URL's network, refunds from
 * FUTURES_SOLANA_OPERATOR_SECRET_KEY. None without the node or a deposit address.
 */
async function futuresSolanaOf(config: Config) {
  const env = config.modules[futuresFamily.manifest.name] as
    | Static<NonNullable<typeof futuresFamily.manifest.env>>
    | undefined
  if (!env?.FUTURES_SOLANA_RPC_URL) return undefined
  const { FUTURES_SOLANA_DEPOSIT_ADDRESS: depositAddress, FUTURES_SOLANA_OPERATOR_SECRET_KEY: secretKey } = env
  if (!depositAddress && !secretKey) return undefined
  return solanaFuturesTreasury({
    url: env.FUTURES_SOLANA_RPC_URL,
    mint: env.FUTURES_SOLANA_MINT,
    depositAddress,
    secretKey,
  })
}

/**
 * The gateway's escrow arbiter (robot tasks): the robots family's ROBOTS_ARBITER_PRIVATE_KEY, or on a devnet the
 * account at mnemonic index {@link arbiterIndex}, funded at genesis; none without an escrow contract or a key.
 */
function arbiterOf(config: Config, settlement: Settlement) {
  const env = config.modules[robotsFamily.manifest.name] as
    | Static<NonNullable<typeof robotsFamily.manifest.env>>
    | undefined
  const key = env?.ROBOTS_ARBITER_PRIVATE_KEY as `0x${string}` | undefined
  if (!settlement.escrow || (!key && !settlement.isDevnet)) return undefined
  return escrowArbiter({
    client: settlement.client,
    address: settlement.escrow,
    account: privateKeyToAccount(key ?? account({ index: arbiterIndex }).privateKey),
    chain: settlement.chain,
    transport: settlement.transport,
  })
}

/** Every research source at the research family's URLs; none when the family is not in the configuration. */
function researchOf(config: Config): Research.Sources | undefined {
  const env = config.modules[researchFamily.manifest.name] as
    | Static<NonNullable<typeof researchFamily.manifest.env>>
    | undefined
  if (!env) return undefined
  const contact = env.RESEARCH_CONTACT
  // Every research vendor asks callers to say who they are and how to reach them.
  const userAgent = `pay-per-call-gateway/${Catalog.overviewVersion} (${contact ? `mailto:${contact}` : 'no operator contact set'})`
  return {
    works: openalex({ baseUrl: env.OPENALEX_URL, apiKey: env.OPENALEX_API_KEY, contact, userAgent }),
    registry: crossref({ baseUrl: env.CROSSREF_URL, contact, userAgent }),
    arxiv: arxiv({
      baseUrl: env.ARXIV_URL,
      userAgent,
      intervalMs: env.ARXIV_INTERVAL_MS,
      maxWaitMs: env.ARXIV_MAX_WAIT_MS,
    }),
    rxiv: biorxiv({ baseUrl: env.BIORXIV_URL, userAgent }),
    pubmed: pubmed({ baseUrl: env.NCBI_EUTILS_URL, apiKey: env.NCBI_API_KEY, contact, userAgent }),
    pubchem: pubchem({ baseUrl: env.PUBCHEM_URL, userAgent }),
    census: census({ baseUrl: env.CENSUS_URL, apiKey: env.CENSUS_API_KEY, userAgent }),
    datasets: ckan({ baseUrl: env.DATASETS_URL, userAgent }),
    dictionary: dictionary({ baseUrl: env.DICTIONARY_URL, userAgent }),
  }
}

/** The compute family's upstreams: its OpenAI-compatible one once its URL is set, Replicate once its token is. */
function computeOf(config: Config): { computeUpstream?: Direct | undefined; replicate?: Predictions | undefined } {
  const env = config.modules[computeFamily.manifest.name] as
    | Static<NonNullable<typeof computeFamily.manifest.env>>
    | undefined
  if (!env) return {}
  const secret = env.REPLICATE_WEBHOOK_SECRET
  return {
    computeUpstream: env.COMPUTE_UPSTREAM_URL
      ? computeOpenai({ baseUrl: env.COMPUTE_UPSTREAM_URL, apiKey: env.COMPUTE_UPSTREAM_KEY })
      : undefined,
    replicate: env.REPLICATE_API_TOKEN
      ? replicate({
          baseUrl: env.REPLICATE_URL,
          token: env.REPLICATE_API_TOKEN,
          webhooks: config.publicUrl && secret ? { publicUrl: config.publicUrl, secret } : undefined,
        })
      : undefined,
  }
}

/** The search API SEARCH_ENGINE names, once its key is set; none before. */
function webSearchOf(config: Config): Search.Engine | undefined {
  const env = config.modules[searchFamily.webManifest.name] as
    | Static<NonNullable<typeof searchFamily.webManifest.env>>
    | undefined
  if (!env) return undefined
  if (env.SEARCH_ENGINE === 'brave')
    return env.BRAVE_API_KEY ? brave({ baseUrl: env.BRAVE_SEARCH_URL, apiKey: env.BRAVE_API_KEY }) : undefined
  if (env.SEARCH_ENGINE === 'exa')
    return env.EXA_API_KEY ? exa({ baseUrl: env.EXA_URL, apiKey: env.EXA_API_KEY }) : undefined
  return env.TAVILY_API_KEY ? tavily({ baseUrl: env.TAVILY_URL, apiKey: env.TAVILY_API_KEY }) : undefined
}

/** Our extractor behind `guard`, with the extract family's limits. */
function extractorOf(config: Config, guard: OutboundGuard): Search.Extractor | undefined {
  const env = config.modules[searchFamily.extractManifest.name] as
    | Static<NonNullable<typeof searchFamily.extractManifest.env>>
    | undefined
  if (!env) return undefined
  return readability({
    outbound: guard,
    timeoutMs: env.EXTRACT_TIMEOUT_MS,
    maxBytes: env.EXTRACT_MAX_BYTES,
    maxChars: env.EXTRACT_MAX_CHARS,
  })
}

/** GoPlus at the safety family's GOPLUS_URL; none when the family is not in the configuration. */
function intelOf(config: Config) {
  const env = config.modules[safetyFamily.manifest.name] as
    | Static<NonNullable<typeof safetyFamily.manifest.env>>
    | undefined
  return env ? goplus({ baseUrl: env.GOPLUS_URL }) : undefined
}

/**
 * The embedded blockstore (on the store the module is given), and the pinning providers whose variables the storage family's environment sets
 * (Kubo at KUBO_RPC_URL, Pinata with PINATA_JWT, a pinning service at PINNING_SERVICE_URL with its token).
 */
function storageOf(config: Config): Storage.Providers {
  const env = config.modules[storageFamily.manifest.name] as
    | Static<NonNullable<typeof storageFamily.manifest.env>>
    | undefined
  const remote: Record<string, Storage.Provider> = {}
  if (env?.KUBO_RPC_URL) remote.kubo = kubo({ url: env.KUBO_RPC_URL, authorization: env.KUBO_RPC_AUTHORIZATION })
  if (env?.PINATA_JWT)
    remote.pinata = pinata({ uploadUrl: env.PINATA_UPLOAD_URL, apiUrl: env.PINATA_API_URL, jwt: env.PINATA_JWT })
  if (env?.PINNING_SERVICE_URL && env.PINNING_SERVICE_TOKEN)
    remote['pinning-service'] = pinningService({ url: env.PINNING_SERVICE_URL, token: env.PINNING_SERVICE_TOKEN })
  return { embedded: (store) => embedded({ store }), remote }
}

/** Historical prices for the tax family: CoinGecko when COINGECKO_API_KEY is set, DefiLlama's keyless API otherwise. */
function historicalPricesOf(config: Config) {
  const env = config.modules[taxFamily.manifest.name] as Static<NonNullable<typeof taxFamily.manifest.env>> | undefined
  if (!env) return undefined
  if (env.COINGECKO_API_KEY) return coingecko({ url: env.COINGECKO_API_URL, apiKey: env.COINGECKO_API_KEY })
  return defillama({ url: env.DEFILLAMA_COINS_URL })
}

/** The reference-rate source at the fx family's FX_REFERENCE_URL; none when the family is not in the configuration. */
function fxReferenceOf(config: Config) {
  const env = config.modules[fxFamily.manifest.name] as Static<NonNullable<typeof fxFamily.manifest.env>> | undefined
  return env ? frankfurter({ url: env.FX_REFERENCE_URL }) : undefined
}

/**
 * The settlement chain's history: our indexer of a devnet's blocks, Blockscout (BLOCKSCOUT_URL_BASE, the analytics
 * family's variable) on Base; none elsewhere.
 */
function historyOf(config: Config, settlement: Settlement) {
  if (settlement.isDevnet)
    return indexer({ client: settlement.client, tokens: TokenList.of('base', settlement.chain.id) })
  const env = config.modules[analyticsFamily.manifest.name] as
    | Static<NonNullable<typeof analyticsFamily.manifest.env>>
    | undefined
  return settlement.chain.id === base.id && env ? blockscout({ url: env.BLOCKSCOUT_URL_BASE }) : undefined
}

/**
 * The name service: on a devnet ours (`contracts/NameService.sol`, at the addresses every devnet deploys to); on Base
 * ENS, read from Ethereum at CHAIN_RPC_ETHEREUM through ENS's Universal Resolver (viem's `ensUniversalResolver`). A
 * devnet without our Universal Resolver (a journal of a devnet older than it) leaves the port absent (the name
 * endpoints answer 503), with a warning.
 */
async function namesOf(config: Config, settlement: Settlement, logger: Logger): Promise<NameService | undefined> {
  if (!settlement.isDevnet) {
    const transport = httpTransport(config.ethereumRpcUrl, { retryCount: 0, timeout: 4_000 })
    const client = createPublicClient({ chain: mainnet, transport }) as PublicClient
    return ens({ client, chainId: mainnet.id, source: 'ens' })
  }
  const { universalResolver } = contracts().names
  const code = await settlement.client.getCode({ address: universalResolver }).catch(() => undefined)
  if (code === undefined || code === '0x') {
    logger.log('warn', 'name_service_unavailable', {
      reason: `The devnet has no Universal Resolver at ${universalResolver}: it was started before the name service was deployed; start a new devnet (move DATA_DIR/devnet.journal away) to resolve names.`,
    })
    return undefined
  }
  return ens({ client: settlement.client, chainId: settlement.chain.id, source: 'devnet', universalResolver })
}

type Settlement = {
  terms: PaymentTerms
  endpoint: Rpc.Endpoint
  client: PublicClient
  chain: Chain
  transport: Transport
  devnet: devnet.Devnet | undefined
  /** A devnet of ours, embedded or reached over RPC_URL: its funded test accounts relay and blocks mine at once. */
  isDevnet: boolean
  escrow: Address | undefined
  batch: BatchChain
  /** Where the chain is, for messages; never the RPC URL itself, which may carry a key. */
  where: string
  close: () => Promise<void>
}

/**
 * Starts the devnet the configuration describes: chain id from NETWORK, and with DEVNET_PERSIST its journal in
 * DATA_DIR, so that it keeps its chain across restarts. `npm start` (embedded) and `npm run devnet` (a process of
 * its own) start the same devnet.
 */
export async function startDevnet(config: Config): Promise<devnet.Devnet> {
  const chainId = Number(config.network.split(':')[1])
  let journal: string | undefined
  if (config.devnetPersist) {
    mkdirSync(config.dataDir, { recursive: true })
    journal = join(config.dataDir, 'devnet.journal')
  }
  return devnet({
    chainId,
    rpcUrl: `http://127.0.0.1:${config.devnetRpcPort}`,
    ...(journal ? { journal } : {}),
  })
}

async function embeddedDevnet(config: Config): Promise<Settlement> {
  const chain = await startDevnet(config)
  const chainId = chain.chainId
  const terms = termsOf(config)
  if (terms.asset.address !== chain.token.address) {
    await chain.close()
    throw new Error(`The devnet token is at ${chain.token.address}, discovery expected ${terms.asset.address}.`)
  }
  return {
    terms,
    endpoint: eip1193({ name: 'devnet', chainId, request: (method, params) => chain.request(method, params) }),
    client: chain.publicClient as PublicClient,
    chain: chain.chain,
    transport: chain.transport,
    devnet: chain,
    isDevnet: true,
    escrow: chain.escrow.address,
    batch: batchChain({
      client: chain.publicClient as PublicClient,
      address: chain.batch.address,
      chainId,
      tokens: Object.fromEntries(Object.entries(chain.tokens).map(([symbol, token]) => [symbol, token.address])),
    }),
    where: config.devnetPersist
      ? `the embedded devnet (${join(config.dataDir, 'devnet.journal')})`
      : 'the embedded devnet (DEVNET_PERSIST=false: a new chain at every start)',
    close: () => chain.close(),
  }
}

/**
 * The chain at RPC_URL, whose chain id must be NETWORK's. Base mainnet is production (Circle's USDC, Base's batch
 * contract, shared secrets required); any other network must be a devnet of ours (`npm run devnet`), whose
 * contracts are at the addresses every devnet deploys to.
 */
async function rpcChain(config: Config): Promise<Settlement> {
  const chainId = Number(config.network.split(':')[1])
  const url = config.rpcUrl!
  const where = `RPC_URL (${hostOf(url)})`
  const transport = httpTransport(url, { retryCount: 0 })
  let actual: number
  try {
    actual = await createPublicClient({ transport }).getChainId()
  } catch (error) {
    throw new StartError({
      code: 'chain_unreachable',
      message: `No chain answers at ${where}: ${oneLine(error)}. Start it (\`npm run devnet\` for a devnet) or fix RPC_URL.`,
      cause: error,
    })
  }
  if (actual !== chainId)
    throw new StartError({
      code: 'chain_mismatch',
      message: `NETWORK is ${config.network}, but the chain at ${where} has chain id ${actual}: set NETWORK=eip155:${actual} or point RPC_URL at a node of ${config.network}.`,
    })

  if (chainId === base.id) {
    if (!config.mppSecret)
      throw new ConfigError('MPP_SECRET is required on Base: the same value on every gateway process.')
    if (!config.sessionSecret)
      throw new ConfigError('SESSION_SECRET is required on Base: the same value on every gateway process.')
    const client = createPublicClient({ chain: base, transport }) as PublicClient
    return {
      terms: termsOf(config),
      endpoint: http({ name: 'base', chainId, url }),
      client,
      chain: base,
      transport,
      devnet: undefined,
      isDevnet: false,
      escrow: undefined,
      batch: batchChain({
        client,
        address: baseBatchContract,
        chainId,
        tokens: Object.fromEntries(TokenList.baseMainnet.map((token) => [token.symbol, token.address])),
      }),
      where,
      close: async () => {},
    }
  }

  const chain = devnetChain({ chainId, rpcUrl: url })
  // Blocks are mined on submission, so a short polling interval makes receipt waits return at once.
  const client = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient
  const addresses = contracts()
  for (const [name, address] of [
    ['token (DevUSDC)', addresses.token],
    ['escrow', addresses.escrow],
    ['batch contract', addresses.batch],
  ] as const) {
    const code = await client.getCode({ address }).catch(() => undefined)
    if (code === undefined || code === '0x')
      throw new StartError({
        code: 'devnet_contracts_missing',
        message: `The chain at ${where}, chain id ${chainId}, has no devnet ${name} at ${address}: on ${config.network} RPC_URL must be a devnet of \`npm run devnet\`; Base is NETWORK=eip155:${base.id}.`,
      })
  }
  return {
    terms: termsOf(config),
    endpoint: http({ name: 'devnet', chainId, url }),
    client,
    chain,
    transport,
    devnet: undefined,
    isDevnet: true,
    escrow: addresses.escrow,
    batch: batchChain({ client, address: addresses.batch, chainId, tokens: addresses.tokens }),
    where,
    close: async () => {},
  }
}

/**
 * The agent-wallet port on a devnet of ours: its EntryPoint v0.7 and AgentAccountFactory, with the wallet deployer
 * (funded at genesis) relaying. Base has the canonical EntryPoint (0x0000000071727De22E5E9d8BAf0edAc6f37da032) but
 * not our factory, so there the port is absent and the agent-wallet module unavailable.
 */
function devnetAgentWallet(settlement: Settlement) {
  const { entryPoint, accountFactory } = contracts().wallet
  return agentWalletChain({
    client: settlement.client,
    chainId: settlement.chain.id,
    entryPoint,
    factory: accountFactory,
    relayer: privateKeyToAccount(account({ index: walletDeployerIndex }).privateKey),
    chain: settlement.chain,
    transport: settlement.transport,
    tokens: [{ symbol: 'USDC', address: settlement.terms.asset.address, decimals: settlement.terms.asset.decimals }],
  })
}

/** The batch-payment contract deployed on Base; ours on the devnet has the same ABI. */
const baseBatchContract = '0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC'

/** EIP-155 chain id of peaq. */
const peaqChainId = 3338

function peaqBatch(peaq: NonNullable<Config['peaq']>): BatchChain {
  const client = createPublicClient({ transport: httpTransport(peaq.rpcUrl, { retryCount: 0 }) }) as PublicClient
  return batchChain({ client, address: peaq.batchContract, chainId: peaqChainId, tokens: { USDC: peaq.usdc } })
}

/**
 * The AuthorizationSettler shared settlements go through: AUTHORIZATION_SETTLER once its code is found on the chain,
 * else ours from genesis on a devnet; `undefined` (Multicall3) otherwise.
 */
async function settlerOf(config: Config, settlement: Settlement): Promise<Address | undefined> {
  const address = config.authorizationSettler ?? (settlement.isDevnet ? authorizationSettlerAddress : undefined)
  if (!address) return undefined
  const code = await settlement.client.getCode({ address }).catch(() => undefined)
  if (code && code !== '0x') {
    // Batches go out on a gas budget that relies on this version's ItemStarved check: other code is refused.
    if (code.toLowerCase() === authorizationSettlerCode.toLowerCase()) return address
    if (config.authorizationSettler)
      throw new ConfigError(
        `AUTHORIZATION_SETTLER ${address} on ${settlement.where} is not this version's AuthorizationSettler: deploy adapters/chain/contracts/artifacts/AuthorizationSettler.json and point AUTHORIZATION_SETTLER at it.`,
      )
    return undefined
  }
  if (config.authorizationSettler)
    throw new ConfigError(
      `AUTHORIZATION_SETTLER ${address} has no code on ${settlement.where}: deploy AuthorizationSettler there first.`,
    )
  return undefined
}

/**
 * The local facilitator with this process's relayer key. Each process needs its own key, or their transaction
 * nonces collide: from RELAYER_MNEMONIC the key at the process's lease slot; RELAYER_PRIVATE_KEY serves one process.
 * The key is asked for before every transaction, so that a process whose lease was lost (a pause past its ttl) and
 * replaced in another slot signs with the new slot's key, never with the one another process may hold now.
 */
function relayerFacilitator(
  config: Config,
  settlement: Settlement,
  { relayers, lease }: { relayers: (slot: number) => LocalAccount | undefined; lease: processLease.ReturnType },
  logger: Logger,
  settler: Address | undefined,
): Facilitator {
  // Refused at the start, not at the first payment: a slot without a key, or a key that is also the payee or a payer.
  relayerOf(config, relayers, lease.slot)
  assertRelayersOwnKeys({ config, settlement, relayers, slot: lease.slot })
  return local({
    settler,
    // Metrics count this event: settlement batch sizes and gas.
    onBatch: ({ transaction, size, gasUsed }) =>
      logger.log('debug', 'settlement_batch', { transaction, size, gasUsed: gasUsed.toString() }),
    client: settlement.client,
    relayer: keyOfLease({ lease, keys: relayers, logger, missing: (slot) => missingRelayer(config, slot) }),
    chain: settlement.chain,
    transport: settlement.transport,
    batchWindowMs: config.settlementWindowMs ?? (settlement.isDevnet ? 5 : 2_000),
  })
}

/**
 * Payment channels (x402 `batch-settlement`): on a devnet test account #20 authorizes and #21 + slot relays; elsewhere
 * CHANNEL_AUTHORIZER_PRIVATE_KEY does both, in slot 0 only. `undefined` (no channel offer) when the slot taken at
 * start has no relayer; a process whose lease moves later relays with its new slot's key, or not at all.
 */
function channelsOf(
  config: Config,
  settlement: Settlement,
  store: Store,
  lease: processLease.ReturnType,
  logger: Logger,
  recoverPublicKey: RecoverPublicKey | undefined,
) {
  const key = config.channelAuthorizerPrivateKey
  const authorizer = key ?? (settlement.isDevnet ? account({ index: channelAuthorizerIndex }).privateKey : undefined)
  const relayers = bySlot((slot) => {
    if (key) return slot === 0 ? privateKeyToAccount(key) : undefined
    const index = channelRelayerIndex(slot)
    return settlement.isDevnet && index !== undefined ? privateKeyToAccount(account({ index }).privateKey) : undefined
  })
  if (!authorizer || !relayers(lease.slot)) return undefined
  return channels({
    terms: settlement.terms,
    store,
    logger,
    withdrawDelay: config.channelWithdrawDelayS,
    depositMethod: config.channelDepositMethod,
    chain: channelChain({
      client: settlement.client,
      chain: settlement.chain,
      transport: settlement.transport,
      relayer: keyOfLease({
        lease,
        keys: relayers,
        logger,
        missing: (slot) =>
          new Error(
            `This process holds lease slot ${slot} now, which has no channel relayer (${key ? 'CHANNEL_AUTHORIZER_PRIVATE_KEY relays in slot 0 only' : 'test accounts #21 to #27 relay in slots 0 to 6'}).`,
          ),
      }),
      authorizer: privateKeyToAccount(authorizer),
      token: settlement.terms.asset.address,
      receiver: settlement.terms.payTo,
      recoverPublicKey,
    }),
  })
}

/**
 * The key of the slot this process holds now, asked for before every transaction: a process whose lease was lost and
 * replaced signs with its new slot's key, never with the old one, which another process may hold now. Rejects, with
 * an error logged, when the slot has no key (nothing is signed).
 */
function keyOfLease(parameters: {
  lease: processLease.ReturnType
  keys: (slot: number) => LocalAccount | undefined
  logger: Logger
  missing: (slot: number) => Error
}): () => Promise<LocalAccount> {
  const { lease, keys, logger, missing } = parameters
  return async () => {
    const { slot } = await lease.current()
    const key = keys(slot)
    if (key) return key
    const error = missing(slot)
    logger.log('error', 'relayer_unavailable', { slot, reason: error.message })
    throw error
  }
}

/**
 * x402 `exact` on Solana, when its node, fee payer key and payee are all configured; `undefined` (no Solana offer,
 * the reason in discovery) otherwise. Every process co-signs with the same fee payer: Solana transactions carry no
 * account nonce, so processes never collide.
 */
async function solanaPaymentsOf(
  config: Config,
  books: Pick<solana.Parameters, 'ledger' | 'lease' | 'store' | 'logger'> & { terms: PaymentTerms },
) {
  const { rpcUrl, feePayerSecretKey, payTo, mint, network } = config.solanaPay
  if (!rpcUrl || !feePayerSecretKey || !payTo) return undefined
  const { terms, ...rest } = books
  const feePayer = await solanaFeePayer({
    url: rpcUrl,
    secretKey: feePayerSecretKey,
    network,
    confirmTimeoutMs: config.settlementTimeoutMs,
  }).catch(() => {
    // The parser's own message may quote the key: it is not passed on.
    throw new ConfigError(
      'SOLANA_FEE_PAYER_SECRET_KEY is not a Solana keypair: 64 bytes (a JSON array of numbers, or base58), its public half matching its secret half.',
    )
  })
  return solana({ ...rest, network, mint, payTo, maxTimeoutSeconds: terms.maxTimeoutSeconds, feePayer })
}

/** Mnemonic index (m/44'/60'/0'/0/18) of the devnet's receipt key: it signs receipts, never sends. */
export const devnetReceiptIndex = 18

/** The signer of `offer-receipt` receipts: RECEIPT_PRIVATE_KEY, else test account #18 on a devnet, else none. */
function receiptsOf(config: Config, settlement: Settlement, native: SignDigest | undefined) {
  const key =
    config.receiptPrivateKey ?? (settlement.isDevnet ? account({ index: devnetReceiptIndex }).privateKey : undefined)
  return key ? receiptSigner({ privateKey: key, native }) : undefined
}

/**
 * The relayer key of each lease slot, each derived once: from RELAYER_MNEMONIC the key at the slot's index
 * (`m/44'/60'/0'/0/<slot>`); RELAYER_PRIVATE_KEY in slot 0 only; on a devnet test account #9 down to #3. `undefined`
 * for a slot without one.
 */
function relayerKeys(config: Config, settlement: Settlement): (slot: number) => LocalAccount | undefined {
  const { relayerMnemonic, relayerPrivateKey } = config
  // Deriving from the mnemonic runs PBKDF2 (~30 ms): the parent of every slot's key is derived once.
  let parent: HDKey | undefined
  return bySlot((slot) => {
    if (relayerMnemonic) {
      parent ??= mnemonicToAccount(relayerMnemonic, { path: "m/44'/60'/0'/0" }).getHdKey()
      return privateKeyToAccount(toHex(parent.deriveChild(slot).privateKey!))
    }
    if (relayerPrivateKey) return slot === 0 ? privateKeyToAccount(relayerPrivateKey) : undefined
    const index = devnetRelayerIndex(slot)
    return settlement.isDevnet && index !== undefined ? privateKeyToAccount(account({ index }).privateKey) : undefined
  })
}

/** `keyOf` remembered per slot: each key is derived, and its address computed, once. */
function bySlot(keyOf: (slot: number) => LocalAccount | undefined): (slot: number) => LocalAccount | undefined {
  const known = new Map<number, LocalAccount | undefined>()
  return (slot) => {
    if (!known.has(slot)) known.set(slot, keyOf(slot))
    return known.get(slot)
  }
}

/** The relayer key of `slot`, or the configuration error that says what to set. */
function relayerOf(config: Config, relayers: (slot: number) => LocalAccount | undefined, slot: number): LocalAccount {
  const key = relayers(slot)
  if (key) return key
  throw missingRelayer(config, slot)
}

function missingRelayer(config: Config, slot: number): ConfigError {
  if (config.relayerPrivateKey)
    return new ConfigError(
      `RELAYER_PRIVATE_KEY is one key, and another live gateway process on this database already uses it (this one holds lease slot ${slot}); set RELAYER_MNEMONIC so each process signs with its own key.`,
    )
  return new ConfigError(
    'Set RELAYER_MNEMONIC or RELAYER_PRIVATE_KEY (keys with ETH for gas), or FACILITATOR_URL, to settle payments.',
  )
}

/**
 * Lease slots whose relayer key a start checks against the payee and the payers: the first 32 (more gateway processes
 * on one database than any deployment runs), besides the slot taken.
 */
const checkedRelayerSlots = 32

/**
 * Refuses a relayer key that is also the payee (PAY_TO, or the devnet's default payee) or a payer the devnet banner
 * prints: those accounts send transactions of their own, so the relayer's counted nonces go stale ("nonce too low")
 * and settlements fail. A mnemonic gives a key to any slot a process may take, so the first
 * {@link checkedRelayerSlots} slots and the one taken are checked, not the taken one alone.
 */
function assertRelayersOwnKeys(parameters: {
  config: Config
  settlement: Settlement
  relayers: (slot: number) => LocalAccount | undefined
  slot: number
}): void {
  const { config, settlement, relayers, slot } = parameters
  const reserved = new Map<string, string>([
    ...payerIndexes.map(
      (index) =>
        [
          account({ index }).address.toLowerCase(),
          `a payer the devnet banner prints (test account #${index})`,
        ] as const,
    ),
    [
      settlement.terms.payTo.toLowerCase(),
      config.payTo ? 'the payee (PAY_TO)' : "the devnet's default payee (test account #0)",
    ],
  ])
  for (const checked of new Set([...Array.from({ length: checkedRelayerSlots }, (_, index) => index), slot])) {
    const relayer = relayers(checked)
    const role = relayer && reserved.get(relayer.address.toLowerCase())
    if (!relayer || !role) continue
    const [source, remedy] = config.relayerMnemonic
      ? [
          `RELAYER_MNEMONIC's key for lease slot ${checked} (m/44'/60'/0'/0/${checked})`,
          "set RELAYER_MNEMONIC to a mnemonic of the relayers' own (a new one; fund its keys with ETH for gas)",
        ]
      : config.relayerPrivateKey
        ? ["RELAYER_PRIVATE_KEY's address", "set RELAYER_PRIVATE_KEY to a key of the relayer's own, with ETH for gas"]
        : [
            `The devnet relayer of lease slot ${checked} (test account #${devnetRelayerIndex(checked)})`,
            'set PAY_TO to another address',
          ]
    throw new StartError({
      code: 'relayer_not_own',
      message: `${source}, ${relayer.address}, is ${role}, which sends transactions of its own: their nonces would collide ("nonce too low"); ${remedy}.`,
    })
  }
}

/** The limits on Redis at `url`, connected now: an unreachable Redis fails the start, in one line. */
async function redisLimiterOf(url: string, closers: (() => Promise<unknown>)[]): Promise<Limiter> {
  const client = new RedisClient(url)
  closers.push(async () => client.close())
  try {
    await client.connect()
  } catch (error) {
    throw new StartError({
      code: 'redis_unreachable',
      message: `Redis at REDIS_URL (${hostOf(url)}) is unreachable: ${oneLine(error)}. Start Redis or fix REDIS_URL.`,
      cause: error,
    })
  }
  return redisLimiter({ client })
}

async function openStorage(
  config: Config,
  closers: (() => Promise<unknown>)[],
): Promise<{ ledger: Ledger; store: Store; queue: Queue; limiter: Limiter }> {
  if (config.databaseUrl) {
    const sql = postgresJs(config.databaseUrl, { max: 10, onnotice: () => {} })
    closers.push(() => sql.end())
    try {
      await sql`select 1`
    } catch (error) {
      throw new StartError({
        code: 'database_unreachable',
        message: `The database at DATABASE_URL (${hostOf(config.databaseUrl)}) is unreachable: ${oneLine(error)}. Start PostgreSQL or fix DATABASE_URL.`,
        cause: error,
      })
    }
    const storage = {
      ledger: postgresLedger({ sql }),
      store: postgresStore({ sql }),
      queue: postgresQueue({ sql }),
      limiter: postgresLimiter({ sql }),
    }
    closers.push(
      () => storage.ledger.close(),
      () => storage.store.close(),
      () => storage.queue.close(),
    )
    return storage
  }
  mkdirSync(config.dataDir, { recursive: true })
  const storage = {
    // The store's file holds the outbox: a settlement's `payment.settled` commits with its confirmation.
    ledger: sqliteLedger({ path: join(config.dataDir, 'ledger.sqlite'), outbox: join(config.dataDir, 'store.sqlite') }),
    store: sqliteStore({ path: join(config.dataDir, 'store.sqlite') }),
    // The store's file: a write and the work it enqueues commit together.
    queue: sqliteQueue({ path: join(config.dataDir, 'store.sqlite') }),
    // The limits of this process alone: processes sharing a DATA_DIR share them only through REDIS_URL.
    limiter: memoryLimiter(),
  }
  closers.push(
    () => storage.ledger.close(),
    () => storage.store.close(),
    () => storage.queue.close(),
  )
  return storage
}

/** Collection and id of the record that names the chain every other record belongs to. */
const chainRecord = { collection: 'gateway', id: 'chain' } as const

/**
 * Refuses to start when the store's records belong to another chain than the one configured: the chain's genesis
 * hash is recorded beside the records at the first start and compared at every start after it.
 */
async function assertRecordsOfChain(parameters: {
  config: Config
  store: Store
  client: PublicClient
  where: string
}): Promise<void> {
  const { config, store, client, where } = parameters
  const genesis = (await client.getBlock({ blockNumber: 0n })).hash
  const inserted = await store.insert({
    ...chainRecord,
    owners: [],
    value: { genesis, network: config.network },
    createdAt: new Date(),
  })
  if (inserted.ok) return
  const recorded = (await store.get<{ genesis: Hex }>(chainRecord.collection, chainRecord.id))?.value.genesis
  if (recorded === genesis) return
  const records = config.databaseUrl ? `DATABASE_URL (${hostOf(config.databaseUrl)})` : `DATA_DIR ${config.dataDir}`
  const remedy = config.rpcUrl
    ? 'point RPC_URL at the chain those records belong to'
    : config.devnetPersist
      ? 'restore the devnet journal that held it'
      : 'set DEVNET_PERSIST=true so that the devnet keeps its chain'
  throw new StartError({
    code: 'records_of_other_chain',
    message: `${records} holds records of chain ${recorded}, but the chain at ${where} has genesis ${genesis}; ${remedy}, or start with ${config.databaseUrl ? 'another database' : 'an empty DATA_DIR'}.`,
  })
}

/** Host and port of a URL that may carry credentials or a key, for messages; never the rest of it. */
function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'an unparsable URL'
  }
}

/** Why a connection failed, on one line: the system error code when there is one (viem and postgres messages span several lines). */
function oneLine(error: unknown): string {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const { code } = cause as { code?: unknown }
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  }
  const { shortMessage, message } = error as { shortMessage?: string; message?: string }
  return (shortMessage ?? message ?? String(error)).split('\n')[0]!.replace(/\.$/, '')
}
