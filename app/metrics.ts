import type * as Upstream from '../core/Upstream.js'
import type { Logger } from './log.js'

/** Label names and values of one series. */
export type Labels = Record<string, string>

/** Upper bounds of the latency histograms, in seconds. */
const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** Upper bounds of the settlement batch size histogram, in authorizations. */
const batchBuckets = [1, 2, 5, 10, 20, 50, 100]

/** Upper bounds of the settlement gas histogram, in gas units. */
const gasBuckets = [50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000]

/** Request latencies kept per route for the dashboard's percentiles. */
const maxSamples = 1000

/** Events the dashboard lists: reconciliation and settlements that did not simply settle. */
const noted = new Set(['ledger_reconciled', 'settlement_failed', 'settlement_pending', 'lease_lost', 'undo_incomplete'])

/** Events kept for the dashboard. */
const maxEvents = 50

/** Most distinct routes counted; beyond it, requests count under `other` (a scan cannot grow the series). */
const maxRoutes = 500

/**
 * The gateway's metrics, written in the Prometheus text exposition format (version 0.0.4) by hand: counters and
 * histograms the gateway updates, gauges read when scraped. Everything is in this process's memory.
 */
export function metrics(parameters: metrics.Parameters = {}): metrics.ReturnType {
  const { upstreams = () => [] } = parameters
  const counters = new Map<string, { help: string; series: Map<string, number> }>()
  const histograms = new Map<
    string,
    { help: string; buckets: number[]; series: Map<string, { counts: number[]; sum: number; count: number }> }
  >()
  const gauges = new Map<string, { help: string; read: () => Promise<[Labels, number][]> | [Labels, number][] }>()
  const samples = new Map<string, { values: number[]; next: number }>()
  const recent: metrics.Event[] = []

  function count(name: string, help: string, labels: Labels, by = 1): void {
    countKey(name, help, JSON.stringify(labels), by)
  }

  function countKey(name: string, help: string, key: string, by: number): void {
    let counter = counters.get(name)
    if (!counter) {
      counter = { help, series: new Map<string, number>() }
      counters.set(name, counter)
    }
    counter.series.set(key, (counter.series.get(key) ?? 0) + by)
  }

  function observe(name: string, help: string, buckets: number[], labels: Labels, value: number): void {
    observeKey(name, help, buckets, JSON.stringify(labels), value)
  }

  function observeKey(name: string, help: string, buckets: number[], key: string, value: number): void {
    let histogram = histograms.get(name)
    if (!histogram) {
      histogram = { help, buckets, series: new Map() }
      histograms.set(name, histogram)
    }
    let series = histogram.series.get(key)
    if (!series) {
      series = { counts: buckets.map(() => 0), sum: 0, count: 0 }
      histogram.series.set(key, series)
    }
    for (let index = 0; index < buckets.length; index++) if (value <= buckets[index]!) series.counts[index]!++
    series.sum += value
    series.count++
  }

  // Every request is counted: its series keys are built once per method, route and status, not per request.
  const requestKeys = new Map<string, { counted: string; timed: string; route: string }>()
  function requestKeysOf(method: string, route: string, status: number) {
    const cacheKey = `${method} ${status} ${route}`
    let keys = requestKeys.get(cacheKey)
    if (!keys) {
      const known = samples.has(route) || samples.size < maxRoutes ? route : 'other'
      keys = {
        counted: JSON.stringify({ method, route: known, status: String(status) }),
        timed: JSON.stringify({ route: known }),
        route: known,
      }
      // Bounded like the series: past it, new combinations are built each time rather than kept.
      if (requestKeys.size < 4 * maxRoutes) requestKeys.set(cacheKey, keys)
    }
    return keys
  }

  const self: metrics.ReturnType = {
    request({ method, route, status, seconds }) {
      const keys = requestKeysOf(method, route, status)
      countKey('gateway_requests_total', 'HTTP requests answered, by method, route and status.', keys.counted, 1)
      observeKey(
        'gateway_request_duration_seconds',
        'Time to answer a request, to its headers (a stream counts once it starts).',
        secondsBuckets,
        keys.timed,
        seconds,
      )
      let kept = samples.get(keys.route)
      if (!kept) {
        kept = { values: [], next: 0 }
        samples.set(keys.route, kept)
      }
      // A ring of the last `maxSamples`: the oldest is overwritten, nothing is shifted.
      if (kept.values.length < maxSamples) kept.values.push(seconds)
      else kept.values[kept.next] = seconds
      kept.next = (kept.next + 1) % maxSamples
    },
    claim(seconds) {
      observe('gateway_ledger_claim_seconds', 'Time to claim a payment in the ledger.', secondsBuckets, {}, seconds)
    },
    gauge(name, help, read) {
      gauges.set(name, { help, read })
    },
    latencies() {
      return new Map([...samples].map(([route, { values }]) => [route, [...values]]))
    },
    events() {
      return [...recent]
    },
    upstreams,
    counter(name) {
      return [...(counters.get(name)?.series ?? [])].map(([key, value]) => [JSON.parse(key) as Labels, value])
    },
    observing(logger) {
      return {
        log(level, event, fields = {}) {
          if (event === 'payment_refused')
            count('gateway_payments_refused_total', '402 answers, by reason (`payment_required`: none was sent).', {
              reason: String(fields.reason),
            })
          if (event === 'payment_settled' || event === 'settlement_failed' || event === 'settlement_pending')
            count('gateway_settlements_total', 'Settlements, by outcome.', {
              outcome: event === 'payment_settled' ? 'settled' : event === 'settlement_failed' ? 'failed' : 'pending',
            })
          if (event === 'settlement_batch') {
            observe(
              'gateway_settlement_batch_size',
              'Authorizations per settlement transaction.',
              batchBuckets,
              {},
              Number(fields.size),
            )
            observe(
              'gateway_settlement_batch_gas',
              'Gas used per settlement transaction.',
              gasBuckets,
              {},
              Number(fields.gasUsed),
            )
          }
          if (noted.has(event)) {
            recent.unshift({ at: new Date(), event, fields })
            if (recent.length > maxEvents) recent.pop()
          }
          if (event === 'job_finished')
            count('gateway_job_runs_total', 'Background job ticks run by this process, by job and outcome.', {
              job: String(fields.job),
              outcome: String(fields.outcome),
            })
          logger.log(level, event, fields)
        },
      }
    },
    async render() {
      const lines: string[] = []
      for (const [name, { help, series }] of counters) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`)
        for (const [key, value] of series) lines.push(`${name}${labelsOf(JSON.parse(key))} ${value}`)
      }
      for (const [name, { help, buckets, series }] of histograms) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`)
        for (const [key, { counts, sum, count }] of series) {
          const labels = JSON.parse(key) as Labels
          for (const [index, bound] of buckets.entries())
            lines.push(`${name}_bucket${labelsOf({ ...labels, le: String(bound) })} ${counts[index]}`)
          lines.push(`${name}_bucket${labelsOf({ ...labels, le: '+Inf' })} ${count}`)
          lines.push(`${name}_sum${labelsOf(labels)} ${sum}`, `${name}_count${labelsOf(labels)} ${count}`)
        }
      }
      for (const [name, { help, read }] of [...gauges, ...upstreamGauges(upstreams())]) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`)
        for (const [labels, value] of await read()) lines.push(`${name}${labelsOf(labels)} ${value}`)
      }
      return `${lines.join('\n')}\n`
    },
  }
  return self
}

export declare namespace metrics {
  type Parameters = {
    /** How the vendors called by this process have fared (boot's providers built them). @default none */
    upstreams?: (() => readonly Upstream.Health[]) | undefined
  }
  type Event = {
    /** When it was logged. */
    at: Date
    /** Event name, as logged. */
    event: string
    /** Its fields, as logged (never a request body). */
    fields: Record<string, unknown>
  }
  type ReturnType = {
    /** Counts one answered request and its latency. `route` is the route pattern, never the raw path. */
    request: (parameters: { method: string; route: string; status: number; seconds: number }) => void
    /** Records the time one ledger claim took. */
    claim: (seconds: number) => void
    /** Adds a gauge read at every scrape (queue depths, states). */
    gauge: (name: string, help: string, read: () => Promise<[Labels, number][]> | [Labels, number][]) => void
    /** Recent request latencies per route, in seconds, oldest first. */
    latencies: () => Map<string, number[]>
    /** The most recent reconciliation and settlement events, newest first. */
    events: () => Event[]
    /** How the vendors called by this process have fared. */
    upstreams: () => readonly Upstream.Health[]
    /** The series of a counter, with their labels. */
    counter: (name: string) => [Labels, number][]
    /** A logger that counts the events metrics are made of (refusals, settlements, batches, jobs), then passes them on. */
    observing: (logger: Logger) => Logger
    /** The exposition text. */
    render: () => Promise<string>
  }
}

/** The `q`-quantile (0..1) of `values` by nearest rank; 0 for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Breaker states as gauge values. */
export const breakerValue = { closed: 0, half_open: 1, open: 2 } as const

function upstreamGauges(
  vendors: readonly Upstream.Health[],
): [string, { help: string; read: () => [Labels, number][] }][] {
  return [
    [
      'gateway_upstream_breaker_state',
      {
        help: 'Circuit breaker of each upstream vendor: 0 closed, 1 half open, 2 open.',
        read: () => vendors.map((vendor) => [{ vendor: vendor.id }, breakerValue[vendor.breaker()]]),
      },
    ],
    [
      'gateway_upstream_calls',
      {
        help: 'Calls made to each upstream vendor by this process.',
        read: () => vendors.map((vendor) => [{ vendor: vendor.id }, vendor.calls]),
      },
    ],
    [
      'gateway_upstream_failures',
      {
        help: 'Calls to each upstream vendor that found it unhealthy.',
        read: () => vendors.map((vendor) => [{ vendor: vendor.id }, vendor.failures]),
      },
    ],
    [
      'gateway_upstream_latency_seconds',
      {
        help: 'Latency quantiles of the recent calls to each upstream vendor.',
        read: () =>
          vendors.flatMap((vendor) =>
            [0.5, 0.9, 0.99].map((q): [Labels, number] => [
              { vendor: vendor.id, quantile: String(q) },
              quantile(vendor.seconds, q),
            ]),
          ),
      },
    ],
  ]
}

/** `{name="value",...}` with the values escaped as the exposition format requires; empty for no labels. */
function labelsOf(labels: Labels): string {
  const pairs = Object.entries(labels).map(
    ([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`,
  )
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`
}
