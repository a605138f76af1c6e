import { lookup } from 'node:dns/promises'
import { readBounded } from '../../core/internal/stream.js'
import * as Outbound from '../../core/Outbound.js'

/** Errors of a connection that was never opened, so nothing was sent and the next address may be tried. */
const notConnected = new Set(['ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'ConnectionRefused'])

/** Headers that describe a request body, dropped with it when a redirect turns the request into a GET. */
const bodyHeaders = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']

/** Headers that carry credentials, dropped when a redirect leaves the origin (as the Fetch standard does). */
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization']

/**
 * The outbound guard on Bun's fetch: resolves the host (all addresses), checks every address with
 * {@link Outbound.decide}, and connects to the checked address itself, never to the name, so that DNS answering
 * differently between the check and the connection (rebinding) cannot reach another address. Over http the URL
 * names the address and the `Host` header the host; over https, the TLS server name (SNI and certificate check) is
 * the host. Redirects are followed by hand, each hop checked and pinned the same way; time and body are bounded.
 * Expected failures come back as {@link Outbound.Refusal}; nothing is thrown for them.
 */
export function outbound(parameters: outbound.Parameters = {}): Outbound.Guard {
  const {
    allow = Outbound.emptyAllowList,
    resolve = resolveWithSystem,
    timeoutMs = 10_000,
    maxBytes = 1024 * 1024,
    maxRedirects = 3,
    ca,
  } = parameters

  /** Resolves (when the host is a name) and checks one hop; a timeout if the signal fires first. */
  async function checkHop(
    url: string | URL,
    signal: AbortSignal,
    limitMs: number,
  ): Promise<Outbound.decide.ReturnType> {
    const target = Outbound.target(url)
    if (!target.ok) return target
    if (target.host.type === 'address') return Outbound.decide({ url: target.url, allow })
    let addresses: readonly string[]
    try {
      addresses = await untilAborted(resolve(target.host.name), signal)
    } catch {
      if (signal.aborted) return timeout(target.url, limitMs)
      return refuse('unresolvable', `${Outbound.describe(target.url)} does not resolve`)
    }
    return Outbound.decide({ url: target.url, addresses, allow })
  }

  /** Sends one hop to its checked addresses in order, moving on only when a connection could not be opened. */
  async function send(
    hop: Extract<Outbound.decide.ReturnType, { ok: true }>,
    request: { method: string; headers: Headers; body: string | Uint8Array<ArrayBuffer> | undefined },
    signal: AbortSignal,
    limitMs: number,
  ): Promise<{ ok: true; response: Response } | Outbound.Refusal> {
    let code: string | undefined
    for (const address of hop.addresses) {
      const pinned = Outbound.pin({ url: hop.url, address })
      const headers = new Headers(request.headers)
      headers.set('host', pinned.host)
      const tls = {
        ...(pinned.serverName === undefined ? {} : { serverName: pinned.serverName }),
        ...(ca === undefined ? {} : { ca }),
      }
      try {
        const response = await fetch(pinned.url, {
          method: request.method,
          headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          redirect: 'manual',
          signal,
          tls,
        })
        return { ok: true, response }
      } catch (error) {
        if (signal.aborted) return timeout(hop.url, limitMs)
        code = codeOf(error)
        if (code === undefined || !notConnected.has(code)) break
      }
    }
    return refuse(
      'failed',
      `${Outbound.describe(hop.url)} could not be reached${code === undefined ? '' : ` (${code})`}`,
    )
  }

  /** Reads the answer's body up to the limit; a declared length past it fails before reading. */
  async function read(response: Response, url: URL, limitBytes: number): Promise<Outbound.Fetched | Outbound.Refusal> {
    const tooLarge = () => refuse('too_large', `${Outbound.describe(url)} answered more than ${limitBytes} bytes`)
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    if (declared > limitBytes) {
      await response.body?.cancel().catch(() => {})
      return tooLarge()
    }
    const body = response.body === null ? new Uint8Array() : await readBounded(response.body, limitBytes)
    if (body === undefined) return tooLarge()
    const headers: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      headers[name] = value
    })
    return { ok: true, status: response.status, headers, body, url: url.href }
  }

  return {
    async check(url) {
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), timeoutMs)
      try {
        const hop = await checkHop(url, controller.signal, timeoutMs)
        if (!hop.ok) return hop
        return { ok: true, url: hop.url.href, addresses: hop.addresses.map(Outbound.serializeAddress) }
      } finally {
        clearTimeout(timer)
      }
    },

    async fetch(url, init = {}) {
      const limitMs = init.timeoutMs ?? timeoutMs
      const limitBytes = init.maxBytes ?? maxBytes
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), limitMs)
      const signal = controller.signal
      let method = init.method ?? 'GET'
      let body = init.body
      const headers = new Headers(init.headers)
      let current: string | URL = url
      try {
        for (let redirects = 0; ; redirects++) {
          const hop = await checkHop(current, signal, limitMs)
          if (!hop.ok) return hop
          const sent = await send(hop, { method, headers, body }, signal, limitMs)
          if (!sent.ok) return sent
          const { response } = sent
          const next = Outbound.redirect({
            url: hop.url,
            status: response.status,
            location: response.headers.get('location'),
            method,
            redirects,
            maxRedirects,
          })
          if (next === undefined) return await read(response, hop.url, limitBytes)
          await response.body?.cancel().catch(() => {})
          if (!next.ok) return next
          method = next.method
          if (!next.keepBody) {
            body = undefined
            for (const name of bodyHeaders) headers.delete(name)
          }
          if (next.crossOrigin) for (const name of credentialHeaders) headers.delete(name)
          current = next.url
        }
      } catch (error) {
        // A body cut off by the time limit rejects the read; anything else mid-answer is a network fault.
        if (signal.aborted) return timeout(current, limitMs)
        const code = codeOf(error)
        return refuse(
          'failed',
          `${Outbound.describe(current)} failed mid-answer${code === undefined ? '' : ` (${code})`}`,
        )
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

export declare namespace outbound {
  type Parameters = {
    /** What the operator allows despite the guard (`OUTBOUND_ALLOW`). @default Outbound.emptyAllowList */
    allow?: Outbound.AllowList | undefined
    /** Every address a host name resolves to, in the order to try them; throws when it does not resolve. @default the system resolver (`node:dns` lookup, all addresses) */
    resolve?: ((hostname: string) => Promise<readonly string[]>) | undefined
    /** Time limit of one exchange (DNS, every hop, the body), in ms. @default 10000 */
    timeoutMs?: number | undefined
    /** Largest answer body accepted, in bytes. @default 1048576 */
    maxBytes?: number | undefined
    /** Most redirects followed, each re-checked. @default 3 */
    maxRedirects?: number | undefined
    /** Certificate authorities (PEM) trusted for https instead of the bundled ones: a private PKI, or tests. */
    ca?: string | string[] | undefined
  }
}

/** The system resolver: every address of the name (`/etc/hosts` included), in the resolver's order. */
async function resolveWithSystem(hostname: string): Promise<readonly string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true })
  return answers.map((answer) => answer.address)
}

/** A refusal with its message. */
function refuse(reason: Outbound.Reason, message: string): Outbound.Refusal {
  return { ok: false, reason, message }
}

/** The refusal of an exchange the time limit cut. */
function timeout(url: string | URL, limitMs: number): Outbound.Refusal {
  return refuse('timeout', `${Outbound.describe(url)} did not answer within ${limitMs} ms`)
}

/** A promise that rejects as soon as `signal` aborts (a DNS lookup cannot be cancelled, only abandoned). */
function untilAborted<value>(promise: Promise<value>, signal: AbortSignal): Promise<value> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The code of a network error (`ECONNREFUSED`, `ERR_TLS_CERT_ALTNAME_INVALID`, ...), never its message (it names the URL). */
function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : undefined
}
