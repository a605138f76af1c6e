import type { Static } from '@sinclair/typebox'
import { type Address, createPublicClient, type Hex, http as httpTransport, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base, mainnet } from 'viem/chains'
import { across } from '../adapters/bridge/across.js'
import { lifi } from '../adapters/bridge/lifi.js'
import { agentWalletChain } from '../adapters/chain/agentWallet.js'
import { batchChain } from '../adapters/chain/batch.js'
import { account, contracts, devPriceFeeds } from '../adapters/chain/devnet.js'
import { ens } from '../adapters/chain/ens.js'
import { arbiterIndex, escrowArbiter, escrowChain } from '../adapters/chain/escrow.js'
import { futuresOperatorIndex, futuresTreasury } from '../adapters/chain/futures.js'
import { feedOracle } from '../adapters/chain/oracle.js'
import { baseFeeds, baseFiatFeeds, priceFeeds } from '../adapters/chain/priceFeeds.js'
import { simulator } from '../adapters/chain/safety.js'
import { transfers } from '../adapters/chain/transfers.js'
import { walletDeployerIndex } from '../adapters/chain/wallet.js'
import { openai as computeOpenai } from '../adapters/compute/openai.js'
import { replicate } from '../adapters/compute/replicate.js'
import { readability } from '../adapters/extract/readability.js'
import { frankfurter } from '../adapters/fx/frankfurter.js'
import { blockscout } from '../adapters/history/blockscout.js'
import { indexer } from '../adapters/history/indexer.js'
import { smtp } from '../adapters/notify/smtp.js'
import { twilio } from '../adapters/notify/twilio.js'
import { outbound } from '../adapters/outbound/fetch.js'
import { coingecko } from '../adapters/pricing/coingecko.js'
import { defillama } from '../adapters/pricing/defillama.js'
import { arxiv } from '../adapters/research/arxiv.js'
import { biorxiv } from '../adapters/research/biorxiv.js'
import { census } from '../adapters/research/census.js'
import { ckan } from '../adapters/research/ckan.js'
import { crossref } from '../adapters/research/crossref.js'
import { dictionary } from '../adapters/research/dictionary.js'
import { openalex } from '../adapters/research/openalex.js'
import { pubchem } from '../adapters/research/pubchem.js'
import { pubmed } from '../adapters/research/pubmed.js'
import { http } from '../adapters/rpc/http.js'
import { brave } from '../adapters/search/brave.js'
import { exa } from '../adapters/search/exa.js'
import { tavily } from '../adapters/search/tavily.js'
import { das } from '../adapters/solana/das.js'
import { solanaFuturesTreasury } from '../adapters/solana/futures.js'
import { hermes } from '../adapters/solana/hermes.js'
import { jupiter } from '../adapters/solana/jupiter.js'
import { solanaRpc } from '../adapters/solana/rpc.js'
import { blockscoutSource } from '../adapters/source/blockscout.js'
import { sourcify } from '../adapters/source/sourcify.js'
import { horizon } from '../adapters/stellar/horizon.js'
import { embedded } from '../adapters/storage/embedded.js'
import { kubo } from '../adapters/storage/kubo.js'
import { pinata } from '../adapters/storage/pinata.js'
import { pinningService } from '../adapters/storage/pinningService.js'
import { openai } from '../adapters/upstream/openai.js'
import { goplus } from '../adapters/vendor/goplus.js'
import { zerox } from '../adapters/vendor/zerox.js'
import { rippled } from '../adapters/xrp/rippled.js'
import type { BatchChain } from '../core/BatchChain.js'
import * as Catalog from '../core/Catalog.js'
import type { Direct, Predictions } from '../core/Compute.js'
import * as Compute from '../core/Compute.js'
import { events } from '../core/Events.js'
import type { Facilitator } from '../core/Facilitator.js'
import type { Ledger } from '../core/Ledger.js'
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
import type { Config } from './config.js'
import { openStorage } from './database.js'
import { createGateway } from './gateway.js'
import type { Logger } from './log.js'
import { metrics } from './metrics.js'
import { processLease } from './payment/lease.js'
import { reconcile } from './payment/reconcile.js'
import { settlersOf, signersOf } from './relayer.js'
import { assertRecordsOfChain, openSettlement, type Settlement } from './settlement.js'

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
  const storage = await openStorage({ config, closers, ledger: parameters.ledger })
  const { ledger, limiter } = storage
  const settlement = await openSettlement(config)
  closers.push(settlement.close)
  const terms = settlement.terms
  await assertRecordsOfChain({ config, store: storage.store, client: settlement.client, where: settlement.where })

  const lease = await processLease({ ledger, logger, ...parameters.lease })
  // Closed before the ledger (closers run in reverse): a clean stop removes the lease.
  closers.push(() => lease.stop())
  const settlers = await settlersOf({ config, settlement, lease, logger })
  const facilitator = parameters.facilitator?.(settlers.facilitator) ?? settlers.facilitator
  const upto = settlers.upto
  // The ledger's confirmations and the stores' writes record their events in the queue of the shared database.
  const outbox = events({
    queue: storage.queue,
    wanted: Webhooks.subscriptions(storage.store),
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
  const signers = await signersOf({ config, settlement, store: storage.store, ledger, lease, logger })
  const { recoverPublicKey, channels: paymentChannels, solana: solanaPayments } = signers

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
      receipts: signers.receipts,
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
    devnet: Settlement['devnet']
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

/** EIP-155 chain id of peaq. */
const peaqChainId = 3338

function peaqBatch(peaq: NonNullable<Config['peaq']>): BatchChain {
  const client = createPublicClient({ transport: httpTransport(peaq.rpcUrl, { retryCount: 0 }) }) as PublicClient
  return batchChain({ client, address: peaq.batchContract, chainId: peaqChainId, tokens: { USDC: peaq.usdc } })
}
