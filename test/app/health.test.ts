import { describe, expect, test } from 'bun:test'
import type { Availability } from '../../app/discovery/terms.js'
import { health } from '../../app/health.js'
import * as Catalog from '../../core/Catalog.js'
import { testGateway } from '../support/gateway.js'

const startedAt = new Date('2026-01-01T00:00:00Z')
const available: Availability = { available: true }
const missing: Availability = { available: false, code: 'upstream_unavailable', reason: 'No key.' }

describe('health', () => {
  test('default: every operation running is healthy, every service ready', () => {
    const now = new Date(startedAt.getTime() + 187_000)
    const answer = health({ availability: () => available, network: 'eip155:8453', startedAt, now })
    expect(answer).toMatchObject({
      status: 'healthy',
      uptime: '3m 7s',
      uptimeSeconds: 187,
      version: Catalog.overviewVersion,
      network: 'eip155:8453',
      protocol: 'x402',
      protocols: ['x402', 'mpp'],
      endpoints: { total: Catalog.entries.length, available: Catalog.entries.length, unavailable: 0 },
      timestamp: now.toISOString(),
    })
    expect(Object.keys(answer.services)).toEqual([...new Set(Catalog.entries.map((entry) => entry.category))])
    expect(new Set(Object.values(answer.services))).toEqual(new Set(['ready']))
  })

  test('behavior: an operation that cannot run makes it degraded, its category partial or unavailable', () => {
    const [first, second] = Catalog.entries.filter((entry) => entry.category === 'escrow')
    const answer = health({
      availability: (entry) => (entry.category === 'ai' || entry === first || entry === second ? missing : available),
      network: 'eip155:8453',
      startedAt,
      now: startedAt,
    })
    expect(answer.status).toBe('degraded')
    expect(answer.services).toMatchObject({ ai: 'unavailable', escrow: 'partial', payments: 'ready' })
    const ai = Catalog.entries.filter((entry) => entry.category === 'ai').length
    expect(answer.endpoints.unavailable).toBe(ai + 2)
  })

  test('behavior: uptime as the original writes it, by the largest unit', () => {
    const uptime = (seconds: number) =>
      health({
        availability: () => available,
        network: 'eip155:8453',
        startedAt,
        now: new Date(startedAt.getTime() + seconds * 1000),
      }).uptime
    expect([0, 59, 3_600, 7_501, 86_400 + 4 * 3600 + 10 * 60 + 9].map(uptime)).toEqual([
      '0m 0s',
      '0m 59s',
      '1h 0m 0s',
      '2h 5m 1s',
      '1d 4h 10m',
    ])
  })
})

describe('GET /health', () => {
  test("behavior: free, from the gateway's availability now: what cannot run here is counted and named by service", async () => {
    const gateway = testGateway()
    const response = await gateway.fetch('/health')
    expect(response.status).toBe(200)
    expect(response.headers.get('payment-required')).toBeNull()
    const answer = (await response.json()) as health.ReturnType
    const unavailable = Catalog.entries.filter((entry) => !gateway.availability(entry).available)
    expect(unavailable.length).toBeGreaterThan(0)
    expect(answer).toMatchObject({
      status: 'degraded',
      version: Catalog.overviewVersion,
      protocol: 'x402',
      endpoints: { total: Catalog.entries.length, unavailable: unavailable.length },
    })
    for (const entry of unavailable) expect(answer.services[entry.category]).not.toBe('ready')
    expect(answer.network).toMatch(/^eip155:\d+$/)
    expect(answer.uptimeSeconds).toBeGreaterThanOrEqual(0)
  })
})
