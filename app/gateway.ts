import type { AnyElysia } from 'elysia'
import * as Catalog from '../core/Catalog.js'
import type * as Channel from '../core/Channel.js'
import type { Ledger } from '../core/Ledger.js'
import type { Limiter } from '../core/Limiter.js'
import type * as Module from '../core/Module.js'
import { type PaymentTerms, toDomain } from '../core/PaymentTerms.js'
import type { AnyProvider } from '../core/Provider.js'
import { deliveryQueue } from '../core/Webhooks.js'
import * as Callback from './callback.js'
import type { Config } from './config.js'
import { bazaar, tagsOf } from './discovery/bazaar.js'
import * as Documents from './discovery/documents.js'
import { enrichment } from './discovery/enrichment.js'
import { type Availability, serviceName } from './discovery/terms.js'
import { elysia } from './elysia.js'
import { health as gatewayHealth } from './health.js'
import { checkedPerClient, failedVerifications, perMinute, unavailableOnFault } from './limits.js'
import type { Logger } from './log.js'
import { metrics as createMetrics, type metrics } from './metrics.js'
import { families as defaultFamilies } from './modules.js'
import { healthPaths, mount } from './mount.js'
import { operator } from './operator.js'
import { deferred } from './payment/deferred.js'
import { guard } from './payment/guard.js'
import { paymentOutcome } from './payment/outcome.js'
import { settlement } from './payment/settlement.js'
import { unconfigured as solanaUnconfigured } from './payment/solana.js'
import { scope } from './scope.js'
import { decentralizedHealth } from './upstream-health.js'

/**
 * Builds the gateway: every catalog entry mounted, discovery generated from the catalog, errors rendered as
 * problem+json. Adapters are passed in; nothing here reads the environment. `main.ts` listens on the result. The
 * families are mounted by `mount`, with no web framework; `elysia` binds the mount, the hooks and these routes.
 */
export function createGateway(parameters: createGateway.Parameters): createGateway.ReturnType {
  const { config, terms, families = defaultFamilies } = parameters
  const startedAt = new Date()
  // Metrics count what the logger is told (refusals, settlements); a caller that brings its own has wrapped its logger.
  const meter = parameters.metrics ?? createMetrics()
  const logger = parameters.metrics ? parameters.logger : meter.observing(parameters.logger)
  const payment = parameters.payment && { ...parameters.payment, ledger: timed(parameters.payment.ledger, meter) }
  if (payment)
    meter.gauge(
      'gateway_payments_outstanding',
      'Payments claimed and not yet settled (the settlement queue), by state.',
      async () =>
        Promise.all(
          (['claimed', 'settling'] as const).map(
            async (state): Promise<[Record<string, string>, number]> => [
              { state },
              (await payment.ledger.list({ state, limit: maxOutstanding })).length,
            ],
          ),
        ),
    )
  // Every port once: the deployment's own, with the session secret random per start unless given.
  const ports: Partial<Module.Ports> = {
    sessionSecret: crypto.randomUUID() + crypto.randomUUID(),
    ...definedOf(parameters.ports ?? {}),
  }
  // Every per-client count, in the engine the deployment shares between its processes (boot picks it).
  const limiter = unavailableOnFault(parameters.limiter)
  const { limits } = config
  const requests = scope()
  if (ports.outbound && limits.urlChecksPerMinute > 0)
    ports.outbound = checkedPerClient({
      outbound: ports.outbound,
      limiter,
      options: perMinute(limits.urlChecksPerMinute),
      clientOf: requests.unpaidClient,
    })
  const failures =
    limits.failedPaymentChecksPerMinute > 0
      ? failedVerifications({ limiter, options: perMinute(limits.failedPaymentChecksPerMinute) })
      : undefined
  if (ports.chains?.length === 0) delete ports.chains
  // The settlement service, once: the deployment's (boot shares it with reconciliation), or built on these books.
  const settlements =
    payment &&
    (payment.settlements ??
      settlement({
        ledger: payment.ledger,
        facilitator: payment.facilitator,
        domain: toDomain(terms),
        lease: payment.lease,
        store: parameters.ports?.store,
        events: parameters.ports?.events,
        logger,
        timeoutMs: payment.settlementTimeoutMs,
      }))
  const payments = settlements
    ? guard({
        terms,
        ...payment,
        settlements,
        logger,
        ruleOf: (entry) => mounted.ruleOf(entry),
        reaccessOf: (entry) => mounted.reaccessOf(entry),
        describe: (url, entry) => ({
          resource: { serviceName, tags: tagsOf(entry), ...(config.iconUrl ? { iconUrl: config.iconUrl } : {}) },
          extensions: bazaar({ entry, url, output: mounted.outputOf(entry) }),
          hints: hintsOf(entry),
        }),
        meterOf: (entry) => mounted.meterOf(entry),
        windowOf: (entry) => mounted.windowOf(entry),
        failures: failures && {
          blockedUntil: (request) => {
            const client = requests.clientOf(request)
            return client === undefined ? undefined : failures.blockedUntil(client)
          },
          record: async (request) => {
            const client = requests.clientOf(request)
            if (client !== undefined) await failures.record(client)
          },
        },
        resourceUrl: (request) => {
          const url = new URL(request.url)
          return `${originOf(url)}${url.pathname}`
        },
      })
    : undefined
  if (settlements && payments) ports.deferred = deferred({ settlements, terms })
  const outcome = payment && ports.store && paymentOutcome({ store: ports.store, ledger: payment.ledger })
  if (outcome) ports.paymentOutcome = outcome
  const defaultLimit = limits.freeEndpointsPerMinute > 0 ? perMinute(limits.freeEndpointsPerMinute) : undefined
  const mounted = mount({
    families,
    ports,
    providers: parameters.providers,
    env: config.modules,
    freeLimit: defaultLimit,
    paid: payments !== undefined,
  })
  const { jobs, workers } = mounted
  // A paid call's callback is delivered by the webhooks family's delivery worker: without it, no call takes one.
  const callbacks =
    outcome && ports.store && ports.queue && ports.outbound && workers.some(({ queue }) => queue === deliveryQueue)
      ? Callback.callbacks({ store: ports.store, queue: ports.queue, outbound: ports.outbound, outcome })
      : undefined
  if (callbacks) workers.push(callbacks.worker)
  // Absolute URLs (discovery documents, payment offers, the MPP realm) take a request's own host only when the
  // operator listed it: a shared cache would otherwise keep links to whatever Host a caller wrote.
  const publicHosts = new Set(config.publicHosts)
  const listenOrigin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`
  function originOf(url: URL): string {
    if (config.publicUrl) return config.publicUrl
    return publicHosts.has(url.host) ? url.origin : listenOrigin
  }
  // What a 402 says to help its caller call again, built once per entry on its first 402 (every route is mounted).
  const hints = new Map<string, Record<string, unknown>>()
  function hintsOf(entry: Catalog.Entry): Record<string, unknown> {
    const key = Catalog.key(entry)
    const known = hints.get(key)
    if (known) return known
    const built = enrichment({ entry, input: bound.inputOf(key) })
    hints.set(key, built)
    return built
  }

  const context = (request: Request): Documents.Context => ({
    baseUrl: originOf(new URL(request.url)),
    terms,
    availability: mounted.availability,
    ruleOf: mounted.ruleOf,
    outputOf: mounted.outputOf,
    inputOf: (entry) => {
      const schemas = bound.inputOf(Catalog.key(entry))
      return schemas && { query: schemas.query, body: schemas.body }
    },
    factsOf: mounted.factsOf,
    solana: payment?.solana
      ? { offered: true, ...payment.solana.terms }
      : {
          offered: false,
          reason:
            (payment ? solanaUnconfigured(config.solanaPay) : 'No payment settlement is configured.') ??
            'Solana payments are not offered on this gateway.',
        },
    reaccess: (entry) => payments !== undefined && mounted.reaccessOf(entry) !== undefined,
    channels: channelsOffered(payment?.channels),
    callbacks: callbacks
      ? { offered: true, field: Callback.field, event: Callback.eventType, description: Callback.description }
      : { offered: false, reason: Callback.unserved },
    limitOf: (entry) => mounted.limitOf(Catalog.key(entry)),
    now: new Date(),
    receiptSigner: payment?.receipts?.address,
  })
  const health = (request: Request) =>
    decentralizedHealth({ upstream: ports.decentralized, baseUrl: originOf(new URL(request.url)) })
  const bound = elysia({
    config,
    mounted,
    payments,
    callbacks,
    limiter,
    scope: requests,
    metrics: meter,
    logger,
    own: {
      ...Object.fromEntries(healthPaths.map((path) => [path, health])),
      '/': (request) => Documents.overview(context(request)),
      '/openapi.json': (request) => Documents.openapi(context(request)),
      '/.well-known/x402.json': (request) => Documents.manifest(context(request)),
      '/llms.txt': (request) =>
        new Response(Documents.llmsText(context(request)), {
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        }),
      '/free': (request) => Documents.freeTier(context(request)),
      '/health': () =>
        gatewayHealth({ availability: mounted.availability, network: terms.network, startedAt, now: new Date() }),
    },
    plugins: [
      operator({
        config,
        metrics: meter,
        ledger: payment?.ledger,
        availability: mounted.availability,
        handle: (request) => bound.handle(request),
        origin: (request) => originOf(new URL(request.url)),
        limiter,
        clientOf: (request) => requests.clientOf(request) ?? 'in-process',
      }),
    ],
  })
  return {
    app: bound.app,
    handle: bound.handle,
    availability: mounted.availability,
    jobs,
    metrics: meter,
    workers,
  }
}

/** `ledger` with the time of every claim counted. */
function timed(ledger: Ledger, meter: metrics.ReturnType): Ledger {
  return {
    ...ledger,
    async claim(claim) {
      const started = performance.now()
      try {
        return await ledger.claim(claim)
      } finally {
        meter.claim((performance.now() - started) / 1000)
      }
    },
  }
}

/** The entries of `record` whose value is not `undefined`: an absent port stays absent. */
function definedOf<value extends object>(record: value): Partial<value> {
  return Object.fromEntries(Object.entries(record).filter(([, entry]) => entry !== undefined)) as Partial<value>
}

export declare namespace createGateway {
  type Parameters = {
    /** Parsed configuration. */
    config: Config
    /** Network, asset and payee of every paid offer. */
    terms: PaymentTerms
    /**
     * The ports modules may use, each built once by the caller: a deployment's own implementation of any port
     * replaces the default. A module that needs an absent one is not mounted; its paths answer 503 with the reason.
     */
    ports?: { [port in Module.Port]?: Module.Ports[port] | undefined } | undefined
    /** The providers whose descriptions name a port a module lacks. @default the gateway's own */
    providers?: readonly AnyProvider[] | undefined
    /** Payment settlement; without it every paid endpoint is unavailable (nothing is ever charged). */
    payment?:
      | (Omit<
          guard.Parameters,
          'terms' | 'logger' | 'resourceUrl' | 'ruleOf' | 'meterOf' | 'windowOf' | 'failures' | 'settlements'
        > &
          Pick<settlement.Parameters, 'ledger' | 'facilitator' | 'lease'> & {
            /** How long a caller waits for its settlement before it is told `settlement_pending`, in ms. @default 15_000 */
            settlementTimeoutMs?: number | undefined
            /** The settlement service, when the deployment built it (boot). @default built on these books */
            settlements?: settlement.ReturnType | undefined
          })
      | undefined
    /** The endpoint families to mount, in order (a custom deployment, a test). @default the gateway's own */
    families?: readonly Module.AnyModule[] | undefined
    /** Where events go. */
    logger: Logger
    /** Metrics to count into, with `logger` already counting through it (boot). @default new metrics, `logger` wrapped */
    metrics?: metrics.ReturnType | undefined
    /** Where per-client limits are counted, shared by the deployment's processes (a lone process: `memory()` of adapters/limiter). */
    limiter: Limiter
  }
  type ReturnType = {
    /** The Elysia app (for `listen`). */
    app: AnyElysia
    /** Answers one request in process. */
    handle: (request: Request) => Promise<Response>
    /** Availability of an entry on this gateway. */
    availability: (entry: Catalog.Entry) => Availability
    /** Background jobs of the mounted modules, for the job runner. */
    jobs: Job[]
    /** The gateway's metrics (`/metrics`, the dashboard). */
    metrics: metrics.ReturnType
    /** Queue workers of the mounted modules, for the worker runner. */
    workers: Worker[]
  }
  /** A queue worker of a mounted module, for the worker runner. */
  type Worker = mount.Worker
  /** A background job of a mounted module, for the job runner. */
  type Job = mount.Job
}

/** Most outstanding payments the metrics count per state. */
const maxOutstanding = 10_000

/** Payment channels as discovery lists them: their terms, or why this gateway does not offer them. */
function channelsOffered(offered: { terms: Channel.Terms } | undefined): Documents.Context['channels'] {
  return offered
    ? { offered: true, ...offered.terms }
    : {
        offered: false,
        reason:
          'Payment channels (x402 batch-settlement) need a receiver authorizer: set CHANNEL_AUTHORIZER_PRIVATE_KEY (on a devnet a test account serves).',
      }
}
