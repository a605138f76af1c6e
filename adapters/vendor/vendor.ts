import { createHash } from 'node:crypto'
import * as Breaker from '../../core/Breaker.js'
import * as Cache from '../../core/Cache.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import { readBounded } from '../../core/internal/stream.js'
import * as RateLimit from '../../core/RateLimit.js'
import * as Upstream from '../../core/Upstream.js'
import { firstEvent, relay } from './internal/sse.js'

/** Most bytes of an error body read to find its message. */
const errorBodyLimit = 64 * 1024

/** Longest upstream message passed on, in characters. */
const messageLimit = 500

/** Statuses worth sending an idempotent call again for: the vendor was slow, overloaded or briefly down. */
const retryableStatuses = new Set([408, 425, 429, 500, 502, 503, 504])

/** Latency samples kept per vendor for percentiles. */
const maxLatencySamples = 1000

const healthById = new Map<string, Upstream.Health>()

function healthOf(id: string, name: string): Upstream.Health {
  let seen = healthById.get(id)
  if (!seen) {
    seen = { id, name, calls: 0, failures: 0, seconds: [], breaker: () => 'closed' }
    healthById.set(id, seen)
  }
  return seen
}

/** How every vendor called in this process has fared, by vendor id. */
export function health(): readonly Upstream.Health[] {
  return [...healthById.values()]
}

/**
 * The one HTTP client every vendor adapter stands on, built from the vendor's declaration: base URL, auth (none,
 * bearer, header, basic, query key), a time limit per request, bounded retries of idempotent calls only (with
 * backoff, honouring `Retry-After`), a size limit on every answer, a token-bucket rate limit, a TTL cache for GETs,
 * and a circuit breaker. `available()` is what the gateway asks before payment. Failures come back as data, never
 * thrown; no secret and no URL ever appears in a failure.
 */
export function vendor(declaration: vendor.Declaration): vendor.Client {
  const {
    id,
    name,
    headers: fixedHeaders = {},
    fetch = globalThis.fetch,
    timeoutMs = 30_000,
    idleTimeoutMs = 60_000,
    retries = 2,
    retryDelayMs = 250,
    maxRetryDelayMs = 10_000,
    maxResponseBytes = 16 * 1024 * 1024,
    now = Date.now,
    sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    errorMessage = defaultErrorMessage,
  } = declaration
  const auth: vendor.Auth = declaration.auth ?? { type: 'none' }
  const baseUrl = declaration.baseUrl
  try {
    new URL(baseUrl)
  } catch {
    // The URL may carry a key, so the message does not repeat it.
    throw new TypeError(`The base URL of ${name} is not a URL.`)
  }
  const breaker: Breaker.Options = { threshold: 5, coolDownMs: 30_000, ...declaration.breaker }
  const limit = declaration.rateLimit
  const maxWaitMs = limit?.maxWaitMs ?? 1_000
  const cache = declaration.cache
    ? Cache.create<Answer>({ ttlMs: declaration.cache.ttlMs, maxEntries: declaration.cache.maxEntries, now })
    : undefined
  const inFlight = new Map<string, Promise<Upstream.Outcome<Answer>>>()
  let circuit: Breaker.State = Breaker.initial
  let bucket = limit ? RateLimit.initial(limit, now()) : undefined

  /** A failure with `message` cut to length and every secret of `credentials` (and the base URL) removed. */
  function failure(
    credentials: vendor.Auth,
    reason: Upstream.Reason,
    message: string,
    status?: number,
  ): Upstream.Failure {
    let text = message.replaceAll(baseUrl, '<redacted>')
    for (const secret of secretsOf(credentials)) text = text.replaceAll(secret, '<redacted>')
    return { ok: false, reason, status, message: text.slice(0, messageLimit) }
  }
  const fail = (reason: Upstream.Reason, message: string, status?: number) => failure(auth, reason, message, status)

  /** Why calls with `credentials` cannot be made at all: a key the declaration needs is not set. */
  function missingKey(credentials: vendor.Auth): string | undefined {
    if (credentials.type === 'none' || secretOf(credentials) !== undefined) return undefined
    return `${name} needs a key${credentials.env ? `; set ${credentials.env}` : ''}.`
  }

  /** Why calls are refused, while the breaker refuses them. */
  function breakerRefusal(): string | undefined {
    const checked = Breaker.check(circuit, { now: now(), coolDownMs: breaker.coolDownMs })
    if (checked.ok) return undefined
    return `${name} failed ${breaker.threshold} calls in a row; calls resume after ${new Date(checked.retryAt).toISOString()}.`
  }

  /** Why calls are refused by the rate limit, when the next token is further away than a call may wait. */
  function rateRefusal(retryAt: number): string {
    const next = new Date(retryAt).toISOString()
    return `${name} takes ${limit!.refill} calls per ${limit!.intervalMs} ms from this gateway; the next may start at ${next}.`
  }

  /**
   * Reserves the next token for this call: the ms it must wait for it (0: now), or the epoch ms of that token when it is
   * further away than `maxWaitMs` (nothing is reserved then). Reserving debits the bucket at once, below empty if need
   * be, so callers that arrive together queue in arrival order, each a full interval after the one before.
   */
  function reserve(): { wait: number } | { refusedUntil: number } {
    if (!limit) return { wait: 0 }
    const at = now()
    const current = RateLimit.refill(bucket!, { ...limit, now: at })
    const checked = RateLimit.check(current, { ...limit, now: at })
    const startAt = checked.ok ? at : checked.retryAt
    bucket = current
    if (startAt - at > maxWaitMs) return { refusedUntil: startAt }
    bucket = { level: current.level - limit.intervalMs, updatedAt: current.updatedAt }
    return { wait: startAt - at }
  }

  /**
   * Starts one request if the breaker and the rate limit admit it; otherwise the failure to answer (nothing was sent).
   * Without a wait it decides synchronously, so a probe is under way before the caller's next line runs.
   */
  async function admit(credentials: vendor.Auth): Promise<Upstream.Failure | undefined> {
    const refused = breakerRefusal()
    if (refused) return failure(credentials, 'unavailable', refused)
    const reserved = reserve()
    if ('refusedUntil' in reserved) return failure(credentials, 'unavailable', rateRefusal(reserved.refusedUntil))
    if (reserved.wait > 0) {
      await sleep(reserved.wait)
      // The breaker may have opened, or a probe started, while this call waited for its token.
      const again = breakerRefusal()
      if (again) return failure(credentials, 'unavailable', again)
    }
    circuit = Breaker.transition(circuit, { type: 'attempt' }, { ...breaker, now: now() })
    return undefined
  }

  /** Records how one request went, `startedAt` epoch ms. A vendor that answered at all (even refusing the input) is healthy. */
  function report(outcome: { ok: true } | Upstream.Failure, startedAt: number): void {
    const unhealthy = !outcome.ok && Upstream.isUnhealthy(outcome)
    circuit = Breaker.transition(circuit, { type: unhealthy ? 'failure' : 'success' }, { ...breaker, now: now() })
    const seen = healthOf(id, name)
    seen.calls++
    if (unhealthy) seen.failures++
    seen.seconds.push((now() - startedAt) / 1000)
    if (seen.seconds.length > maxLatencySamples) seen.seconds.shift()
    seen.breaker = () => circuit.status
  }

  /** The URL of a request, without (`withKey: false`) or with a query key. */
  function urlOf(
    request: { path?: string; query?: Record<string, string> },
    credentials: vendor.Auth,
    withKey: boolean,
  ): URL {
    const path = request.path ?? ''
    // An empty path is the base URL itself, exactly as configured (a JSON-RPC endpoint may need its trailing slash).
    const url = new URL(path === '' ? baseUrl : `${baseUrl.replace(/\/+$/, '')}${path}`)
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value)
    if (withKey && credentials.type === 'query' && credentials.value !== undefined)
      url.searchParams.set(credentials.name, credentials.value)
    return url
  }

  /** Headers of a request: the declaration's, the credentials', and what the body and answer are. */
  function headersOf(
    credentials: vendor.Auth,
    accept: string,
    contentType: string | undefined,
  ): Record<string, string> {
    const headers: Record<string, string> = { ...fixedHeaders, accept }
    if (contentType) headers['content-type'] = contentType
    if (credentials.type === 'bearer' && credentials.token !== undefined)
      headers.authorization = `Bearer ${credentials.token}`
    if (credentials.type === 'basic' && credentials.password !== undefined)
      headers.authorization = `Basic ${basicOf(credentials.username, credentials.password)}`
    if (credentials.type === 'header' && credentials.value !== undefined)
      headers[credentials.name.toLowerCase()] = credentials.value
    return headers
  }

  /** The failure of a request that threw: our time limit, or a network fault (never its text, which may quote the URL). */
  function faultOf(credentials: vendor.Auth, signal: AbortSignal, label: string | undefined): Upstream.Failure {
    if (signal.aborted)
      return failure(
        credentials,
        'timeout',
        `${name} did not answer${label ? ` ${label}` : ''} within ${timeoutMs} ms.`,
      )
    return failure(credentials, 'failed', `${name} could not be reached.`)
  }

  /** The failure an error status stands for, in the vendor's own words. */
  function refusal(
    credentials: vendor.Auth,
    status: number,
    text: string | undefined,
    label: string | undefined,
  ): Upstream.Failure {
    return failure(credentials, Upstream.reasonOf(status), errorMessage({ status, text, label }), status)
  }

  /** Sends one request and reads its JSON answer. */
  async function sendJson(request: vendor.Request, credentials: vendor.Auth): Promise<Tried> {
    const method = request.method ?? 'GET'
    const { label } = request
    const body: { text: string | FormData; type: string | undefined } | undefined =
      request.multipart !== undefined
        ? // fetch writes the multipart boundary into the content type itself.
          { text: request.multipart(), type: undefined }
        : request.form !== undefined
          ? { text: new URLSearchParams(request.form).toString(), type: 'application/x-www-form-urlencoded' }
          : request.body !== undefined
            ? { text: JSON.stringify(request.body), type: 'application/json' }
            : undefined
    const controller = new AbortController()
    // The time limit covers reading the body too.
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    try {
      const response = await fetch(urlOf(request, credentials, true), {
        method,
        headers: headersOf(
          credentials,
          request.format === 'text' ? (request.type ?? '*/*') : 'application/json',
          body?.type,
        ),
        ...(body ? { body: body.text } : {}),
        signal: controller.signal,
      })
      const { status } = response
      const retryAfterMs = retryAfterOf(response.headers.get('retry-after'), now())
      if (!response.ok && !accepts(request.accept, status)) {
        const text = await readText(response, errorBodyLimit).catch(() => undefined)
        return {
          outcome: refusal(credentials, status, text, label),
          retryable: retryableStatuses.has(status),
          retryAfterMs,
        }
      }
      const text = await readText(response, maxResponseBytes)
      if (text === undefined) {
        const tooLarge = failure(
          credentials,
          'too_large',
          `${name} answered more than ${maxResponseBytes} bytes.`,
          status,
        )
        return { outcome: tooLarge, retryable: false }
      }
      // A text answer (XML, CSV) is the adapter's to parse.
      if (request.format === 'text') {
        const refused = request.check?.(text, status)
        if (refused) return { outcome: refused, retryable: false }
        return { outcome: { ok: true, status, body: text }, retryable: false }
      }
      let parsed: unknown
      if (text.trim() !== '')
        try {
          parsed = JSON.parse(text)
        } catch {
          // A status the request accepts as an answer stands on its own (Crossref's 404 is plain text).
          if (!response.ok && accepts(request.accept, status))
            return { outcome: { ok: true, status, body: undefined }, retryable: false }
          // An error status the vendor documents, without the documented body, is the error it says it is.
          if (!response.ok)
            return {
              outcome: refusal(credentials, status, text, label),
              retryable: retryableStatuses.has(status),
              retryAfterMs,
            }
          return {
            outcome: failure(
              credentials,
              'failed',
              `${name} answered${label ? ` ${label}` : ''} with a body that is not JSON.`,
              status,
            ),
            retryable: false,
          }
        }
      const refused = request.check?.(parsed, status)
      if (refused) return { outcome: refused, retryable: false }
      return { outcome: { ok: true, status, body: parsed }, retryable: false }
    } catch {
      return { outcome: faultOf(credentials, controller.signal, label), retryable: true }
    } finally {
      clearTimeout(timer)
    }
  }

  /** Sends `request` through the breaker and the rate limit, again while it may be and is worth it. */
  async function exchange(request: vendor.Request, credentials: vendor.Auth): Promise<Upstream.Outcome<Answer>> {
    const method = request.method ?? 'GET'
    // Only an idempotent call may be sent twice: a POST (a completion, a payment) may already have run upstream.
    const attempts = (request.idempotent ?? (method === 'GET' || method === 'HEAD')) ? retries + 1 : 1
    const refused = await admit(credentials)
    if (refused) return refused
    const startedAt = now()
    let tried = await sendJson(request, credentials)
    for (let attempt = 1; attempt < attempts && !tried.outcome.ok && tried.retryable; attempt++) {
      const delay = Math.max(Math.min(retryDelayMs * 2 ** (attempt - 1), maxRetryDelayMs), tried.retryAfterMs ?? 0)
      // A vendor that asks for a longer pause than a caller can wait gets no retry.
      if (delay > maxRetryDelayMs) break
      if (delay > 0) await sleep(delay)
      // A retry is refused like any call (the breaker opened meanwhile, no token in time); the vendor's own failure
      // then says more than our refusal.
      if (await admit(credentials)) break
      tried = await sendJson(request, credentials)
    }
    // One call, one verdict for the breaker, however many times it was sent.
    report(tried.outcome, startedAt)
    return tried.outcome
  }

  async function json(request: vendor.Request): Promise<Upstream.Outcome<Answer>> {
    const credentials = request.auth ?? auth
    const missing = missingKey(credentials)
    if (missing) return failure(credentials, 'unavailable', missing)
    const cacheable = cache !== undefined && (request.method ?? 'GET') === 'GET' && request.cache !== false
    if (!cacheable) return exchange(request, credentials)
    const key = `${identityOf(credentials)} ${urlOf(request, credentials, false).href}`
    const hit = cache.get(key)
    if (hit) return { ok: true, ...hit }
    // Callers that miss together share one request.
    const pending = inFlight.get(key)
    if (pending) return pending
    const started = exchange(request, credentials)
      .then((outcome) => {
        if (outcome.ok) cache.set(key, { status: outcome.status, body: outcome.body })
        return outcome
      })
      .finally(() => inFlight.delete(key))
    inFlight.set(key, started)
    return started
  }

  async function sendStream(
    request: vendor.StreamRequest,
    credentials: vendor.Auth,
  ): Promise<Upstream.Outcome<{ events: ReadableStream<Uint8Array> }>> {
    const controller = new AbortController()
    // The time limit covers the first event; after it, the relay's idle timeout takes over.
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    try {
      const response = await fetch(urlOf(request, credentials, true), {
        method: 'POST',
        headers: headersOf(credentials, 'text/event-stream', 'application/json'),
        body: JSON.stringify(request.body),
        signal: controller.signal,
      })
      if (!response.ok) {
        const text = await readText(response, errorBodyLimit).catch(() => undefined)
        return refusal(credentials, response.status, text, undefined)
      }
      const type = response.headers.get('content-type') ?? ''
      if (!type.startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel()
        return failure(
          credentials,
          'failed',
          `${name} answered ${type || 'no content type'} instead of an event stream`,
          response.status,
        )
      }
      const reader = response.body.getReader()
      const first = await firstEvent(reader, maxResponseBytes)
      if (!first.ok) {
        await reader.cancel().catch(() => {})
        return first.reason === 'too_large'
          ? failure(
              credentials,
              'too_large',
              `${name}'s first event is larger than ${maxResponseBytes} bytes`,
              response.status,
            )
          : failure(credentials, 'failed', `${name} closed the stream before its first event`, response.status)
      }
      const refused = request.check?.(first.data)
      if (refused) {
        await reader.cancel().catch(() => {})
        return refused
      }
      const events = relay({
        reader,
        head: first.chunks,
        bytes: first.bytes,
        limitBytes: maxResponseBytes,
        idleTimeoutMs,
        abort: (reason) => controller.abort(reason),
      })
      return { ok: true, events }
    } catch {
      return faultOf(credentials, controller.signal, undefined)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    id,
    name,
    json,
    get: (path, options = {}) => json({ ...options, method: 'GET', path }),
    post: (path, body, options = {}) => json({ ...options, method: 'POST', path, body }),

    async stream(request) {
      const credentials = request.auth ?? auth
      const missing = missingKey(credentials)
      if (missing) return failure(credentials, 'unavailable', missing)
      const refused = await admit(credentials)
      if (refused) return refused
      const startedAt = now()
      const outcome = await sendStream(request, credentials)
      report(outcome, startedAt)
      return outcome
    },

    available() {
      const missing = missingKey(auth)
      if (missing) return { ok: false, reason: missing }
      const refused = breakerRefusal()
      if (refused) return { ok: false, reason: refused }
      if (limit && bucket) {
        const checked = RateLimit.check(bucket, { ...limit, now: now() })
        if (!checked.ok && checked.retryAt - now() > maxWaitMs)
          return { ok: false, reason: rateRefusal(checked.retryAt) }
      }
      return { ok: true }
    },

    fail,

    read(map, status) {
      try {
        return map()
      } catch (error) {
        if (error instanceof UnreadableAnswerError) return fail('failed', error.message, status)
        throw error
      }
    },
  }
}

/** The fields of a JSON object in a vendor's answer; anything else (an array, a string, nothing) has none. */
export function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

export declare namespace vendor {
  /** How calls prove who the gateway is. A secret that is `undefined` (its variable not set) makes the vendor unavailable. */
  type Auth =
    | { /** No credentials (a public API). */ type: 'none' }
    | {
        /** `Authorization: Bearer <token>`. */
        type: 'bearer'
        /** The token; never shown. */
        token: string | undefined
        /** Variable that sets it, named when it is missing, e.g. `CHAT_UPSTREAM_KEY`. */
        env?: string
      }
    | {
        /** A header of the vendor's choosing, e.g. `x-api-key: <value>`. */
        type: 'header'
        /** Header name. */
        name: string
        /** Header value; never shown. */
        value: string | undefined
        /** Variable that sets it, named when it is missing. */
        env?: string
      }
    | {
        /** `Authorization: Basic base64(<username>:<password>)`. */
        type: 'basic'
        /** User name. */
        username: string
        /** Password; never shown. */
        password: string | undefined
        /** Variable that sets it, named when it is missing. */
        env?: string
      }
    | {
        /** A query parameter, e.g. `?api_key=<value>`. */
        type: 'query'
        /** Parameter name. */
        name: string
        /** Parameter value; never shown. */
        value: string | undefined
        /** Variable that sets it, named when it is missing. */
        env?: string
      }

  /** A vendor's rate limit: a token bucket, and how long a call may wait for a token. */
  type Limit = RateLimit.Options & {
    /** Longest a call waits for a token, in ms; past it the call fails `unavailable` with the time of the next. @default 1_000 */
    maxWaitMs?: number
  }

  /** Limits and machinery every vendor adapter lets its caller override. */
  type Options = {
    /** Fetch implementation. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
    /** Time limit of one request, in ms: its whole JSON answer, or a stream's first event. @default 30_000 */
    timeoutMs?: number
    /** Longest pause of a relayed stream after its first event, in ms. @default 60_000 */
    idleTimeoutMs?: number
    /** Further attempts of an idempotent call that got no answer, or 408, 425, 429 or 5xx. @default 2 */
    retries?: number
    /** Delay before the first retry, in ms; doubles each retry. @default 250 */
    retryDelayMs?: number
    /** Longest pause before a retry, in ms; a `Retry-After` asking for more ends the retries. @default 10_000 */
    maxRetryDelayMs?: number
    /** Largest answer accepted, in bytes (a JSON body, or a whole stream). @default 16 MiB */
    maxResponseBytes?: number
    /** Calls the vendor accepts from us; absent, no limit. */
    rateLimit?: Limit | undefined
    /** How long GET answers are served from memory; absent, nothing is cached. */
    cache?:
      | {
          /** Time to live, in ms. */
          ttlMs: number
          /** Most answers kept. @default 100 */
          maxEntries?: number
        }
      | undefined
    /** When the breaker opens and how long it stays open. @default { threshold: 5, coolDownMs: 30_000 } */
    breaker?: Partial<Breaker.Options>
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
    /** Waits `ms` (retry backoff, rate limit). @default setTimeout */
    sleep?: (ms: number) => Promise<void>
  }

  /** One vendor: who it is, where, how to authenticate, and how its errors read. */
  type Declaration = Options & {
    /** Stable id of the vendor, e.g. `horizon`. */
    id: string
    /** Name in messages, e.g. `Horizon`; never the URL, which may carry a key. */
    name: string
    /** Base URL the paths are appended to, e.g. `https://api.example.com/v1`; never shown. */
    baseUrl: string
    /** Credentials sent with every call. @default { type: 'none' } */
    auth?: Auth
    /** Headers sent with every call; not secret (credentials go in `auth`, which is redacted). */
    headers?: Record<string, string>
    /**
     * The message of an error answer, from its status and body (the vendor's error shape). @default the `error.message`,
     * `error`, `message` or `detail` of a JSON body, else the body's text, else `answered HTTP <status>`
     */
    errorMessage?: (answer: ErrorAnswer) => string
  }

  /** An error answer, for {@link Declaration.errorMessage}. */
  type ErrorAnswer = {
    /** HTTP status. */
    status: number
    /** The first 64 KiB of the body, when it could be read. */
    text: string | undefined
    /** What the call was, when the adapter said, e.g. `fee`. */
    label: string | undefined
  }

  /** HTTP methods a vendor call uses. */
  type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

  /** A call answered with JSON. */
  type Request = {
    /** HTTP method. @default 'GET' */
    method?: Method
    /** Path after the base URL, e.g. `/models`; empty for the base URL itself (a JSON-RPC endpoint). @default '' */
    path?: string
    /** Query parameters. */
    query?: Record<string, string>
    /** JSON body. */
    body?: unknown
    /** Form body (`application/x-www-form-urlencoded`), instead of `body`. */
    form?: Record<string, string>
    /** Multipart body (`multipart/form-data`, an upload), instead of `body`; built again for every attempt. */
    multipart?: () => FormData
    /** Error statuses the vendor documents as answers (Horizon's 404 problem): they come back `ok`, with their status and body (`undefined` when it is not JSON). */
    accept?: readonly number[] | ((status: number) => boolean)
    /** Whether sending the call twice is harmless (a JSON-RPC read). @default true for GET and HEAD, false otherwise */
    idempotent?: boolean
    /** Whether a GET is served from, and kept in, the cache. @default true where the declaration has a cache */
    cache?: boolean
    /** What the call is, in messages, e.g. `fee`. */
    label?: string
    /** Judges an answer's body: a failure is returned instead (and neither cached nor counted healthy). */
    check?: (body: unknown, status: number) => Upstream.Failure | undefined
    /** Credentials of this call instead of the declaration's (a caller's own key); cached answers are kept apart by them. */
    auth?: Auth
    /** How the answer is read: parsed as JSON, or handed over as text (XML, CSV) for the adapter to parse. @default 'json' */
    format?: 'json' | 'text'
    /** The `accept` header of a text call, e.g. `application/atom+xml`. @default '*\/*' */
    type?: string
  }

  /** A POST answered with server-sent events. */
  type StreamRequest = {
    /** Path after the base URL, e.g. `/chat/completions`. */
    path: string
    /** JSON body. */
    body: unknown
    /** Judges the data of the first event; a failure refuses the stream before anything is relayed. */
    check?: (data: string) => Upstream.Failure | undefined
    /** Credentials of this call instead of the declaration's. */
    auth?: Auth
  }

  /** An answer: its status (2xx, or one the request accepts) and parsed JSON body (`undefined` when empty), or its text. */
  type Answer = {
    /** HTTP status. */
    status: number
    /** Parsed JSON body, or the text of a `format: 'text'` call. */
    body: unknown
  }

  /** What a vendor adapter calls. */
  type Client = {
    /** Stable id of the vendor. */
    id: string
    /** Name of the vendor in messages. */
    name: string
    /** Sends one call and reads its JSON answer. */
    json: (request: Request) => Promise<Upstream.Outcome<Answer>>
    /** `json` with `GET path`. */
    get: (
      path: string,
      options?: Omit<Request, 'method' | 'path' | 'body' | 'form' | 'multipart'>,
    ) => Promise<Upstream.Outcome<Answer>>
    /** `json` with `POST path` and a JSON body. */
    post: (
      path: string,
      body: unknown,
      options?: Omit<Request, 'method' | 'path' | 'body'>,
    ) => Promise<Upstream.Outcome<Answer>>
    /** Sends one POST and resolves once its first event arrived; `events` relays the whole stream unchanged. */
    stream: (request: StreamRequest) => Promise<Upstream.Outcome<{ events: ReadableStream<Uint8Array> }>>
    /** Whether calls may start now: the key is set, the breaker is closed, and a token is near enough. */
    available: () => Upstream.Availability
    /** A failure with `message` cut to length and every secret removed, for answers the adapter judges. */
    fail: (reason: Upstream.Reason, message: string, status?: number) => Upstream.Failure
    /** Runs `map` over an answer; a thrown {@link UnreadableAnswerError} becomes a `failed` failure, message kept. */
    read: <value>(map: () => value, status?: number) => value | Upstream.Failure
  }
}

/** A JSON answer, as the cache keeps it. */
type Answer = vendor.Answer

/** One request sent. */
type Tried = {
  /** What came of it. */
  outcome: Upstream.Outcome<Answer>
  /** Whether sending it again may help: no answer, or 408, 425, 429, 5xx. */
  retryable: boolean
  /** How long the vendor asked us to wait (`Retry-After`), in ms. */
  retryAfterMs?: number | undefined
}

/** The secret of `auth`, or `undefined` when there is none (or it is not set). */
function secretOf(auth: vendor.Auth): string | undefined {
  switch (auth.type) {
    case 'none':
      return undefined
    case 'bearer':
      return auth.token
    case 'basic':
      return auth.password
    case 'header':
    case 'query':
      return auth.value
  }
}

/** Every form in which `auth`'s secret could appear in a text: as set, URL-encoded, inside a basic credential. */
function secretsOf(auth: vendor.Auth): string[] {
  const secret = secretOf(auth)
  if (secret === undefined || secret === '') return []
  const forms = [secret, encodeURIComponent(secret)]
  if (auth.type === 'basic') forms.push(basicOf(auth.username, secret))
  return forms
}

/** The base64 of `username:password`, as HTTP basic authentication sends it. */
function basicOf(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`, 'utf8').toString('base64')
}

/** Who `auth` authenticates as, for cache keys: a digest of its kind and secret, never the secret itself. */
function identityOf(auth: vendor.Auth): string {
  const secret = secretOf(auth)
  if (secret === undefined) return 'anonymous'
  const name = auth.type === 'header' || auth.type === 'query' ? auth.name : auth.type === 'basic' ? auth.username : ''
  return createHash('sha256').update(`${auth.type}\n${name}\n${secret}`).digest('hex').slice(0, 32)
}

/** Whether `accept` (a list of statuses, or a test) takes `status` as an answer. */
function accepts(accept: vendor.Request['accept'], status: number): boolean {
  if (accept === undefined) return false
  return typeof accept === 'function' ? accept(status) : accept.includes(status)
}

/** `Retry-After` in ms from `now`: delay-seconds or an HTTP date; `undefined` when absent or unreadable. */
function retryAfterOf(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1_000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The body as text, or `undefined` when it is larger than `limitBytes` (checked as it streams in). */
async function readText(response: Response, limitBytes: number): Promise<string | undefined> {
  if (!response.body) return ''
  if (Number(response.headers.get('content-length') ?? 0) > limitBytes) {
    await response.body.cancel()
    return undefined
  }
  const bytes = await readBounded(response.body, limitBytes)
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
}

/** The message of an error body in the shapes most vendors use (`{ error: { message } }`, `{ error }`, `{ message }`, `{ detail }`). */
function defaultErrorMessage(answer: vendor.ErrorAnswer): string {
  const { status, text } = answer
  if (text === undefined || text.trim() === '') return `answered HTTP ${status}`
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown }
    const error = body.error as { message?: unknown } | string | undefined
    if (typeof error === 'string') return error
    if (typeof error?.message === 'string') return error.message
    if (typeof body.message === 'string') return body.message
    if (typeof body.detail === 'string') return body.detail
  } catch {}
  return text.trim()
}
