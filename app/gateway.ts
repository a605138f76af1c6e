import { AsyncLocalStorage } from 'node:async_hooks'
import { Kind, type TSchema } from '@sinclair/typebox'
import { type AnyElysia, Elysia, ValidationError as ElysiaValidationError } from 'elysia'
import { memory as memoryLimiter } from '../adapters/limiter/memory.js'
import * as Catalog from '../core/Catalog.js'
import type * as Channel from '../core/Channel.js'
import * as ClientAddress from '../core/ClientAddress.js'
import {
  BaseError,
  MalformedJsonError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UpstreamUnavailableError,
  type ValidationError,
} from '../core/Errors.js'
import { echo } from '../core/internal/echo.js'
import type { Ledger } from '../core/Ledger.js'
import type { Limiter } from '../core/Limiter.js'
import type * as Module from '../core/Module.js'
import type * as Outbound from '../core/Outbound.js'
import { type PaymentTerms, toDomain } from '../core/PaymentTerms.js'
import type { AnyProvider } from '../core/Provider.js'
import { deliveryQueue } from '../core/Webhooks.js'
import { exceedsDeclaredLength, readJson, readText } from './body.js'
import * as Callback from './callback.js'
import type { Config } from './config.js'
import * as Cors from './cors.js'
import { bazaar, tagsOf } from './discovery/bazaar.js'
import * as Documents from './discovery/documents.js'
import { enrichment } from './discovery/enrichment.js'
import { type Availability, serviceName } from './discovery/terms.js'
import { fromFault } from './fault.js'
import { oversized } from './head.js'
import { health } from './health.js'
import * as Input from './input.js'
import {
  carriesPayment,
  failedVerifications,
  perMinute,
  retryAfterSeconds,
  unavailableOnFault,
  unpaidConcurrency,
} from './limits.js'
import { describeError, type Logger } from './log.js'
import { metrics as createMetrics, type metrics } from './metrics.js'
import { families as defaultFamilies } from './modules.js'
import { assertCoverage, callbackPrefix, canonicalUrlOf, healthPaths, mount } from './mount.js'
import { operator } from './operator.js'
import { deferred } from './payment/deferred.js'
import { journaled } from './payment/effects.js'
import { guard } from './payment/guard.js'
import { settlement } from './payment/settlement.js'
import { unconfigured as solanaUnconfigured } from './payment/solana.js'
import * as Problem from './problem.js'
import * as RequestId from './request-id.js'
import { decentralizedHealth } from './upstream-health.js'

/**
 * Builds the gateway: every catalog entry mounted, discovery generated from the catalog, errors rendered as
 * problem+json. Adapters are passed in; nothing here reads the environment. `main.ts` listens on the result.
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
  // When each request started, for its latency, and the route pattern it matched, for its metrics.
  const entered = new WeakMap<Request, { at: number; route: string | undefined }>()
  // Every port once: the deployment's own, with the session secret random per start unless given.
  const ports: Partial<Module.Ports> = {
    sessionSecret: crypto.randomUUID() + crypto.randomUUID(),
    ...definedOf(parameters.ports ?? {}),
  }
  if (ports.store) ports.store = journaled(ports.store)
  // Every per-client count, in the engine the deployment shares between its processes (boot picks it).
  const limiter = unavailableOnFault(parameters.limiter ?? memoryLimiter())
  const { limits } = config
  // The client each request counts against, and the request being handled (for the ports that count per client).
  const clients = new WeakMap<Request, string>()
  const current = new AsyncLocalStorage<Request>()
  // Requests not yet past the payment hook: what they do is done unpaid.
  const unpaid = new WeakSet<Request>()
  if (ports.outbound && limits.urlChecksPerMinute > 0) ports.outbound = checkedPerClient(ports.outbound)
  const failures =
    limits.failedPaymentChecksPerMinute > 0
      ? failedVerifications({ limiter, options: perMinute(limits.failedPaymentChecksPerMinute) })
      : undefined
  const concurrency =
    limits.unpaidConcurrencyPerClient > 0 ? unpaidConcurrency({ cap: limits.unpaidConcurrencyPerClient }) : undefined
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
          resource: {
            serviceName,
            tags: tagsOf(entry),
            ...(config.iconUrl ? { iconUrl: config.iconUrl } : {}),
          },
          extensions: bazaar({ entry, url, output: mounted.outputOf(entry) }),
          hints: hintsOf(entry),
        }),
        meterOf: (entry) => mounted.meterOf(entry),
        windowOf: (entry) => mounted.windowOf(entry),
        failures: failures && {
          blockedUntil: (request) => {
            const client = clients.get(request)
            return client === undefined ? undefined : failures.blockedUntil(client)
          },
          record: async (request) => {
            const client = clients.get(request)
            if (client !== undefined) await failures.record(client)
          },
        },
        resourceUrl: (request) => {
          const url = new URL(request.url)
          return `${originOf(url)}${url.pathname}`
        },
      })
    : undefined
  if (settlements && payments) ports.deferred = deferred({ payments, settlements, terms })
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
  // Absolute URLs (discovery documents, payment offers, the MPP realm) take a request's own host only when the
  // operator listed it: a shared cache would otherwise keep links to whatever Host a caller wrote.
  const publicHosts = new Set(config.publicHosts)
  const listenOrigin = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`
  function originOf(url: URL): string {
    if (config.publicUrl) return config.publicUrl
    return publicHosts.has(url.host) ? url.origin : listenOrigin
  }
  // The requests the payment guard was asked about: only they have anything for it to do after the handler.
  const guarded = new WeakSet<Request>()
  // Filled once every route is mounted: the schemas each route validates with, for the gateway's input rules.
  const schemasOf = new Map<string, Input.Schemas>()
  // Paid calls that name a `callback_url` their route does not read itself: its value (taken out of the body before
  // validation, checked before the 402) and the entry called.
  const asked = new WeakMap<Request, { url: unknown; route: string }>()
  // What a 402 says to help its caller call again, built once per entry on its first 402 (every route is mounted).
  const hints = new Map<string, Record<string, unknown>>()
  function hintsOf(entry: Catalog.Entry): Record<string, unknown> {
    const key = Catalog.key(entry)
    const known = hints.get(key)
    if (known) return known
    const built = enrichment({ entry, input: schemasOf.get(key) })
    hints.set(key, built)
    return built
  }

  /**
   * Where every request enters: its start time and id, the CORS headers, and the refusals that need no route (a
   * preflight, an oversized head or declared body). Synchronous, so that the handler runs inside the payment scope it
   * opens; an answer here ends the request.
   */
  function enter(request: Request, set: { headers: Record<string, unknown> }): Response | undefined {
    entered.set(request, { at: performance.now(), route: undefined })
    const requestId = RequestId.assign(request)
    if (request.method === 'OPTIONS') return Cors.preflight()
    set.headers[RequestId.header] = requestId
    payments?.open(request)
    // A request made in process (the MCP server's calls) counts against the client of the request it is made for.
    const address = addressOf(request)
    const client = address === undefined ? clientOf(current.getStore()) : ClientAddress.key(address)
    if (client !== undefined) clients.set(request, client)
    current.enterWith(request)
    unpaid.add(request)
    Object.assign(set.headers, Cors.headers)
    const head = oversized(request)
    if (head) return render(head, request)
    if (exceedsDeclaredLength(request, config.bodyLimitBytes))
      return render(new PayloadTooLargeError({ limitBytes: config.bodyLimitBytes }), request)
    return undefined
  }
  // Every handler reads the verified payer as `caller`, from a getter: the guard verifies the payment after the hook
  // that defines it runs, and a free route that never reads it must not fail.
  const callerProperty: PropertyDescriptor = {
    configurable: true,
    enumerable: true,
    get(this: { request: Request }) {
      if (!payments) throw new Error('No payment settlement is configured, so no call has a verified payer.')
      return payments.payer(this.request)
    },
  }
  const logsRequests = config.logLevel === 'debug'
  /** Every answer, as it leaves: its metrics and one log line, by route pattern (never the raw path or query). */
  function answered(request: Request, response: Response): Response {
    const { status } = response
    const { at, route } = entered.get(request) ?? { at: performance.now(), route: undefined }
    const seconds = (performance.now() - at) / 1000
    const known = route && route !== '/*' ? route : 'unmatched'
    meter.request({ method: request.method, route: known, status, seconds })
    // A line per request is debug (a paid call is two requests, and its settlement has its own info line); a fault
    // of the gateway's own is a warning anyone sees.
    if (status >= 500 || logsRequests)
      logger.log(status >= 500 ? 'warn' : 'debug', 'request', {
        requestId: RequestId.of(request),
        method: request.method,
        route: known,
        status,
        ms: Math.round(seconds * 1000),
      })
    return response
  }
  /**
   * A Response of ours (a refusal, a problem, a handler's own) with the headers every answer carries, and none left
   * for Elysia: with any header left to add, Elysia copies the whole response into a new one to add it.
   */
  function handOver(response: Response, set: { headers: Record<string, unknown> }): Response {
    for (const name in set.headers)
      if (!response.headers.has(name)) response.headers.set(name, String(set.headers[name]))
    set.headers = {}
    return response
  }
  // Each route's handler, wrapped to see its answer (a Response, or the promise of one) leave. Cheaper than an
  // after-response hook, which Elysia runs from a timer of its own per request; a stream counts once it starts.
  const answering = new WeakMap<(request: Request) => unknown, (request: Request) => unknown>()
  function pass(handle: (request: Request) => unknown, request: Request): Response | Promise<Response> {
    const answer = handle(request) as Response | Promise<Response>
    return answer instanceof Promise
      ? answer.then((response) => answered(request, response))
      : answered(request, answer)
  }
  /** The answer to an unpaid request over its client's cap of requests in progress: 429, come back in a second. */
  function tooManyInProgress(request: Request): Response {
    RequestId.assign(request)
    const error = new RateLimitedError({
      retryAfterSeconds: 1,
      what: `this gateway: more than ${limits.unpaidConcurrencyPerClient} unpaid requests in progress at once from this client`,
    })
    return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), {
      ...RequestId.headersOf(request),
      'retry-after': '1',
    })
  }
  // Requests re-addressed from an alias path to their canonical path, and the request as it came (its source address).
  const aliased = new WeakMap<Request, Request>()
  /** The source address of a request as the server received it (`undefined` for one made in process). */
  function addressOf(request: Request): string | undefined {
    return app.server?.requestIP(aliased.get(request) ?? request)?.address
  }
  /**
   * A request to one of the original gateway's paths (`Catalog.canonicalPath`) re-addressed to its canonical path,
   * before routing: every method, the validation, the price, the 402's resource URL, the payment and the answer are
   * the canonical call's, so one payment serves either spelling. Any other request as it is.
   */
  function canonicalOf(request: Request): Request {
    const canonical = canonicalUrlOf(request.url)
    if (canonical === undefined) return request
    const { method, headers, body } = request
    const rewritten = new Request(canonical, {
      method,
      headers,
      ...(body ? { body, duplex: 'half' } : {}),
    })
    aliased.set(rewritten, request)
    return rewritten
  }
  function answeringOf(handle: (request: Request) => unknown): (request: Request) => unknown {
    let wrapped = answering.get(handle)
    if (!wrapped) {
      wrapped = (incoming: Request) => {
        const request = canonicalOf(incoming)
        // Before any work, even reading the head: a client at its cap of unpaid requests in progress is refused.
        const address = concurrency && !carriesPayment(request.headers) ? addressOf(request) : undefined
        const counted = address === undefined ? undefined : ClientAddress.key(address)
        if (counted === undefined) return pass(handle, request)
        if (!concurrency!.enter(counted)) return answered(request, tooManyInProgress(request))
        try {
          const answer = pass(handle, request)
          if (answer instanceof Promise) return answer.finally(() => concurrency!.leave(counted))
          concurrency!.leave(counted)
          return answer
        } catch (error) {
          concurrency!.leave(counted)
          throw error
        }
      }
      answering.set(handle, wrapped)
    }
    return wrapped
  }

  // No normalization: Elysia would strip fields a schema does not name before validating, so an unknown field
  // would be dropped without a word. Validation sees the body as sent and refuses it, naming the field; undeclared
  // query parameters are dropped explicitly, in the transform below.
  // Elysia awaits a hook whose source looks asynchronous (it says `async` or `await`, or returns or arrows into a
  // call), which costs every request a turn of the microtask queue: the synchronous hooks below call out to named
  // functions and return what they got, so that they stay synchronous.
  const app = new Elysia({ normalize: false })
    .wrap((handle) => answeringOf(handle as (request: Request) => unknown))
    .onRequest(({ request, set }) => {
      const early = enter(request, set)
      if (early) return early
    })
    .onParse(async ({ request, contentType }) => {
      // The dashboard's login form and providers' callbacks are the bodies that are not JSON.
      if (contentType === 'application/x-www-form-urlencoded' && isFormRoute(request))
        return Object.fromEntries(new URLSearchParams(await request.text()))
      // A vendor's callback is verified over its body byte for byte: the module reads it as text.
      if (new URL(request.url).pathname.startsWith(callbackPrefix)) return readText(request, config.bodyLimitBytes)
      return readJson(request, config.bodyLimitBytes)
    })
    // Runs before every module's own hooks and before schema validation, so whatever it refuses is never paid for.
    .onTransform(({ request, route, params, query, body }) => {
      const record = entered.get(request)
      if (record) record.route = route
      Input.assertSingleQuery(request.url)
      const schemas = schemasOf.get(`${request.method} ${route}`)
      if (!schemas) return
      Input.dropUndeclared(schemas.query, query)
      const entry = mounted.entryOf(`${request.method} ${route}`)
      const taken = entry && Callback.take({ entry, schema: schemas.body, body })
      if (taken) asked.set(request, { url: taken.url, route: Catalog.key(entry) })
      Input.assertPrintable(schemas, { path: params, query, body })
    })
    .onError(async ({ error, code, request, route, set }) => {
      const record = entered.get(request)
      if (record) record.route = route
      return handOver(await answerError({ error, code, request }), set)
    })
    // Runs after schema validation, so bad input is refused before any payment is asked for.
    .onBeforeHandle(async ({ request, route, body, query, params }) => {
      // HEAD runs the GET route: it is the same entry and asks for the same payment.
      const routeKey = `${request.method === 'HEAD' ? 'GET' : request.method} ${route}`
      const admission = mounted.admit(routeKey)
      // While the request is still unpaid (the URL check counts against its client), and before the 402.
      const callback = asked.get(request)
      if (callback && (admission.type === 'free' || admission.type === 'paid')) {
        if (!callbacks) throw new UpstreamUnavailableError(Callback.unserved)
        await callbacks.check(callback.url)
      }
      unpaid.delete(request)
      if (admission.type === 'refused') throw admission.error
      // Off the catalog, only a module's extra routes have a rate limit; discovery and operator routes have none.
      if (admission.type !== 'paid') return limit(admission.limit, request)
      guarded.add(request)
      return payments!.before(request, admission.entry, { body, query, params })
    })
    // The context comes as a rest parameter: Elysia's static analysis of hooks takes a hook that hands its context
    // on for one that reads all of it, and would then parse every request's cookies and copy its headers.
    .derive({ as: 'global' }, (...hooked: [object]) => {
      Object.defineProperty(hooked[0], 'caller', callerProperty)
      return {}
    })
    // Sees every answer before Elysia maps it: the handler's, or a refusal (a 402) of the hook before.
    .onAfterHandle(async ({ request, response, set }) => {
      if (!payments || !guarded.delete(request))
        return response instanceof Response ? handOver(response, set) : undefined
      const status = response instanceof Response ? response.status : typeof set.status === 'number' ? set.status : 200
      // A callback is written before the settlement, journaled with the payment: taken back if the call is never paid.
      const callback = asked.get(request)
      const answer =
        callbacks && callback && status < 400
          ? await callbacks.attach({
              request,
              url: callback.url as string,
              route: callback.route,
              status,
              response,
              holding: payments.holding(request),
            })
          : response
      const outcome = await payments.after(request, { status, response: answer })
      if ('withheld' in outcome) {
        // A withheld stream is never read: release its upstream now rather than at the upstream's idle timeout.
        if (answer instanceof Response) await answer.body?.cancel().catch(() => {})
        return handOver(outcome.withheld, set)
      }
      if (answer instanceof Response) {
        for (const [name, value] of Object.entries(outcome.headers)) answer.headers.set(name, value)
        return handOver(answer, set)
      }
      Object.assign(set.headers, outcome.headers)
      // An answer left as the handler gave it is Elysia's to map.
      if (answer !== response) return answer
    })

  /** Whether a request's form body is read as such: the dashboard's login, or a module's extra route (a callback). */
  function isFormRoute(request: Request): boolean {
    const path = new URL(request.url).pathname
    return path === '/dashboard/login' || mounted.extraRoutes.has(`${request.method} ${path}`)
  }
  for (const route of mounted.routes)
    if ('plugin' in route) app.use(route.plugin as AnyElysia)
    else
      app.route(route.method, route.path, () => {
        throw route.error
      })

  // A paid call's callback is delivered by the webhooks family's delivery worker: without it, no call takes one.
  const callbacks =
    ports.store && ports.queue && ports.outbound && payment && workers.some(({ queue }) => queue === deliveryQueue)
      ? Callback.callbacks({ store: ports.store, queue: ports.queue, outbound: ports.outbound, ledger: payment.ledger })
      : undefined
  if (callbacks) workers.push(callbacks.worker)

  for (const path of healthPaths)
    app.get(path, ({ request }) =>
      decentralizedHealth({ upstream: ports.decentralized, baseUrl: originOf(new URL(request.url)) }),
    )
  for (const route of mounted.complete(new Set(app.routes.map((route) => `${route.method} ${route.path}`))))
    if ('error' in route)
      app.route(route.method, route.path, () => {
        throw route.error
      })

  /**
   * Takes a token of the client's bucket for a free entry (or extra route, by `key`) that has a rate limit; out of
   * tokens, a 429 with `RateLimit` and `Retry-After`. The client is its source address (free calls carry no payer);
   * requests made in process by no client share one bucket.
   */
  async function limit(key: string, request: Request): Promise<Response | undefined> {
    const limited = mounted.limitOf(key)
    if (!limited) return
    const { family, options } = limited
    const taken = await limiter.take(`${family} ${clients.get(request) ?? 'in-process'}`, options)
    if (taken.ok) return
    const windowSeconds = Math.ceil((options.capacity * options.intervalMs) / options.refill / 1000)
    const retryAfter = retryAfterSeconds(taken.retryAt, Date.now())
    const error = new RateLimitedError({ retryAfterSeconds: retryAfter })
    return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), {
      ...RequestId.headersOf(request),
      'retry-after': String(retryAfter),
      ratelimit: `"${family}";r=0;t=${retryAfter}`,
      'ratelimit-policy': `"${family}";q=${options.capacity};w=${windowSeconds}`,
    })
  }

  /** The client `request` counts against: its source address as `ClientAddress.key` says, or its enclosing request's. */
  function clientOf(request: Request | undefined): string | undefined {
    return request && clients.get(request)
  }

  /**
   * The outbound guard as modules see it: a URL checked for a request not yet past the payment hook (a webhook's or
   * cron job's callback, checked before the 402) takes a token of its client's bucket first, so that nobody can map
   * names and private ranges through us for free. Out of tokens, a 429 (`RateLimitedError`) before any DNS.
   */
  function checkedPerClient(outbound: Outbound.Guard): Outbound.Guard {
    const options = perMinute(limits.urlChecksPerMinute)
    return {
      async check(url) {
        const request = current.getStore()
        const client = request && unpaid.has(request) ? clientOf(request) : undefined
        if (client !== undefined) {
          const taken = await limiter.take(`url-check ${client}`, options)
          if (!taken.ok)
            throw new RateLimitedError({
              retryAfterSeconds: retryAfterSeconds(taken.retryAt, Date.now()),
              what: 'the URL check (callbacks and endpoints checked before payment) from this client',
            })
        }
        return outbound.check(url)
      },
      fetch: (url, init) => outbound.fetch(url, init),
    }
  }

  const context = (request: Request): Documents.Context => ({
    baseUrl: originOf(new URL(request.url)),
    terms,
    availability: mounted.availability,
    ruleOf: mounted.ruleOf,
    outputOf: mounted.outputOf,
    inputOf: (entry) => {
      const schemas = schemasOf.get(Catalog.key(entry))
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
  app
    .get('/', ({ request }) => Documents.overview(context(request)))
    .get('/openapi.json', ({ request }) => Documents.openapi(context(request)))
    .get('/.well-known/x402.json', ({ request }) => Documents.manifest(context(request)))
    .get(
      '/llms.txt',
      ({ request }) =>
        new Response(Documents.llmsText(context(request)), {
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        }),
    )
    .get('/free', ({ request }) => Documents.freeTier(context(request)))
    .get('/health', () =>
      health({ availability: mounted.availability, network: terms.network, startedAt, now: new Date() }),
    )

  app.use(
    operator({
      config,
      metrics: meter,
      ledger: payment?.ledger,
      availability: mounted.availability,
      handle: (request) => handle(request),
      origin: (request) => originOf(new URL(request.url)),
      limiter,
      clientOf: (request) => clientOf(request) ?? 'in-process',
    }),
  )
  assertCoverage(new Set(app.routes.map((route) => `${route.method} ${route.path}`)), mounted.extraRoutes)
  for (const route of app.routes)
    schemasOf.set(`${route.method} ${route.path}`, {
      path: schemaOf(route.hooks.params),
      query: schemaOf(route.hooks.query),
      body: schemaOf(route.hooks.body),
    })
  const routes = app.routes.map((route) => ({ method: route.method, pattern: toPattern(route.path) }))

  function notFound(request: Request): BaseError {
    const path = new URL(request.url).pathname
    const allowed = routes.filter((route) => route.pattern.test(path)).map((route) => route.method)
    if (allowed.length > 0)
      return new MethodNotAllowedError(
        `${echo(request.method)} is not allowed on ${echo(path)}; use ${allowed.join(', ')}.`,
        {
          details: { allow: allowed },
        },
      )
    return new NotFoundError(
      `No operation at ${echo(request.method)} ${echo(path)}. See /openapi.json for every operation.`,
    )
  }

  async function answerError({
    error,
    code,
    request,
  }: {
    error: unknown
    code: unknown
    request: Request
  }): Promise<Response> {
    await payments?.release(request, 'handler threw')
    const fault = fromFault(error)
    const problem = fault ?? (error instanceof BaseError ? error : undefined)
    if (problem) {
      if (isFault(problem)) {
        const path = new URL(request.url).pathname
        logger.log('warn', 'upstream_fault', {
          requestId: RequestId.of(request),
          method: request.method,
          path,
          code: problem.code,
          error: describeError(error),
        })
      }
      return render(problem, request)
    }
    // Elysia wraps what the body parser throws; the cause is ours (too large, not JSON, wrong media type).
    if (code === 'PARSE')
      return render(
        error instanceof Error && error.cause instanceof BaseError
          ? error.cause
          : new MalformedJsonError('The request body could not be read.'),
        request,
      )
    if (error instanceof ElysiaValidationError) return render(fromValidation(error), request)
    if (code === 'NOT_FOUND') return render(notFound(request), request)
    logger.log('error', 'unhandled_error', {
      requestId: RequestId.of(request),
      method: request.method,
      path: new URL(request.url).pathname,
      error: describeError(error),
    })
    return Problem.toResponse(
      Problem.internal(Problem.instanceOf(request), RequestId.of(request)),
      RequestId.headersOf(request),
    )
  }

  function render(error: BaseError, request: Request): Response {
    const headers = RequestId.headersOf(request)
    if (error instanceof MethodNotAllowedError) headers.allow = ((error.details?.allow ?? []) as string[]).join(', ')
    // A handler's own limit (per payer) says when to come back, as the free endpoints' buckets do.
    if (error instanceof RateLimitedError) headers['retry-after'] = String(error.retryAfterSeconds)
    return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), headers)
  }

  async function handle(request: Request): Promise<Response> {
    const response = await app.handle(request)
    // As a server would: HEAD answers with the headers alone.
    return request.method === 'HEAD'
      ? new Response(null, { status: response.status, headers: response.headers })
      : response
  }

  return {
    app,
    handle,
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
    /** Where per-client limits are counted, shared by the deployment's processes. @default memory of this process */
    limiter?: Limiter | undefined
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

/**
 * Whether a problem is a chain node or upstream failing a call, worth a log line (without messages). An upstream
 * found unavailable before the call (not configured, breaker open) has no cause and is no fault of the moment.
 */
function isFault(problem: BaseError): boolean {
  if (problem.code === 'upstream_unavailable') return problem.cause !== undefined
  return problem.code === 'upstream_failed' || problem.code === 'upstream_timeout'
}

function toPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}/?$`)
}

/** A route's TypeBox schema of one location, when it has one. */
function schemaOf(hook: unknown): TSchema | undefined {
  return typeof hook === 'object' && hook !== null && Kind in hook ? (hook as TSchema) : undefined
}

// The raw first failure, not Elysia's `all`: `all` formats every failing value into a string, which throws on some.
function fromValidation(error: ElysiaValidationError): ValidationError {
  const location = error.type === 'query' ? 'query' : error.type === 'params' ? 'path' : 'body'
  const first = error.valueError as { path?: unknown; message?: unknown } | undefined
  return Input.fromValueError(
    first && typeof first.path === 'string' && typeof first.message === 'string'
      ? { path: first.path, message: first.message }
      : undefined,
    location,
  )
}

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
