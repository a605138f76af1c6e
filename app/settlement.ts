import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Address,
  type Chain,
  createPublicClient,
  type Hex,
  http as httpTransport,
  type PublicClient,
  type Transport,
} from 'viem'
import { base } from 'viem/chains'
import { batchChain } from '../adapters/chain/batch.js'
import { contracts, devnet, devnetChain } from '../adapters/chain/devnet.js'
import { eip1193 } from '../adapters/rpc/eip1193.js'
import { http } from '../adapters/rpc/http.js'
import type { BatchChain } from '../core/BatchChain.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import type * as Rpc from '../core/Rpc.js'
import type { Store } from '../core/Store.js'
import * as TokenList from '../core/TokenList.js'
import { type Config, ConfigError } from './config.js'
import { hostOf, oneLine, StartError } from './startup.js'
import { terms as termsOf } from './terms.js'

/** The settlement chain boot chose: the embedded devnet, a devnet of ours at RPC_URL, or Base at RPC_URL. */
export type Settlement = {
  /** Network, asset and payee of every offer. */
  terms: PaymentTerms
  /** Its node, as RPC forwarding reads it. */
  endpoint: Rpc.Endpoint
  /** Its public client. */
  client: PublicClient
  /** Its viem chain. */
  chain: Chain
  /** The transport wallets on it send through. */
  transport: Transport
  /** The embedded devnet, when no RPC URL is configured. */
  devnet: devnet.Devnet | undefined
  /** A devnet of ours, embedded or reached over RPC_URL: its funded test accounts relay and blocks mine at once. */
  isDevnet: boolean
  /** Our escrow contract, on a devnet of ours. */
  escrow: Address | undefined
  /** The batch-payment contract. */
  batch: BatchChain
  /** Where the chain is, for messages; never the RPC URL itself, which may carry a key. */
  where: string
  /** Stops the embedded devnet (releasing its journal). */
  close: () => Promise<void>
}

/** The chain the configuration names: the one at RPC_URL, else the embedded devnet. */
export function openSettlement(config: Config): Promise<Settlement> {
  return config.rpcUrl ? rpcChain(config) : embeddedDevnet(config)
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

/** Collection and id of the record that names the chain every other record belongs to. */
const chainRecord = { collection: 'gateway', id: 'chain' } as const

/**
 * Refuses to start when the store's records belong to another chain than the one configured: the chain's genesis
 * hash is recorded beside the records at the first start and compared at every start after it.
 */
export async function assertRecordsOfChain(parameters: {
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

/** The batch-payment contract deployed on Base; ours on the devnet has the same ABI. */
const baseBatchContract = '0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC'
