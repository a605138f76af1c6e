import * as Breaker from '../../core/Breaker.js'
import * as Upstream from '../../core/Upstream.js'
import { firstEvent, relay } from './internal/sse.js'
import { readBounded } from '../../core/internal/stream.js'

/** Most bytes of an error body read to find its message. */
const errorBodyLimit = 64 * 1024

/** Longest upstream message passed on, in characters. */
const messageLimit = 500

/**
 * An HTTP client for one vendor API, shared by every adapter of that vendor: base URL and key from parameters,
 * a time limit per call, bounded retries of idempotent (GET) calls only, a circuit breaker whose state the gateway
 * reads before payment, and a size limit on every answer. Failures come back as data; the key is never shown.
 */
export function http(parameters: http.Parameters): http.Client {
  const {
    name,
    apiKey,
    fetch = globalThis.fetch,
    timeoutMs = 120_000,
    idleTimeoutMs = 60_000,
    retries = 2,
    retryDelayMs = 250,
    maxResponseBytes = 16 * 1024 * 1024,
    now = Date.now,
  } = parameters
  const baseUrl = parameters.baseUrl.replace(/\/+$/, '')
  const breaker: Breaker.Options = { threshold: 5, coolDownMs: 30_000, ...parameters.breaker }
  let state: Breaker.State = Breaker.initial

  const redact = (text: string) => (apiKey ? text.replaceAll(apiKey, '<redacted>') : text)
  const fail = (reason: Upstream.Reason, message: string, status?: number): Upstream.Failure => ({
    ok: false,
    reason,
    status,
    message: redact(message).slice(0, messageLimit),
  })

  function headers(accept: string): Record<string, string> {
    return {
      accept,
      'content-type': 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    }
  }

  /** Why calls are refused, while the breaker refuses them. */
  function refusedUntil(): string | undefined {
    const checked = Breaker.check(state, { now: now(), coolDownMs: breaker.coolDownMs })
    if (checked.ok) return undefined
    return `${name} failed ${breaker.threshold} calls in a row; calls resume after ${new Date(checked.retryAt).toISOString()}.`
  }

  /** Starts a call if the breaker admits it; otherwise the failure to answer. */
  function admit(): Upstream.Failure | undefined {
    const refused = refusedUntil()
    if (refused) return fail('unavailable', refused)
    state = Breaker.transition(state, { type: 'attempt' }, { ...breaker, now: now() })
    return undefined
  }

  /** Records how a call went. An upstream that answered at all (even refusing the input) is healthy. */
  function report(outcome: { ok: true } | Upstream.Failure): void {
    const unhealthy = !outcome.ok && Upstream.isUnhealthy(outcome)
    state = Breaker.transition(state, { type: unhealthy ? 'failure' : 'success' }, { ...breaker, now: now() })
  }

  /** The failure an error status stands for, with the upstream's own message. */
  async function refusal(response: Response): Promise<Upstream.Failure> {
    const text = await readText(response, errorBodyLimit).catch(() => undefined)
    return fail(Upstream.reasonOf(response.status), messageOf(text) ?? `answered HTTP ${response.status}`, response.status)
  }

  /** The failure of a request that threw: our time limit, or a network fault (named by its code, never its URL). */
  function faultOf(error: unknown, signal: AbortSignal): Upstream.Failure {
    if (signal.aborted) return fail('timeout', `${name} did not answer within ${timeoutMs} ms`)
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined
    return fail('failed', `${name} could not be reached${typeof code === 'string' ? ` (${code})` : ''}`)
  }

  async function sendJson(request: http.JsonRequest): Promise<Upstream.Outcome<{ body: unknown }>> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    try {
      const response = await fetch(`${baseUrl}${request.path}`, {
        method: request.method,
        headers: headers('application/json'),
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: controller.signal,
      })
      if (!response.ok) return await refusal(response)
      const text = await readText(response, maxResponseBytes)
      if (text === undefined) return fail('too_large', `${name} answered more than ${maxResponseBytes} bytes`, response.status)
      try {
        return { ok: true, body: JSON.parse(text) as unknown }
      } catch {
        return fail('failed', `${name} answered something that is not JSON`, response.status)
      }
    } catch (error) {
      return faultOf(error, controller.signal)
    } finally {
      clearTimeout(timer)
    }
  }

  async function sendStream(request: http.StreamRequest): Promise<Upstream.Outcome<{ events: ReadableStream<Uint8Array> }>> {
    const controller = new AbortController()
    // The time limit covers the first event; after it, the relay's idle timeout takes over.
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    try {
      const response = await fetch(`${baseUrl}${request.path}`, {
        method: 'POST',
        headers: headers('text/event-stream'),
        body: JSON.stringify(request.body),
        signal: controller.signal,
      })
      if (!response.ok) return await refusal(response)
      const type = response.headers.get('content-type') ?? ''
      if (!type.startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel()
        return fail('failed', `${name} answered ${type || 'no content type'} instead of an event stream`, response.status)
      }
      const reader = response.body.getReader()
      const first = await firstEvent(reader, maxResponseBytes)
      if (!first.ok) {
        await reader.cancel().catch(() => {})
        return first.reason === 'too_large'
          ? fail('too_large', `${name}'s first event is larger than ${maxResponseBytes} bytes`, response.status)
          : fail('failed', `${name} closed the stream before its first event`, response.status)
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
    } catch (error) {
      return faultOf(error, controller.signal)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async json(request) {
      const refused = admit()
      if (refused) return refused
      // Only a GET may be sent twice: a POST (a completion) may already have run, and been billed, upstream.
      const attempts = request.method === 'GET' ? retries + 1 : 1
      let outcome = await sendJson(request)
      for (let attempt = 1; attempt < attempts && !outcome.ok && Upstream.isUnhealthy(outcome); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)))
        outcome = await sendJson(request)
      }
      report(outcome)
      return outcome
    },

    async stream(request) {
      const refused = admit()
      if (refused) return refused
      const outcome = await sendStream(request)
      report(outcome)
      return outcome
    },

    available() {
      const refused = refusedUntil()
      return refused ? { ok: false, reason: refused } : { ok: true }
    },

    fail,
  }
}

export declare namespace http {
  type Parameters = {
    /** Name of the upstream in messages, e.g. `chat upstream`; never the URL, which may carry a key. */
    name: string
    /** Base URL the request paths are appended to, e.g. `https://api.example.com/v1`. */
    baseUrl: string
    /** Sent as `Authorization: Bearer <apiKey>`; never logged or shown. */
    apiKey?: string | undefined
    /** Fetch implementation. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
    /** Time limit of one call, in ms: a whole JSON answer, or a stream's first event. @default 120_000 */
    timeoutMs?: number
    /** Longest pause of a relayed stream after its first event, in ms. @default 60_000 */
    idleTimeoutMs?: number
    /** Further attempts of a GET that failed for the upstream's health (never of a POST). @default 2 */
    retries?: number
    /** Delay before the first retry, in ms; doubles each retry. @default 250 */
    retryDelayMs?: number
    /** Largest answer accepted, in bytes (a JSON body, or a whole stream). @default 16 MiB */
    maxResponseBytes?: number
    /** When the breaker opens and how long it stays open. @default { threshold: 5, coolDownMs: 30_000 } */
    breaker?: Partial<Breaker.Options>
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }

  /** A call answered with JSON. */
  type JsonRequest = {
    /** HTTP method; only GET is retried. */
    method: 'GET' | 'POST'
    /** Path after the base URL, e.g. `/models`. */
    path: string
    /** JSON body. */
    body?: unknown
  }

  /** A POST answered with server-sent events. */
  type StreamRequest = {
    /** Path after the base URL, e.g. `/chat/completions`. */
    path: string
    /** JSON body. */
    body: unknown
    /** Judges the data of the first event; a failure refuses the stream before anything is relayed. */
    check?: (data: string) => Upstream.Failure | undefined
  }

  type Client = {
    /** Sends one call and reads its JSON answer. */
    json: (request: JsonRequest) => Promise<Upstream.Outcome<{ body: unknown }>>
    /** Sends one POST and resolves once its first event arrived; `events` relays the whole stream unchanged. */
    stream: (request: StreamRequest) => Promise<Upstream.Outcome<{ events: ReadableStream<Uint8Array> }>>
    /** Whether calls may start now (the breaker is closed, or its cool-down has elapsed). */
    available: () => Upstream.Availability
    /** A failure with `message` cut to length and the key removed, for answers judged by the vendor's adapter. */
    fail: (reason: Upstream.Reason, message: string, status?: number) => Upstream.Failure
  }
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

/** The message of an error body in the shapes vendors use (`{ error: { message } }`, `{ error }`, `{ message }`), or its text. */
function messageOf(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined
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
