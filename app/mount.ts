import * as Catalog from '../core/Catalog.js'
import { type BaseError, NotImplementedError, UpstreamUnavailableError } from '../core/Errors.js'
import type { Meter } from '../core/Meter.js'
import type * as Module from '../core/Module.js'
import * as Price from '../core/Price.js'
import type { AnyProvider } from '../core/Provider.js'
import type { Claim } from '../core/Queue.js'
import * as RateLimit from '../core/RateLimit.js'
import type * as Documents from './discovery/documents.js'
import type { Availability } from './discovery/terms.js'
import { missingOf } from './modules.js'
import { operatorRoutes } from './operator.js'

/** Paths served by the gateway itself rather than by a catalog entry. */
export const discoveryPaths = ['/', '/openapi.json', '/.well-known/x402.json', '/llms.txt', '/free', '/health'] as const

/**
 * The decentralized upstream's readiness, free and outside the catalog (the spec has no such operation), at our path
 * and the original gateway's: served by the gateway, so that it answers when the family is not configured too.
 */
export const healthPaths = ['/decentralized/v1/health', '/bittensor/v1/health'] as const

/** Where every vendor callback is mounted. */
export const callbackPrefix = '/callbacks/'

/**
 * Mounts the endpoint families on the catalog, with no web framework: what each family serves or why it cannot, every
 * entry's availability, price rules, meters, windows, discovery facts, re-access, free limits, jobs and workers, and
 * what is done with a call before any payment. The Elysia plugin binds the routes and hooks around it.
 */
export function mount(parameters: mount.Parameters): mount.ReturnType {
  const { families, ports, providers, env: envs, freeLimit, paid } = parameters
  const routes: mount.Route[] = []
  // A module that cannot run here is not mounted; its routes answer 503 with the reason, before any payment.
  const unconfigured = new Map<string, string>()
  const rules = new Map<string, Price.Rule>()
  const meters = new Map<string, Meter>()
  const windows = new Map<string, number>()
  const outputs = new Map<string, Documents.JsonSchema>()
  const facts = new Map<string, Readonly<Record<string, unknown>>>()
  const reaccess = new Map<string, (target: Module.Target) => Promise<readonly string[]>>()
  // Availability that changes at run time (an upstream's circuit breaker), asked on every call before payment.
  const readinessOf = new Map<string, () => string | undefined>()
  // The rate limits of the free endpoints by route: their family's own, or the gateway's default for free entries.
  const limits = new Map<string, mount.Limit>()
  const extraRoutes = new Set<string>()
  const jobs: mount.Job[] = []
  const workers: mount.Worker[] = []
  for (const module of families) {
    const served = Catalog.entries.filter((candidate) =>
      module.paths.some((prefix) => candidate.path.startsWith(prefix)),
    )
    const missing = missingOf(module, ports, providers)
    if (missing) {
      for (const entry of served) unconfigured.set(Catalog.key(entry), missing)
      for (const route of module.extraRoutes ?? []) {
        const [method, path] = route.split(' ') as [string, string]
        extraRoutes.add(route)
        routes.push({ method, path, error: new UpstreamUnavailableError(`${route} ${missing}.`) })
      }
      continue
    }
    const env = envs[module.name]
    if (module.env && env === undefined)
      throw new Error(
        `The environment of module ${module.name} was not parsed: pass the module to the configuration's parse.`,
      )
    const resources = { ports, env: env ?? {} }
    routes.push({ plugin: module.routes(resources) })
    for (const route of module.extraRoutes ?? []) extraRoutes.add(route)
    const ready = module.ready
    if (ready)
      for (const entry of served) readinessOf.set(Catalog.key(entry), () => ready(resources, Catalog.key(entry)))
    for (const callback of module.callbacks ?? []) extraRoutes.add(assertCallback(callback))
    const prices = typeof module.prices === 'function' ? module.prices(resources.env) : (module.prices ?? {})
    for (const [key, rule] of Object.entries(prices)) rules.set(key, assertRule(key, rule, served))
    for (const [key, meter] of Object.entries(module.meters?.(resources.env) ?? {})) meters.set(key, meter)
    for (const [key, output] of Object.entries(module.outputs ?? {})) outputs.set(key, output)
    for (const [key, named] of Object.entries(module.facts?.(resources) ?? {})) facts.set(key, named)
    for (const [key, seconds] of Object.entries(module.windows?.(resources.env) ?? {}))
      windows.set(key, assertWindow(key, seconds, served))
    for (const [key, declared] of Object.entries(module.reaccess ?? {})) {
      const entry = served.find((candidate) => Catalog.key(candidate) === key)
      if (!entry || Catalog.isFree(entry))
        throw new Error(`Re-access is declared for ${key}, which is not a paid entry of module ${module.name}.`)
      const owners = declared.owners
      reaccess.set(key, owners ? (target) => owners(target, resources) : async () => [])
    }
    // A family's own limit, even none, wins; one that declares none gets the default on its free entries only (its
    // extra routes include providers' callbacks, which come from a few addresses in bursts).
    const rateLimit = module.rateLimit ? module.rateLimit(resources.env) : freeLimit
    if (rateLimit) {
      RateLimit.assert(rateLimit)
      for (const entry of served)
        if (Catalog.isFree(entry)) limits.set(Catalog.key(entry), { family: module.name, options: rateLimit })
      if (module.rateLimit)
        for (const route of module.extraRoutes ?? []) limits.set(route, { family: module.name, options: rateLimit })
    }
    for (const job of module.jobs ?? [])
      jobs.push({ name: job.name, schedule: job.schedule ?? '* * * * *', run: () => job.run(resources) })
    for (const worker of module.workers ?? [])
      workers.push({
        queue: worker.queue,
        concurrency: worker.concurrency ?? 10,
        leaseMs: typeof worker.leaseMs === 'function' ? worker.leaseMs(resources.env) : (worker.leaseMs ?? 30_000),
        run: (item) => worker.run(item, resources),
      })
  }
  if (freeLimit)
    for (const path of healthPaths) limits.set(`GET ${path}`, { family: 'decentralized', options: freeLimit })

  const entryOfRoute = new Map<string, Catalog.Entry>(
    Catalog.entries.flatMap((entry) => pathsOf(entry).map((path) => [`${entry.method} ${path}`, entry] as const)),
  )
  const availabilityOf = new Map<string, Availability>()

  function availabilityFor(entry: Catalog.Entry, mounted: boolean): Availability {
    const key = Catalog.key(entry)
    const missing = unconfigured.get(key)
    if (missing) return { available: false, code: 'upstream_unavailable', reason: `${key} ${missing}.` }
    if (!mounted)
      return {
        available: false,
        code: 'not_implemented',
        reason: `${key} is listed in the catalog but not built on this gateway yet; nothing is charged for it.`,
      }
    if (!Catalog.isFree(entry) && !paid)
      return {
        available: false,
        code: 'upstream_unavailable',
        reason: `${key} is paid and this gateway has no payment settlement configured; nothing is charged for it.`,
      }
    if ((entry.price.type === 'range' || entry.price.type === 'varies') && !rules.has(key))
      return {
        available: false,
        code: 'not_implemented',
        reason:
          `${key} is priced per request (${Price.toText(entry.price)}) and has no price rule on this gateway; ` +
          'nothing is charged for it.',
      }
    return { available: true }
  }

  /** Availability at boot, narrowed by the module's readiness now. */
  function availability(entry: Catalog.Entry): Availability {
    const key = Catalog.key(entry)
    const known = availabilityOf.get(key)!
    if (!known.available) return known
    const notReady = readinessOf.get(key)?.()
    return notReady === undefined
      ? known
      : {
          available: false,
          code: 'upstream_unavailable',
          reason: `${key} is unavailable for now: ${notReady} Nothing is charged for it.`,
        }
  }

  return {
    routes,
    extraRoutes,
    jobs,
    workers,
    ruleOf: (entry) => rules.get(Catalog.key(entry)),
    meterOf: (entry) => meters.get(Catalog.key(entry)),
    windowOf: (entry) => windows.get(Catalog.key(entry)),
    outputOf: (entry) => outputs.get(Catalog.key(entry)),
    factsOf: (entry) => facts.get(Catalog.key(entry)),
    reaccessOf: (entry) => reaccess.get(Catalog.key(entry)),
    limitOf: (key) => limits.get(key),
    entryOf: (route) => entryOfRoute.get(route),
    availability,
    complete(implemented) {
      const stubs: mount.Route[] = []
      for (const entry of Catalog.entries) {
        const key = Catalog.key(entry)
        const known = availabilityFor(entry, implemented.has(key))
        availabilityOf.set(key, known)
        if (!implemented.has(key))
          for (const path of pathsOf(entry))
            stubs.push({
              method: entry.method,
              path,
              error: new NotImplementedError(known.available ? key : known.reason),
            })
      }
      return stubs
    },
    admit(route) {
      const entry = entryOfRoute.get(route)
      if (!entry) return { type: 'open', limit: route }
      const known = availability(entry)
      if (!known.available)
        return {
          type: 'refused',
          error:
            known.code === 'not_implemented'
              ? new NotImplementedError(known.reason)
              : new UpstreamUnavailableError(known.reason),
        }
      return Catalog.isFree(entry) ? { type: 'free', entry, limit: Catalog.key(entry) } : { type: 'paid', entry }
    },
  }
}

export declare namespace mount {
  type Parameters = {
    /** The endpoint families to mount, in order. */
    families: readonly Module.AnyModule[]
    /** The ports modules may use; a module that needs an absent one is not mounted. */
    ports: Partial<Module.Ports>
    /** The providers whose descriptions name a port a module lacks. @default the gateway's own */
    providers?: readonly AnyProvider[] | undefined
    /** Each module's parsed environment, by module name. */
    env: Readonly<Record<string, unknown>>
    /** The rate limit of free entries whose family declares none. @default none */
    freeLimit?: RateLimit.Options | undefined
    /** Whether payments are settled here; without, every paid entry is unavailable. */
    paid: boolean
  }
  type ReturnType = {
    /** What to mount, in order: a family's routes (its plugin), or a route that answers its error. */
    routes: Route[]
    /** The free routes the families serve outside the catalog (extra routes and vendor callbacks). */
    extraRoutes: ReadonlySet<string>
    /** Background jobs of the mounted families. */
    jobs: Job[]
    /** Queue workers of the mounted families (the gateway may add its own). */
    workers: Worker[]
    /** The price rule of an entry priced per request. */
    ruleOf: (entry: Catalog.Entry) => Price.Rule | undefined
    /** The meter of an entry also offered priced by usage. */
    meterOf: (entry: Catalog.Entry) => Meter | undefined
    /** The offer validity window of an entry whose payment waits for a job, in seconds. */
    windowOf: (entry: Catalog.Entry) => number | undefined
    /** The answer schema of an entry whose shape the spec does not show. */
    outputOf: (entry: Catalog.Entry) => Documents.JsonSchema | undefined
    /** What discovery publishes of an entry beside the catalog. */
    factsOf: (entry: Catalog.Entry) => Readonly<Record<string, unknown>> | undefined
    /** The owners of what a call to an entry re-read by signing in names. */
    reaccessOf: (entry: Catalog.Entry) => ((target: Module.Target) => Promise<readonly string[]>) | undefined
    /** The rate limit of a free entry or extra route, by catalog key or `METHOD /path`. */
    limitOf: (key: string) => Limit | undefined
    /** The catalog entry a route (`METHOD /pattern`) serves. */
    entryOf: (route: string) => Catalog.Entry | undefined
    /** An entry's availability now (after `complete`). */
    availability: (entry: Catalog.Entry) => Availability
    /**
     * Settles every entry's availability once the routes are bound, given the routes implemented (`METHOD /pattern`);
     * returns a route for every entry not implemented, answering 501.
     */
    complete: (implemented: ReadonlySet<string>) => Route[]
    /** What is done with a call to a route (`METHOD /pattern`) before any payment. */
    admit: (route: string) => Admission
  }
  type Route =
    | { /** A family's routes, as its module built them. */ plugin: unknown }
    | {
        /** HTTP method. */
        method: string
        /** Route pattern. */
        path: string
        /** What it answers. */
        error: BaseError
      }
  /** A free endpoint's per-client limit and the family whose endpoints share its bucket. */
  type Limit = { family: string; options: RateLimit.Options }
  type Admission =
    | { /** Off the catalog: limited by `limit` if it has one. */ type: 'open'; limit: string }
    | { /** A free entry, limited by `limit` if it has one. */ type: 'free'; entry: Catalog.Entry; limit: string }
    | { /** A paid entry: the payment is asked for. */ type: 'paid'; entry: Catalog.Entry }
    | { /** Unavailable: answered with `error` before payment. */ type: 'refused'; error: BaseError }
  type Worker = {
    /** The queue it claims from. */
    queue: string
    /** Items handled at once per process. */
    concurrency: number
    /** Lease of a claim, in ms. */
    leaseMs: number
    /** Handles one claimed item. */
    run: (item: Claim) => Promise<Module.Outcome>
  }
  type Job = {
    /** Unique name of the job. */
    name: string
    /** Cron pattern. */
    schedule: string
    /** One tick. */
    run: () => Promise<unknown>
    /** Whether every process runs each tick (work on its own state) rather than one claiming it. @default false */
    everyProcess?: boolean
  }
}

/**
 * The paths an entry is served on: the spec's path, and for `:id` paths also the bare path with `?id=`: every parameter
 * left out (`/api/v1/wallet/:walletId/addresses` is also `/api/v1/wallet/addresses?walletId=`).
 */
function pathsOf(entry: Catalog.Entry): string[] {
  const parameters = Catalog.pathParameters(entry)
  if (parameters.length === 0) return [entry.path]
  return [entry.path, entry.path.replace(/\/:[A-Za-z]+/g, '')]
}

/**
 * A module's price rule, checked at boot: it must be keyed by an entry the module serves that is priced per request,
 * and a `varies` entry's rule must state its bounds.
 */
function assertRule(key: string, rule: Price.Rule, served: readonly Catalog.Entry[]): Price.Rule {
  const entry = served.find((candidate) => Catalog.key(candidate) === key)
  if (!entry) throw new Error(`A price rule is declared for ${key}, which its module does not serve.`)
  if (entry.price.type !== 'range' && entry.price.type !== 'varies')
    throw new Error(
      `A price rule is declared for ${key}, whose price is ${Price.toText(entry.price)}: only ranges and varies take one.`,
    )
  Price.boundsOf(entry.price, rule)
  return rule
}

/** A module's offer validity window, checked at boot: a whole number of seconds for a paid entry the module serves. */
function assertWindow(key: string, seconds: number, served: readonly Catalog.Entry[]): number {
  const entry = served.find((candidate) => Catalog.key(candidate) === key)
  if (!entry || Catalog.isFree(entry))
    throw new Error(`A validity window is declared for ${key}, which is not a paid entry its module serves.`)
  if (!Number.isSafeInteger(seconds) || seconds < 1)
    throw new Error(`The validity window of ${key} must be a positive whole number of seconds.`)
  return seconds
}

/** A module's vendor callback, checked at boot: `POST /callbacks/...`. */
function assertCallback(callback: string): string {
  if (!callback.startsWith(`POST ${callbackPrefix}`))
    throw new Error(`A vendor callback must be POST ${callbackPrefix}...; ${callback} is not.`)
  return callback
}

/**
 * Fails at boot when a mounted route (`METHOD /pattern`) has no catalog entry (nor is a family's extra route or the
 * gateway's own) or a catalog entry has no route.
 */
export function assertCoverage(mounted: ReadonlySet<string>, extraRoutes: ReadonlySet<string>): void {
  const expected = new Set([
    ...Catalog.entries.flatMap((entry) => pathsOf(entry).map((path) => `${entry.method} ${path}`)),
    ...discoveryPaths.map((path) => `GET ${path}`),
    ...healthPaths.map((path) => `GET ${path}`),
    ...operatorRoutes,
    ...extraRoutes,
  ])
  const extra = [...mounted].filter((key) => !expected.has(key))
  const missing = [...expected].filter((key) => !mounted.has(key))
  if (extra.length > 0 || missing.length > 0)
    throw new Error(
      `Routes and catalog disagree. Not in the catalog: ${extra.join(', ') || 'none'}. Not mounted: ${missing.join(', ') || 'none'}.`,
    )
}

/**
 * The canonical URL of a request to one of the original gateway's paths (`Catalog.canonicalPath`), or `undefined` for
 * any other: every method, the validation, the price, the 402's resource URL, the payment and the answer are the
 * canonical call's, so one payment serves either spelling.
 */
export function canonicalUrlOf(url: string): string | undefined {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const end = url.indexOf('?', start)
  const path = end === -1 ? url.slice(start) : url.slice(start, end)
  const canonical = Catalog.canonicalPath(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)
  return canonical === undefined ? undefined : `${url.slice(0, start)}${canonical}${end === -1 ? '' : url.slice(end)}`
}
