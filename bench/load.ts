// The benchmark's load generator: N workers, each sending one request at a time over keep-alive connections,
// until a deadline or until its own supply of requests (pre-signed payments) runs out. It measures requests per
// second and the latency of each request, and it stops by itself.

/** Upper bounds (ms) of the latency histogram's buckets; the last one catches the rest. */
export const bucketBoundsMs = [
  1,
  2,
  5,
  10,
  20,
  50,
  100,
  200,
  500,
  1_000,
  2_000,
  5_000,
  10_000,
  Number.POSITIVE_INFINITY,
] as const

/** Runs one round of load and answers what it measured. */
export async function run(parameters: run.Parameters): Promise<run.Result> {
  const {
    url,
    concurrency,
    durationMs,
    maxRequests = Number.POSITIVE_INFINITY,
    check = (response: Response) => response.ok,
  } = parameters
  const request: NonNullable<run.Parameters['request']> = parameters.request ?? (() => ({}))
  const latencies: number[] = []
  const successLatencies: number[] = []
  let failures = 0
  let sent = 0
  let exhausted = false
  const firstFailures: string[] = []
  const started = performance.now()
  const deadline = started + durationMs

  async function worker(index: number) {
    for (let call = 0; performance.now() < deadline && sent < maxRequests; call++) {
      const init = request(index, call)
      if (init === undefined) {
        exhausted = true
        return
      }
      sent++
      const sentAt = performance.now()
      try {
        const response = await fetch(url, { ...init, headers: init.headers ?? {} })
        const body = await response.text()
        const latency = performance.now() - sentAt
        latencies.push(latency)
        if (!check(response, body)) {
          failures++
          if (firstFailures.length < 3) firstFailures.push(`${response.status} ${body.slice(0, 300)}`)
        } else {
          successLatencies.push(latency)
          parameters.onSuccess?.(response, index)
        }
      } catch (error) {
        latencies.push(performance.now() - sentAt)
        failures++
        if (firstFailures.length < 3) firstFailures.push(String(error))
      }
    }
  }

  await Promise.all(Array.from({ length: concurrency }, (_, index) => worker(index)))
  const seconds = (performance.now() - started) / 1000
  const succeeded = latencies.length - failures
  return {
    requests: latencies.length,
    failures,
    seconds,
    perSecond: succeeded / seconds,
    exhausted,
    firstFailures,
    latency: summarize(successLatencies),
  }
}

export declare namespace run {
  type Parameters = {
    /** Absolute URL every request goes to. */
    url: string
    /** Workers, each with one request in flight. */
    concurrency: number
    /** No request starts after this long, in ms. */
    durationMs: number
    /** No request starts after this many. @default unbounded */
    maxRequests?: number
    /** The `call`-th request of `worker`; `undefined` ends that worker (its pre-signed supply is used up). @default a plain GET */
    request?: (worker: number, call: number) => RequestInit | undefined
    /** Whether a response counts as a success. @default status 2xx */
    check?: (response: Response, body: string) => boolean
    /** Called with every successful response. */
    onSuccess?: (response: Response, worker: number) => void
  }
  type Result = {
    /** Requests answered (successes and failures). */
    requests: number
    /** Requests that failed the check or the transport. */
    failures: number
    /** From the first request sent to the last answer, in seconds. */
    seconds: number
    /** Successful requests per second. */
    perSecond: number
    /** Whether some worker ran out of requests before the deadline. */
    exhausted: boolean
    /** Up to three failures, for the log. */
    firstFailures: string[]
    /** Latency of every successful request. */
    latency: Latency
  }
}

/** A latency distribution, in ms. */
export type Latency = {
  /** Median. */
  p50: number
  /** 90th percentile. */
  p90: number
  /** 99th percentile. */
  p99: number
  /** Slowest. */
  max: number
  /** Mean. */
  mean: number
  /** Requests per bucket: `count` answered in at most `upToMs` (and more than the previous bound). */
  histogram: { upToMs: number | 'inf'; count: number }[]
}

/** Percentiles, mean and histogram of latencies in ms. */
export function summarize(latencies: number[]): Latency {
  const sorted = Float64Array.from(latencies).sort()
  const at = (fraction: number) =>
    sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!
  const counts = bucketBoundsMs.map(() => 0)
  for (const latency of sorted) counts[bucketBoundsMs.findIndex((bound) => latency <= bound)]!++
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]!,
    mean: sorted.length === 0 ? 0 : sorted.reduce((sum, latency) => sum + latency, 0) / sorted.length,
    histogram: bucketBoundsMs.map((bound, index) => ({
      upToMs: Number.isFinite(bound) ? bound : ('inf' as const),
      count: counts[index]!,
    })),
  }
}
