import { RateLimitedError, UpstreamUnavailableError } from '../core/Errors.js'
import type { Limiter } from '../core/Limiter.js'
import type * as Outbound from '../core/Outbound.js'
import type * as RateLimit from '../core/RateLimit.js'
import * as Problem from './problem.js'
import * as RequestId from './request-id.js'

/**
 * Whether a request carries a payment credential (x402 v2 `PAYMENT-SIGNATURE`, v1 `X-PAYMENT`, MPP `Authorization:
 * Payment`): such requests are not counted as unpaid. A forged one is refused by decoding, without the chain; a
 * signed one from an unfunded key is held by {@link failedVerifications}.
 */
export function carriesPayment(headers: Headers): boolean {
  if (headers.has('payment-signature') || headers.has('x-payment')) return true
  const authorization = headers.get('authorization')
  return authorization !== null && /^payment\s/i.test(authorization)
}

/** A bucket of `calls` calls per minute, in bursts of as many: how every `..._PER_MINUTE` limit reads. */
export function perMinute(calls: number): RateLimit.Options {
  return { capacity: calls, refill: calls, intervalMs: 60_000 }
}

/** Whole seconds from `now` until `retryAt` (both epoch ms), at least 1: a `Retry-After` value. */
export function retryAfterSeconds(retryAt: number, now: number): number {
  return Math.max(1, Math.ceil((retryAt - now) / 1000))
}

/**
 * Counts the unpaid requests each client has in progress on this process, refusing one more than `cap`. A count of
 * this process's own: it guards this process's event loop, which other processes do not share.
 */
export function unpaidConcurrency(parameters: unpaidConcurrency.Parameters): unpaidConcurrency.ReturnType {
  const { cap } = parameters
  const inProgress = new Map<string, number>()
  return {
    enter(client) {
      const count = inProgress.get(client) ?? 0
      if (count >= cap) return false
      inProgress.set(client, count + 1)
      return true
    },
    leave(client) {
      const count = (inProgress.get(client) ?? 1) - 1
      // Clients with nothing in progress leave the map: it holds only the clients being served now.
      if (count === 0) inProgress.delete(client)
      else inProgress.set(client, count)
    },
  }
}

export declare namespace unpaidConcurrency {
  type Parameters = {
    /** Most unpaid requests one client may have in progress at once. */
    cap: number
  }
  type ReturnType = {
    /** Counts a request of `client` in, or answers `false` when the client is at the cap (count unchanged). */
    enter: (client: string) => boolean
    /** Counts a request of `client` out, once it is answered. */
    leave: (client: string) => void
  }
}

/**
 * The per-client limit on payments whose on-chain check fails (signed by unfunded keys, say): each failure takes a
 * token of the client's bucket on the shared limiter. Once a take is refused, this process refuses the client's
 * payments before reading the chain until the bucket has a token again; other processes learn it at their own next
 * failure of that client, so each reads the chain at most once more per refill.
 */
export function failedVerifications(parameters: failedVerifications.Parameters): failedVerifications.ReturnType {
  const { limiter, options, maxClients = 10_000, now = Date.now } = parameters
  const blocked = new Map<string, number>()
  return {
    blockedUntil(client) {
      const until = blocked.get(client)
      if (until === undefined) return undefined
      if (until > now()) return until
      blocked.delete(client)
      return undefined
    },
    async record(client) {
      const taken = await limiter.take(`verify-failed ${client}`, options)
      if (taken.ok) return
      blocked.set(client, taken.retryAt)
      // Oldest first: a flood of clients evicts the earliest blocks rather than growing without bound.
      if (blocked.size > maxClients) blocked.delete(blocked.keys().next().value!)
    },
  }
}

export declare namespace failedVerifications {
  type Parameters = {
    /** Where the failures of every process are counted. */
    limiter: Limiter
    /** The bucket of failures each client has. */
    options: RateLimit.Options
    /** Most blocked clients this process remembers. @default 10_000 */
    maxClients?: number | undefined
    /** The clock, in epoch ms. @default Date.now */
    now?: (() => number) | undefined
  }
  type ReturnType = {
    /** Epoch ms until which `client`'s payments are refused before the chain is read, if they are now. */
    blockedUntil: (client: string) => number | undefined
    /** Counts a failed on-chain check of `client`'s payment. */
    record: (client: string) => Promise<void>
  }
}

/**
 * The shared limiter as requests meet it: a fault of its engine (Redis or PostgreSQL not answering) is a 503
 * `upstream_unavailable` that says to retry, before any work and with nothing charged, never a 500. Limits are not
 * skipped while the engine is away: a client is not let through uncounted.
 */
export function unavailableOnFault(limiter: Limiter): Limiter {
  return {
    async take(key, options) {
      try {
        return await limiter.take(key, options)
      } catch (error) {
        throw new UpstreamUnavailableError(
          "The store that counts this gateway's per-client limits does not answer; retry shortly. Nothing was charged.",
          { cause: error },
        )
      }
    },
    close: () => limiter.close(),
  }
}

/**
 * The outbound guard as modules see it: a URL checked for a request not yet past the payment hook (a webhook's or
 * cron job's callback, checked before the 402) takes a token of its client's bucket first, so that nobody can map
 * names and private ranges through us for free. Out of tokens, a 429 (`RateLimitedError`) before any DNS.
 */
export function checkedPerClient(parameters: checkedPerClient.Parameters): Outbound.Guard {
  const { outbound, limiter, options, clientOf } = parameters
  return {
    async check(url) {
      const client = clientOf()
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

export declare namespace checkedPerClient {
  type Parameters = {
    /** The guard checked through. */
    outbound: Outbound.Guard
    /** Where the checks are counted. */
    limiter: Limiter
    /** Each client's bucket of checks. */
    options: RateLimit.Options
    /** The client of the unpaid request being handled, if any. */
    clientOf: () => string | undefined
  }
}

/** The answer to an unpaid request over its client's cap (`cap`) of requests in progress: 429, come back in a second. */
export function tooManyInProgress(request: Request, cap: number): Response {
  RequestId.assign(request)
  const error = new RateLimitedError({
    retryAfterSeconds: 1,
    what: `this gateway: more than ${cap} unpaid requests in progress at once from this client`,
  })
  return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), {
    ...RequestId.headersOf(request),
    'retry-after': '1',
  })
}

/**
 * The rate limits of the free entries (and of the extra routes, by key) that have one: a call takes a token of its
 * client's bucket; out of tokens, a 429 with `RateLimit` and `Retry-After`. The client is its source address (free
 * calls carry no payer); requests made in process by no client share one bucket.
 */
export function freeLimits(parameters: freeLimits.Parameters): freeLimits.ReturnType {
  const { limitOf, limiter, clientOf } = parameters
  // Synchronous where there is no limit: most free calls, which then wait for nothing.
  return (key, request) => {
    const limited = limitOf(key)
    return limited && take(limited, request)
  }

  async function take(
    { family, options }: { family: string; options: RateLimit.Options },
    request: Request,
  ): Promise<Response | undefined> {
    const taken = await limiter.take(`${family} ${clientOf(request) ?? 'in-process'}`, options)
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
}

export declare namespace freeLimits {
  type Parameters = {
    /** The limit of an entry or extra route, by key, and the family it is counted under; none: unlimited. */
    limitOf: (key: string) => { family: string; options: RateLimit.Options } | undefined
    /** Where the buckets are counted. */
    limiter: Limiter
    /** The client a request counts against. */
    clientOf: (request: Request) => string | undefined
  }
  /** A 429 when the client of `request` is out of tokens for `key`, else `undefined` (at once when `key` has no limit). */
  type ReturnType = (key: string, request: Request) => Promise<Response | undefined> | undefined
}
