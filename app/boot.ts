import { events } from '../core/Events.js'
import type { Facilitator } from '../core/Facilitator.js'
import type { Ledger } from '../core/Ledger.js'
import type * as Module from '../core/Module.js'
import { type PaymentTerms, toDomain } from '../core/PaymentTerms.js'
import type { AnyProvider } from '../core/Provider.js'
import type { Queue } from '../core/Queue.js'
import type { Store } from '../core/Store.js'
import * as Webhooks from '../core/Webhooks.js'
import type { Config } from './config.js'
import { openStorage } from './database.js'
import { createGateway } from './gateway.js'
import type { Logger } from './log.js'
import { metrics } from './metrics.js'
import { processLease } from './payment/lease.js'
import { reconcile } from './payment/reconcile.js'
import { settlement as settlementService } from './payment/settlement.js'
import { providers as defaultProviders, type Shared, vendorHealth } from './providers.js'
import { settlersOf, signersOf } from './relayer.js'
import { assertRecordsOfChain, openSettlement, type Settlement } from './settlement.js'

/**
 * Builds the gateway the configuration describes: it chooses the storage (SQLite in DATA_DIR or PostgreSQL), the
 * settlement chain (the embedded devnet or an RPC chain) and who settles (the relayer or a remote facilitator), then
 * builds every port from the providers' list and mounts the families. Reconciles the ledger before serving.
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
  const { config, providers = defaultProviders } = parameters
  // One set of metrics for the process: reconciliation and settlement count through the same logger as requests.
  const meter = metrics({ upstreams: vendorHealth })
  const logger = meter.observing(parameters.logger)
  // Storage first: an unreachable database fails the start before the devnet replays its journal.
  const storage = await openStorage({ config, closers, ledger: parameters.ledger })
  const { ledger, queue, limiter } = storage
  const store = parameters.store?.(storage.store) ?? storage.store
  const settlement = await openSettlement(config)
  closers.push(settlement.close)
  const terms = settlement.terms
  await assertRecordsOfChain({ config, store, client: settlement.client, where: settlement.where })

  const lease = await processLease({ ledger, logger, ...parameters.lease })
  // Closed before the ledger (closers run in reverse): a clean stop removes the lease.
  closers.push(() => lease.stop())
  const settlers = await settlersOf({ config, settlement, lease, logger })
  const facilitator = parameters.facilitator?.(settlers.facilitator) ?? settlers.facilitator
  // The ledger's confirmations and the stores' writes record their events in the queue of the shared database.
  const outbox = events({ queue, wanted: Webhooks.subscriptions(store) })
  // The settlement service, once: reconciliation and every paid call settle through it.
  const settlements = settlementService({
    ledger,
    facilitator,
    domain: toDomain(terms),
    logger,
    store,
    events: outbox,
    lease,
    timeoutMs: config.settlementTimeoutMs,
  })
  const books = { settlements, upto: settlers.upto }

  await reconcile(books)
  const signers = await signersOf({ config, settlement, store, ledger, lease, logger })
  const ports = await portsOf({
    providers,
    config,
    shared: { settlement, logger, config },
    own: {
      store,
      queue,
      events: outbox,
      payments: { settled: (payer) => ledger.settled(payer) },
      sessionSecret: config.sessionSecret ?? crypto.randomUUID() + crypto.randomUUID(),
      publicUrl: config.publicUrl,
    },
    given: parameters.ports,
  })
  const gateway = createGateway({
    config,
    terms,
    logger,
    ports,
    providers,
    families: parameters.families,
    metrics: meter,
    limiter,
    payment: {
      ledger,
      facilitator,
      lease,
      secret: config.mppSecret ?? crypto.randomUUID() + crypto.randomUUID(),
      recoverPublicKey: signers.recoverPublicKey,
      settlements,
      channels: signers.channels,
      solana: signers.solana,
      // Sign-in messages of smart wallets (ERC-1271, and ERC-6492 before deployment) are checked on the settlement chain.
      verifyMessage: (message) => settlement.client.verifyMessage(message),
      upto: settlers.upto,
      receipts: signers.receipts,
    },
  })
  const { channels, solana } = signers

  return {
    gateway,
    terms,
    ledger,
    lease,
    store,
    facilitator,
    devnet: settlement.devnet,
    jobs: [
      { name: 'reconcile-ledger', schedule: '* * * * *', run: () => reconcile(books), everyProcess: true },
      ...(channels
        ? [{ name: 'claim-channels', schedule: '* * * * *', run: () => channels.sweep().then(() => undefined) }]
        : []),
      ...(solana
        ? [{ name: 'reconcile-solana', schedule: '* * * * *', run: () => solana.reconcile(), everyProcess: true }]
        : []),
      ...gateway.jobs,
    ],
    queue,
    workers: gateway.workers,
    async close() {
      for (const close of closers.reverse()) await close()
    },
  }
}

/**
 * Every port once: the gateway's own, the deployment's, then each provider's in the list's order, built from its own
 * env slice unless the deployment passed that port (even as `undefined`: absent). One left absent makes its modules
 * unavailable.
 */
async function portsOf(parameters: {
  providers: readonly AnyProvider[]
  config: Config
  shared: Shared
  own: Partial<Module.Ports>
  given: createGateway.Parameters['ports']
}): Promise<Partial<Module.Ports>> {
  const { providers, config, shared, own, given = {} } = parameters
  const ports: Partial<Module.Ports> = { ...own, ...given }
  for (const provider of providers) {
    if (provider.port in given) continue
    const env = config.providers[provider.port]
    if (provider.env && env === undefined)
      throw new Error(
        `The environment of the ${provider.port} provider was not parsed: pass the provider to the configuration's parse.`,
      )
    ports[provider.port as Module.Port] = await provider.build({ env: env ?? {}, shared, ports })
  }
  return ports
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
    /** Wraps the opened store, under every reader and writer of it: modules, journal, take-back (tests: a recorder). */
    store?: ((opened: Store) => Store) | undefined
    /** Ports of the deployment's own, each replacing the one its provider would build (which is then not built). */
    ports?: createGateway.Parameters['ports']
    /** The port providers, built in order; the configuration must have been parsed with them. @default the gateway's own */
    providers?: readonly AnyProvider[]
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
