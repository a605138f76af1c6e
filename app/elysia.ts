import { Kind, type TSchema } from '@sinclair/typebox'
import { type AnyElysia, Elysia } from 'elysia'
import * as Catalog from '../core/Catalog.js'
import * as ClientAddress from '../core/ClientAddress.js'
import { PayloadTooLargeError, UpstreamUnavailableError } from '../core/Errors.js'
import type { Limiter } from '../core/Limiter.js'
import type * as Module from '../core/Module.js'
import { exceedsDeclaredLength, readJson, readText } from './body.js'
import * as Callback from './callback.js'
import type { Config } from './config.js'
import * as Cors from './cors.js'
import { errorAnswers, routeOf } from './errors.js'
import { oversized } from './head.js'
import * as Input from './input.js'
import { carriesPayment, freeLimits, tooManyInProgress, unpaidConcurrency } from './limits.js'
import type { Logger } from './log.js'
import type { metrics } from './metrics.js'
import { assertCoverage, callbackPrefix, canonicalUrlOf, type mount } from './mount.js'
import type { guard } from './payment/guard.js'
import * as RequestId from './request-id.js'
import type { scope } from './scope.js'

/**
 * Binds a mount to Elysia: the hooks every request passes (its id, CORS, body reading, the gateway's input rules,
 * availability and payment before the handler, the payment's settlement after), error rendering as problem+json, the
 * rate limits, aliases and HEAD. The gateway's own routes and plugins are mounted beside the families'.
 */
export function elysia(parameters: elysia.Parameters): elysia.ReturnType {
  const { config, mounted, payments, callbacks, limiter, scope, metrics: meter, logger, own, plugins } = parameters
  const { limits } = config
  const concurrency =
    limits.unpaidConcurrencyPerClient > 0 ? unpaidConcurrency({ cap: limits.unpaidConcurrencyPerClient }) : undefined
  // When each request started, for its latency, and the route pattern it matched, for its metrics.
  const entered = new WeakMap<Request, { at: number; route: string | undefined }>()
  // The requests the payment guard was asked about: only they have anything for it to do after the handler.
  const guarded = new WeakSet<Request>()
  // Filled once every route is mounted: the schemas each route validates with, for the gateway's input rules.
  const schemasOf = new Map<string, Input.Schemas>()
  // Paid calls that name a `callback_url` their route does not read itself: its value (taken out of the body before
  // validation, checked before the 402) and the entry called.
  const asked = new WeakMap<Request, { url: unknown; route: string }>()
  // Every route's method and path pattern, filled once every route is mounted: what a 405 names.
  let routes: readonly errorAnswers.Route[] = []
  const errors = errorAnswers({ payments, logger, routes: () => routes })
  const { render } = errors
  const limit = freeLimits({ limitOf: mounted.limitOf, limiter, clientOf: scope.clientOf })

  /**
   * Where every request enters: its start time and id, the CORS headers, and the refusals that need no route (a
   * preflight, an oversized head or declared body). Synchronous, so that the handler runs inside the client scope it
   * enters; an answer here ends the request.
   */
  function enter(request: Request, set: { headers: Record<string, unknown> }): Response | undefined {
    entered.set(request, { at: performance.now(), route: undefined })
    const requestId = RequestId.assign(request)
    if (request.method === 'OPTIONS') return Cors.preflight()
    set.headers[RequestId.header] = requestId
    scope.enter(request, inProcess.has(aliased.get(request) ?? request))
    Object.assign(set.headers, Cors.headers)
    const head = oversized(request)
    if (head) return render(head, request)
    if (exceedsDeclaredLength(request, config.bodyLimitBytes))
      return render(new PayloadTooLargeError({ limitBytes: config.bodyLimitBytes }), request)
    return undefined
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
  // Requests re-addressed from an alias path to their canonical path, and the request as it came (its source address).
  const aliased = new WeakMap<Request, Request>()
  // Source addresses once read: the unpaid-concurrency cap and the client scope may both ask.
  const addresses = new WeakMap<Request, string | undefined>()
  // Requests made in process (through `handle`), not received by the server.
  const inProcess = new WeakSet<Request>()
  /** The source address of a request as the server received it (`undefined` for one made in process). */
  function addressOf(request: Request): string | undefined {
    if (addresses.has(request)) return addresses.get(request)
    const address = app.server?.requestIP(aliased.get(request) ?? request)?.address
    addresses.set(request, address)
    return address
  }
  scope.readAddresses(addressOf)
  /**
   * A request to one of the original gateway's paths re-addressed to its canonical path, before routing
   * (`canonicalUrlOf`). Any other request as it is.
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
        if (!concurrency!.enter(counted))
          return answered(request, tooManyInProgress(request, limits.unpaidConcurrencyPerClient))
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
  /** Whether a request's form body is read as such: the dashboard's login, or a module's extra route (a callback). */
  function isFormRoute(request: Request): boolean {
    const path = new URL(request.url).pathname
    return path === '/dashboard/login' || mounted.extraRoutes.has(`${request.method} ${path}`)
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
      const key = `${request.method} ${route}`
      const record = entered.get(request)
      if (record) record.route = route
      Input.assertSingleQuery(request.url)
      const schemas = schemasOf.get(key)
      if (!schemas) return
      Input.dropUndeclared(schemas.query, query)
      const entry = mounted.entryOf(key)
      const taken = entry && Callback.take({ entry, schema: schemas.body, body })
      if (taken) asked.set(request, { url: taken.url, route: Catalog.key(entry) })
      Input.assertPrintable(schemas, { path: params, query, body })
    })
    .onError(async ({ error, code, request, route, set }) => {
      const record = entered.get(request)
      if (record) record.route = route
      return handOver(await errors.answer({ error, code, request }), set)
    })
    // Runs after schema validation, so bad input is refused before any payment is asked for. Once the payment is
    // held, the paid call is set on the context the handler gets (the hook reads its context by name, so that Elysia
    // parses no more of a request than the fields named here).
    .onBeforeHandle(async (context) => {
      const { request, route, body, query, params } = context
      // HEAD runs the GET route: it is the same entry and asks for the same payment.
      const admission = mounted.admit(`${request.method === 'HEAD' ? 'GET' : request.method} ${route}`)
      // While the request is still unpaid (the URL check counts against its client), and before the 402.
      const callback = asked.get(request)
      if (callback && (admission.type === 'free' || admission.type === 'paid')) {
        if (!callbacks) throw new UpstreamUnavailableError(Callback.unserved)
        await callbacks.check(callback.url)
      }
      scope.paying(request)
      if (admission.type === 'refused') throw admission.error
      // Off the catalog, only a module's extra routes have a rate limit; discovery and operator routes have none.
      if (admission.type !== 'paid') return limit(admission.limit, request)
      guarded.add(request)
      const paid = await payments!.before(request, admission.entry, { body, query, params })
      if (paid instanceof Response) return paid
      ;(context as typeof context & Module.Context).paid = paid
    })
    // Sees every answer before Elysia maps it: the handler's, or a refusal (a 402) of the hook before.
    .onAfterHandle(async (context) => {
      const { request, response, set } = context
      if (!payments || !guarded.delete(request))
        return response instanceof Response ? handOver(response, set) : undefined
      const status = response instanceof Response ? response.status : typeof set.status === 'number' ? set.status : 200
      // A callback is written before the settlement, through the call's journal: taken back if it is never paid.
      const callback = asked.get(request)
      const answer =
        callbacks && callback && status < 400
          ? await callbacks.attach({
              request,
              url: callback.url as string,
              route: callback.route,
              status,
              response,
              paid: (context as Partial<Module.Context>).paid,
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

  for (const route of mounted.routes) bind(route)
  for (const [path, answer] of Object.entries(own)) app.get(path, ({ request }) => answer(request))
  for (const route of mounted.complete(new Set(app.routes.map((route) => `${route.method} ${route.path}`)))) bind(route)
  for (const plugin of plugins) app.use(plugin)
  assertCoverage(new Set(app.routes.map((route) => `${route.method} ${route.path}`)), mounted.extraRoutes)
  for (const route of app.routes)
    schemasOf.set(`${route.method} ${route.path}`, {
      path: schemaOf(route.hooks.params),
      query: schemaOf(route.hooks.query),
      body: schemaOf(route.hooks.body),
    })
  routes = app.routes.map(routeOf)

  /** A family's routes, or a route answering its error. */
  function bind(route: mount.Route): void {
    if ('plugin' in route) app.use(route.plugin as AnyElysia)
    else
      app.route(route.method, route.path, () => {
        throw route.error
      })
  }

  async function handle(request: Request): Promise<Response> {
    inProcess.add(request)
    const response = await app.handle(request)
    // As a server would: HEAD answers with the headers alone.
    return request.method === 'HEAD'
      ? new Response(null, { status: response.status, headers: response.headers })
      : response
  }

  return { app, handle, inputOf: (route) => schemasOf.get(route) }
}

export declare namespace elysia {
  type Parameters = {
    /** Parsed configuration (body limit, log level, per-client limits). */
    config: Config
    /** The families as mounted. */
    mounted: mount.ReturnType
    /** The payment guard; without it every paid entry is unavailable. */
    payments: guard.ReturnType | undefined
    /** Paid calls' callbacks, when the deployment delivers them. */
    callbacks: Callback.callbacks.ReturnType | undefined
    /** Where per-client limits are counted. */
    limiter: Limiter
    /** The client each request counts against. */
    scope: scope.ReturnType
    /** Metrics every answer is counted into. */
    metrics: metrics.ReturnType
    /** Where events go. */
    logger: Logger
    /** The gateway's own free `GET` routes (discovery, health), by path. */
    own: Readonly<Record<string, (request: Request) => unknown>>
    /** Plugins of the gateway's own mounted after every route (the operator's). */
    plugins: readonly AnyElysia[]
  }
  type ReturnType = {
    /** The Elysia app (for `listen`). */
    app: AnyElysia
    /** Answers one request in process (HEAD with the headers alone). */
    handle: (request: Request) => Promise<Response>
    /** The schemas a route (`METHOD /pattern`) validates with. */
    inputOf: (route: string) => Input.Schemas | undefined
  }
}

/** A route's TypeBox schema of one location, when it has one. */
function schemaOf(hook: unknown): TSchema | undefined {
  return typeof hook === 'object' && hook !== null && Kind in hook ? (hook as TSchema) : undefined
}
