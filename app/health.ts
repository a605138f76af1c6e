import * as Catalog from '../core/Catalog.js'
import { type Availability, protocols } from './discovery/terms.js'

/**
 * `GET /health`, the original gateway's health check (free), in its core fields: `status`, `uptime`, `version`,
 * `services`, `network`, `protocol`. Every value is this gateway's own: the status and each service's come from the
 * availability of the catalog's operations now (a missing upstream key, an open circuit breaker, no settlement), the
 * uptime from when the gateway was built. No upstream is called.
 */
export function health(parameters: health.Parameters): health.ReturnType {
  const { availability, network, startedAt, now } = parameters
  const byCategory = new Map<string, { total: number; available: number }>()
  for (const entry of Catalog.entries) {
    const counts = byCategory.get(entry.category) ?? { total: 0, available: 0 }
    counts.total += 1
    if (availability(entry).available) counts.available += 1
    byCategory.set(entry.category, counts)
  }
  const counts = [...byCategory.values()]
  const total = counts.reduce((sum, category) => sum + category.total, 0)
  const available = counts.reduce((sum, category) => sum + category.available, 0)
  const uptimeSeconds = Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / 1000))
  return {
    status: available === total ? 'healthy' : 'degraded',
    uptime: uptimeText(uptimeSeconds),
    uptimeSeconds,
    version: Catalog.overviewVersion,
    services: Object.fromEntries(
      [...byCategory].map(([category, { total, available }]) => [
        category,
        available === total ? 'ready' : available === 0 ? 'unavailable' : 'partial',
      ]),
    ),
    endpoints: { total, available, unavailable: total - available },
    network,
    protocol: 'x402',
    protocols: protocols.map(({ name }) => name),
    timestamp: now.toISOString(),
  }
}

export declare namespace health {
  type Parameters = {
    /** Whether an operation runs here now (the gateway's availability, readiness included). */
    availability: (entry: Catalog.Entry) => Availability
    /** CAIP-2 network payments settle on. */
    network: string
    /** When the gateway was built. */
    startedAt: Date
    /** Now. */
    now: Date
  }
  /** A service's state: `ready` (every operation runs), `partial` (some do) or `unavailable` (none does). */
  type Service = 'ready' | 'partial' | 'unavailable'
  type ReturnType = {
    /** `healthy` when every operation of the catalog runs here now, else `degraded` (`services` says where). */
    status: 'healthy' | 'degraded'
    /** Time since the gateway was built, as the original writes it: `3m 7s`, `2h 5m 1s`, `1d 4h 10m`. */
    uptime: string
    /** The same, in seconds. */
    uptimeSeconds: number
    /** Version of the interface served. */
    version: string
    /** State by catalog category. */
    services: Record<string, Service>
    /** Operations of the catalog: how many, how many run now, how many do not (discovery says why). */
    endpoints: { total: number; available: number; unavailable: number }
    /** CAIP-2 network payments settle on. */
    network: string
    /** The original gateway's one protocol. */
    protocol: 'x402'
    /** Every payment protocol accepted. */
    protocols: string[]
    /** ISO 8601 UTC. */
    timestamp: string
  }
}

/** Seconds as the original gateway's health check writes an uptime. */
function uptimeText(seconds: number): string {
  const days = Math.floor(seconds / 86_400)
  const hours = Math.floor((seconds % 86_400) / 3600)
  const minutes = Math.floor((seconds % 3600) / 60)
  if (days > 0) return `${days}d ${hours}h ${minutes}m`
  if (hours > 0) return `${hours}h ${minutes}m ${seconds % 60}s`
  return `${minutes}m ${seconds % 60}s`
}
