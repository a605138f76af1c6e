import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import postgresJs from 'postgres'
import { type Address, type Chain, type PublicClient, type Transport, createPublicClient, http as httpTransport } from 'viem'
import { type LocalAccount, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { devnet } from '../adapters/chain/devnet.js'
import { local } from '../adapters/facilitator/local.js'
import { remote } from '../adapters/facilitator/remote.js'
import { postgres as postgresLedger } from '../adapters/ledger/postgres.js'
import { sqlite as sqliteLedger } from '../adapters/ledger/sqlite.js'
import { postgres as postgresStore } from '../adapters/store/postgres.js'
import { sqlite as sqliteStore } from '../adapters/store/sqlite.js'
import { escrowChain } from '../adapters/chain/escrow.js'
import { transfers } from '../adapters/chain/transfers.js'
import { batchChain } from '../adapters/chain/batch.js'
import { libsecp256k1 } from '../adapters/crypto/libsecp256k1.js'
import type { BatchChain } from '../core/BatchChain.js'
import { horizon } from '../adapters/stellar/horizon.js'
import { rippled } from '../adapters/xrp/rippled.js'
import type { Store } from '../core/Store.js'
import { eip1193 } from '../adapters/rpc/eip1193.js'
import { http } from '../adapters/rpc/http.js'
import { openai } from '../adapters/upstream/openai.js'
import type { Facilitator } from '../core/Facilitator.js'
import type { Ledger } from '../core/Ledger.js'
import type * as Rpc from '../core/Rpc.js'
import { ConfigError, type Config } from './config.js'
import { type PaymentTerms, toDomain } from '../core/PaymentTerms.js'
import { createGateway } from './gateway.js'
import type { Onchain } from './modules.js'
import { scan } from '../modules/invoice/index.js'
import type { Logger } from './log.js'
import { processLease } from './payment/lease.js'
import { reconcile } from './payment/reconcile.js'
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
  const { config, logger } = parameters
  const closers: (() => Promise<unknown>)[] = []

  const settlement = config.rpcUrl ? await rpcChain(config) : await embeddedDevnet(config)
  closers.push(settlement.close)
  const terms = settlement.terms

  const storage = openStorage(config, closers)
  const ledger = parameters.ledger ?? storage.ledger
  const lease = await processLease({ ledger, logger })
  // Closed before the ledger (closers run in reverse): a clean stop removes the lease.
  closers.push(() => lease.stop())
  const configured = config.facilitatorUrl
    ? remote({ url: config.facilitatorUrl, client: settlement.client })
    : relayerFacilitator(config, settlement, lease.slot)
  const facilitator = parameters.facilitator?.(configured) ?? configured
  const books = { ledger, facilitator, domain: toDomain(terms), logger, store: storage.store, lease, settlementTimeoutMs: config.settlementTimeoutMs }

  await reconcile(books)
  const recoverPublicKey = await libsecp256k1()
  logger.log('info', 'signature_recovery', { implementation: recoverPublicKey ? 'libsecp256k1 (native)' : 'pure JS' })

  const onchain: Onchain = {
    chainId: settlement.chain.id,
    transfers: transfers({ client: settlement.client }),
    escrow: settlement.escrow ? escrowChain({ client: settlement.client, address: settlement.escrow, chainId: settlement.chain.id }) : undefined,
    tokens: [{ symbol: 'USDC', address: terms.asset.address, decimals: terms.asset.decimals }],
  }
  const gateway = createGateway({
    config,
    terms,
    logger,
    chains: [settlement.endpoint],
    store: storage.store,
    onchain,
    sessionSecret: config.sessionSecret ?? crypto.randomUUID() + crypto.randomUUID(),
    payment: {
      ledger,
      facilitator,
      lease,
      secret: config.mppSecret ?? crypto.randomUUID() + crypto.randomUUID(),
      recoverPublicKey,
      settlementTimeoutMs: config.settlementTimeoutMs,
    },
    batch: { base: settlement.batch, ...(config.peaq ? { peaq: peaqBatch(config.peaq) } : {}) },
    stellar: config.stellar ? horizon(config.stellar) : undefined,
    xrp: config.rippledUrl ? rippled({ url: config.rippledUrl }) : undefined,
    inference: {
      chat: inferenceOf(config.chatUpstream, 'the chat upstream'),
      decentralized: inferenceOf(config.decentralizedUpstream, 'the decentralized-inference upstream'),
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
      { name: 'reconcile-ledger', run: () => reconcile(books) },
      { name: 'scan-invoices', run: () => scan({ store: storage.store, ...onchain }) },
    ],
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
    /** Wraps the configured facilitator (tests: a slow or failing chain). */
    facilitator?: ((configured: Facilitator) => Facilitator) | undefined
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
    /** The embedded devnet, when no RPC URL is configured. */
    devnet: devnet.Devnet | undefined
    /** Work to run every minute; each job is safe to run on several processes at once. */
    jobs: { name: string; run: () => Promise<unknown> }[]
    /** Stops the devnet and closes the ledger. */
    close: () => Promise<void>
  }
}

/** The OpenAI-compatible adapter and limits of a configured upstream. */
function inferenceOf(upstream: Config['chatUpstream'], name: string) {
  if (!upstream) return undefined
  return {
    upstream: openai({ name, baseUrl: upstream.url, apiKey: upstream.key }),
    models: upstream.models,
    maxTokens: upstream.maxTokens,
  }
}

type Settlement = {
  terms: PaymentTerms
  endpoint: Rpc.Endpoint
  client: PublicClient
  chain: Chain
  transport: Transport
  devnet: devnet.Devnet | undefined
  escrow: Address | undefined
  batch: BatchChain
  close: () => Promise<void>
}

async function embeddedDevnet(config: Config): Promise<Settlement> {
  const chainId = Number(config.network.split(':')[1])
  const chain = await devnet({ chainId, rpcUrl: `http://127.0.0.1:${config.devnetRpcPort}` })
  const terms = termsOf(config)
  if (terms.asset.address !== chain.token.address)
    throw new Error(`The devnet token is at ${chain.token.address}, discovery expected ${terms.asset.address}.`)
  return {
    terms,
    endpoint: eip1193({ name: 'devnet', chainId, request: (method, params) => chain.request(method, params) }),
    client: chain.publicClient as PublicClient,
    chain: chain.chain,
    transport: chain.transport,
    devnet: chain,
    escrow: chain.escrow.address,
    batch: batchChain({
      client: chain.publicClient as PublicClient,
      address: chain.batch.address,
      chainId,
      tokens: Object.fromEntries(Object.entries(chain.tokens).map(([symbol, token]) => [symbol, token.address])),
    }),
    close: () => chain.close(),
  }
}

async function rpcChain(config: Config): Promise<Settlement> {
  const chainId = Number(config.network.split(':')[1])
  if (chainId !== base.id)
    throw new ConfigError(`RPC_URL is supported for Base (eip155:${base.id}); ${config.network} runs on the embedded devnet.`)
  if (!config.mppSecret) throw new ConfigError('MPP_SECRET is required on Base: the same value on every gateway process.')
  if (!config.sessionSecret) throw new ConfigError('SESSION_SECRET is required on Base: the same value on every gateway process.')
  const transport = httpTransport(config.rpcUrl, { retryCount: 0 })
  const client = createPublicClient({ chain: base, transport }) as PublicClient
  return {
    terms: termsOf(config),
    endpoint: http({ name: 'base', chainId, url: config.rpcUrl! }),
    client,
    chain: base,
    transport,
    devnet: undefined,
    escrow: undefined,
    batch: batchChain({ client, address: baseBatchContract, chainId, tokens: baseTokens }),
    close: async () => {},
  }
}

/** The batch-payment contract deployed on Base; ours on the devnet has the same ABI. */
const baseBatchContract = '0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC'

/** The ERC-20s batch payments accept on Base by symbol. */
const baseTokens = {
  USDC: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  USDT: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2',
  EURC: '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42',
  DAI: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb',
  WETH: '0x4200000000000000000000000000000000000006',
} as const

/** EIP-155 chain id of peaq. */
const peaqChainId = 3338

function peaqBatch(peaq: NonNullable<Config['peaq']>): BatchChain {
  const client = createPublicClient({ transport: httpTransport(peaq.rpcUrl, { retryCount: 0 }) }) as PublicClient
  return batchChain({ client, address: peaq.batchContract, chainId: peaqChainId, tokens: { USDC: peaq.usdc } })
}

/**
 * The local facilitator with this process's relayer key. Each process needs its own key, or their transaction
 * nonces collide: from RELAYER_MNEMONIC the key at the process's lease slot; RELAYER_PRIVATE_KEY serves one process.
 */
function relayerFacilitator(config: Config, settlement: Settlement, slot: number): Facilitator {
  const relayer = relayerOf(config, settlement, slot)
  return local({
    client: settlement.client,
    relayer,
    chain: settlement.chain,
    transport: settlement.transport,
    batchWindowMs: config.settlementWindowMs ?? (settlement.devnet ? 5 : 2_000),
  })
}

function relayerOf(config: Config, settlement: Settlement, slot: number): LocalAccount {
  if (config.relayerMnemonic) return mnemonicToAccount(config.relayerMnemonic, { addressIndex: slot })
  if (config.relayerPrivateKey) {
    if (slot > 0)
      throw new ConfigError(
        'RELAYER_PRIVATE_KEY is one key, and another live gateway process on this database already uses it; set RELAYER_MNEMONIC so each process signs with its own key.',
      )
    return privateKeyToAccount(config.relayerPrivateKey)
  }
  const index = devnetRelayerIndex(slot)
  const devnetKey = index === undefined ? undefined : settlement.devnet?.accounts[index]?.privateKey
  if (devnetKey) return privateKeyToAccount(devnetKey)
  throw new ConfigError('Set RELAYER_MNEMONIC or RELAYER_PRIVATE_KEY (keys with ETH for gas), or FACILITATOR_URL, to settle payments.')
}

function openStorage(config: Config, closers: (() => Promise<unknown>)[]): { ledger: Ledger; store: Store } {
  if (config.databaseUrl) {
    const sql = postgresJs(config.databaseUrl, { max: 10, onnotice: () => {} })
    closers.push(() => sql.end())
    const storage = { ledger: postgresLedger({ sql }), store: postgresStore({ sql }) }
    closers.push(() => storage.ledger.close(), () => storage.store.close())
    return storage
  }
  mkdirSync(config.dataDir, { recursive: true })
  const storage = {
    ledger: sqliteLedger({ path: join(config.dataDir, 'ledger.sqlite') }),
    store: sqliteStore({ path: join(config.dataDir, 'store.sqlite') }),
  }
  closers.push(() => storage.ledger.close(), () => storage.store.close())
  return storage
}
