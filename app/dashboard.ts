import * as Catalog from '../core/Catalog.js'
import type { Entry, Ledger, State } from '../core/Ledger.js'
import * as Price from '../core/Price.js'
import type { Availability } from './discovery/terms.js'
import { breakerValue, type metrics, quantile } from './metrics.js'

/** Most ledger entries of one state the dashboard reads. */
const maxEntries = 10_000

/** Payments listed per state. */
const listed = 20

/** Everything the dashboard shows, read at once. */
export type Snapshot = Awaited<ReturnType<typeof snapshot>>

/** Reads the figures of the dashboard: the ledger, the breakers, availability, latencies and recent events. */
export async function snapshot(parameters: {
  ledger: Ledger | undefined
  availability: (entry: Catalog.Entry) => Availability
  metrics: metrics.ReturnType
}) {
  const { ledger, availability, metrics } = parameters
  const states: State[] = ['claimed', 'settling', 'settled', 'failed', 'released']
  const byState = Object.fromEntries(
    await Promise.all(
      states.map(async (state) => [state, ledger ? await ledger.list({ state, limit: maxEntries }) : []] as const),
    ),
  ) as Record<State, Entry[]>
  const settled = byState.settled
  const sum = (entries: readonly Entry[]) => entries.reduce((total, entry) => total + entry.amount, 0n)
  const group = (key: (entry: Entry) => string) => {
    const groups = new Map<string, Entry[]>()
    for (const entry of settled) groups.set(key(entry), [...(groups.get(key(entry)) ?? []), entry])
    return [...groups].map(([name, entries]) => ({ name, calls: entries.length, revenue: sum(entries) }))
  }
  return {
    at: new Date(),
    revenue: sum(settled),
    perEndpoint: group((entry) => entry.endpoint).sort((a, b) => Number(b.revenue - a.revenue)),
    perDay: group((entry) => entry.updatedAt.toISOString().slice(0, 10)).sort((a, b) => a.name.localeCompare(b.name)),
    topPayers: group((entry) => entry.payer)
      .sort((a, b) => Number(b.revenue - a.revenue))
      .slice(0, 10),
    payments: states.map((state) => ({
      state,
      count: byState[state].length,
      amount: sum(byState[state]),
      recent: [...byState[state]].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()).slice(0, listed),
    })),
    events: metrics.events(),
    upstreams: metrics.upstreams().map((vendor) => ({
      id: vendor.id,
      name: vendor.name,
      breaker: vendor.breaker(),
      calls: vendor.calls,
      errorRate: vendor.calls === 0 ? 0 : vendor.failures / vendor.calls,
      p50: quantile(vendor.seconds, 0.5),
      p99: quantile(vendor.seconds, 0.99),
    })),
    availability: Catalog.entries.map((entry) => ({ key: Catalog.key(entry), ...availability(entry) })),
    latencies: [...metrics.latencies()]
      .map(([route, values]) => ({
        route,
        count: values.length,
        p50: quantile(values, 0.5),
        p90: quantile(values, 0.9),
        p99: quantile(values, 0.99),
      }))
      .sort((a, b) => b.count - a.count)
      .slice(0, 12),
  }
}

/** The dashboard page: one HTML document with inline CSS and SVG, no script, nothing fetched. */
export function page(data: Snapshot): string {
  const usd = (atomic: bigint) => `$${Price.fromAtomic(atomic)}`
  const unavailable = data.availability.filter((entry) => !entry.available)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Operator dashboard · agent-pay-gateway</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1c2330}
header{background:#1c2330;color:#fff;padding:12px 24px;display:flex;justify-content:space-between;align-items:baseline}
main{padding:16px 24px;display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:16px}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 16px;overflow:auto}
h1{font-size:18px;margin:0}h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}td,th{padding:3px 6px;border-bottom:1px solid #eef0f3;text-align:left;font-variant-numeric:tabular-nums}
th{font-weight:600;color:#5a6474}.num{text-align:right}.mono{font-family:ui-monospace,monospace;font-size:12px}
.big{font-size:28px;font-weight:700}.ok{color:#1a7f37}.bad{color:#c62828}.warn{color:#b26a00}
details summary{cursor:pointer;color:#5a6474}
#payments,#top-payers{grid-column:span 2}
</style></head><body>
<header><h1>Operator dashboard</h1><span>${escapeHtml(data.at.toISOString())}</span></header>
<main>
<section id="revenue"><h2>Revenue</h2><div class="big" data-revenue="${data.revenue}">${usd(data.revenue)}</div>
<div>${data.payments.find((row) => row.state === 'settled')!.count} settled payments</div>
${lineChart(
  data.perDay.map((day) => ({ label: day.name, value: Number(day.revenue) / 1e6 })),
  'Revenue per day (USD)',
)}
</section>
<section id="per-endpoint"><h2>Revenue per endpoint</h2>
<table><tr><th>endpoint</th><th class="num">calls</th><th class="num">revenue</th></tr>
${data.perEndpoint.map((row) => `<tr><td class="mono">${escapeHtml(row.name)}</td><td class="num">${row.calls}</td><td class="num">${usd(row.revenue)}</td></tr>`).join('\n')}
</table>${barChart(data.perEndpoint.map((row) => ({ label: row.name, value: Number(row.revenue) / 1e6 })))}</section>
<section id="per-day"><h2>Revenue per day</h2>
<table><tr><th>day</th><th class="num">calls</th><th class="num">revenue</th></tr>
${data.perDay.map((row) => `<tr><td>${row.name}</td><td class="num">${row.calls}</td><td class="num">${usd(row.revenue)}</td></tr>`).join('\n')}
</table></section>
<section id="payments"><h2>Payments by state</h2>
<table><tr><th>state</th><th class="num">count</th><th class="num">amount</th></tr>
${data.payments.map((row) => `<tr data-state="${row.state}"><td>${row.state}</td><td class="num">${row.count}</td><td class="num">${usd(row.amount)}</td></tr>`).join('\n')}
</table>
${data.payments
  .filter((row) => row.recent.length > 0)
  .map(
    (
      row,
    ) => `<details${row.state === 'settled' ? ' open' : ''}><summary>${row.state}: latest ${row.recent.length}</summary><table>
<tr><th>when</th><th>endpoint</th><th>payer</th><th class="num">amount</th><th>transaction / reason</th></tr>
${row.recent
  .map(
    (entry) =>
      `<tr><td>${entry.updatedAt.toISOString().slice(11, 19)}</td><td class="mono">${escapeHtml(entry.endpoint)}</td><td class="mono">${short(entry.payer)}</td><td class="num">${usd(entry.amount)}</td><td class="mono">${entry.transaction ? `<span title="${entry.transaction}">${short(entry.transaction)}</span>` : ''} ${escapeHtml(entry.reason ?? '')}</td></tr>`,
  )
  .join('\n')}</table></details>`,
  )
  .join('\n')}
</section>
<section id="top-payers"><h2>Top payers</h2>
<table><tr><th>payer</th><th class="num">calls</th><th class="num">paid</th></tr>
${data.topPayers.map((row) => `<tr><td class="mono">${row.name}</td><td class="num">${row.calls}</td><td class="num">${usd(row.revenue)}</td></tr>`).join('\n')}
</table></section>
<section id="latency"><h2>Latency percentiles by route (ms)</h2>
${latencyChart(data.latencies)}
<table><tr><th>route</th><th class="num">n</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th></tr>
${data.latencies.map((row) => `<tr><td class="mono">${escapeHtml(row.route)}</td><td class="num">${row.count}</td><td class="num">${ms(row.p50)}</td><td class="num">${ms(row.p90)}</td><td class="num">${ms(row.p99)}</td></tr>`).join('\n')}
</table></section>
<section id="upstreams"><h2>Upstream health</h2>
${
  data.upstreams.length === 0
    ? '<p>No upstream vendor has been called by this process yet.</p>'
    : `<table><tr><th>vendor</th><th>breaker</th><th class="num">calls</th><th class="num">error rate</th><th class="num">p50 ms</th><th class="num">p99 ms</th></tr>
${data.upstreams.map((row) => `<tr><td>${escapeHtml(row.name)}</td><td class="${breakerValue[row.breaker] === 0 ? 'ok' : 'bad'}">${row.breaker}</td><td class="num">${row.calls}</td><td class="num">${(row.errorRate * 100).toFixed(1)}%</td><td class="num">${ms(row.p50)}</td><td class="num">${ms(row.p99)}</td></tr>`).join('\n')}</table>`
}</section>
<section id="events"><h2>Reconciliation and settlement events</h2>
${
  data.events.length === 0
    ? '<p>None since this process started.</p>'
    : `<table><tr><th>when</th><th>event</th><th>details</th></tr>
${data.events
  .map(
    (event) =>
      `<tr><td>${event.at.toISOString().slice(11, 19)}</td><td>${escapeHtml(event.event)}</td><td class="mono">${escapeHtml(JSON.stringify(event.fields))}</td></tr>`,
  )
  .join('\n')}</table>`
}</section>
<section id="availability"><h2>Availability: ${data.availability.length - unavailable.length} of ${data.availability.length} entries available</h2>
<details><summary>${unavailable.length} unavailable, and why</summary><table><tr><th>entry</th><th>code</th><th>reason</th></tr>
${unavailable.map((entry) => `<tr><td class="mono">${escapeHtml(entry.key)}</td><td>${entry.available ? '' : entry.code}</td><td>${entry.available ? '' : escapeHtml(entry.reason)}</td></tr>`).join('\n')}
</table></details>
<details><summary>${data.availability.length - unavailable.length} available</summary><p class="mono">${data.availability
    .filter((entry) => entry.available)
    .map((entry) => escapeHtml(entry.key))
    .join('<br>')}</p></details></section>
</main></body></html>`
}

/** The login form, shown without a valid token; `alert`, when given, says why the last try was refused. */
export function loginPage(alert?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Operator login · agent-pay-gateway</title>
<style>body{font:14px system-ui,sans-serif;display:grid;place-items:center;height:100vh;margin:0;background:#f6f7f9}
form{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:24px;display:grid;gap:10px;min-width:320px}
.bad{color:#c62828}</style></head><body>
<form method="post" action="/dashboard/login"><h1>Operator dashboard</h1>
<label for="token">Operator token</label><input id="token" name="token" type="password" autocomplete="current-password" required>
${alert === undefined ? '' : `<p class="bad" role="alert">${escapeHtml(alert)}</p>`}
<button type="submit">Sign in</button></form></body></html>`
}

const width = 420
const height = 140

function lineChart(points: { label: string; value: number }[], title: string): string {
  if (points.length === 0) return '<p>No revenue yet.</p>'
  const max = Math.max(...points.map((point) => point.value), 1e-6)
  const x = (index: number) => (points.length === 1 ? width / 2 : 30 + (index * (width - 40)) / (points.length - 1))
  const y = (value: number) => height - 20 - (value / max) * (height - 40)
  const path = points.map((point, index) => `${index === 0 ? 'M' : 'L'}${x(index)},${y(point.value)}`).join(' ')
  return `<svg role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${width} ${height}" width="100%" height="${height}">
<title>${escapeHtml(title)}</title><line x1="30" y1="${height - 20}" x2="${width - 10}" y2="${height - 20}" stroke="#aab"/>
<text x="30" y="12" font-size="10" fill="#5a6474">max $${max.toFixed(6)}</text>
<path d="${path}" fill="none" stroke="#2f6fdd" stroke-width="2"/>
${points.map((point, index) => `<circle cx="${x(index)}" cy="${y(point.value)}" r="3" fill="#2f6fdd"><title>${escapeHtml(point.label)}: $${point.value.toFixed(6)}</title></circle><text x="${x(index)}" y="${height - 6}" font-size="9" text-anchor="middle" fill="#5a6474">${escapeHtml(point.label.slice(5))}</text>`).join('')}
</svg>`
}

function barChart(bars: { label: string; value: number }[]): string {
  if (bars.length === 0) return ''
  const max = Math.max(...bars.map((bar) => bar.value), 1e-6)
  const row = 16
  return `<svg role="img" aria-label="Revenue per endpoint" viewBox="0 0 ${width} ${bars.length * row + 4}" width="100%">
${bars.map((bar, index) => `<rect x="0" y="${index * row + 2}" width="${Math.max(1, (bar.value / max) * (width - 90))}" height="${row - 4}" fill="#5b9a68"><title>${escapeHtml(bar.label)}</title></rect><text x="${Math.max(1, (bar.value / max) * (width - 90)) + 4}" y="${index * row + 13}" font-size="10">$${bar.value.toFixed(6)}</text>`).join('')}
</svg>`
}

function latencyChart(rows: { route: string; p50: number; p90: number; p99: number }[]): string {
  if (rows.length === 0) return '<p>No requests yet.</p>'
  const max = Math.max(...rows.map((row) => row.p99), 1e-6)
  const row = 18
  const scale = (value: number) => Math.max(1, (value / max) * (width - 60))
  return `<svg role="img" aria-label="Latency percentiles" viewBox="0 0 ${width} ${rows.length * row + 16}" width="100%">
${rows.map((entry, index) => `<g><title>${escapeHtml(entry.route)}: p50 ${ms(entry.p50)} ms, p90 ${ms(entry.p90)} ms, p99 ${ms(entry.p99)} ms</title><rect x="0" y="${index * row}" width="${scale(entry.p99)}" height="${row - 4}" fill="#f3c9c9"/><rect x="0" y="${index * row}" width="${scale(entry.p90)}" height="${row - 4}" fill="#f0a35e"/><rect x="0" y="${index * row}" width="${scale(entry.p50)}" height="${row - 4}" fill="#2f6fdd"/><text x="${scale(entry.p99) + 4}" y="${index * row + 11}" font-size="10">${ms(entry.p99)}</text></g>`).join('')}
<text x="0" y="${rows.length * row + 12}" font-size="10" fill="#5a6474">blue p50 · orange p90 · pink p99 (ms), top routes by requests</text>
</svg>`
}

function ms(seconds: number): string {
  return (seconds * 1000).toFixed(1)
}

function short(hex: string): string {
  return `${hex.slice(0, 8)}…${hex.slice(-6)}`
}

/** Text safe inside HTML elements and attributes. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!,
  )
}
