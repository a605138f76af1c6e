import { describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { assertCoverage, canonicalUrlOf, mount } from '../../app/mount.js'
import * as Catalog from '../../core/Catalog.js'
import * as Module from '../../core/Module.js'

/** A family's routes with no web framework: handlers by `METHOD /pattern`, as a plain table. */
type Table = Record<string, (request: Request) => Response>

/** A family serving a free entry and a paid one, with a free limit of its own and a job. */
const models = Module.define({
  name: 'models',
  paths: ['/api/v1/models', '/api/v1/gpu/models'],
  needs: [],
  rateLimit: () => ({ capacity: 2, refill: 2, intervalMs: 60_000 }),
  routes: (): Table => ({
    'GET /api/v1/gpu/models': () => Response.json({ models: [] }),
    'GET /api/v1/models': () => Response.json({ models: [], count: 0 }),
  }),
  jobs: [{ name: 'models-sweep', run: async () => 'swept' }],
})

/** A family that needs a port the test does not give. */
const oracle = Module.define({
  name: 'oracle',
  paths: ['/api/v1/oracle/'],
  needs: ['oracle'],
  routes: (): Table => ({}),
  extraRoutes: ['GET /oracle/keys'],
})

/** Mounts `families` on no ports, then settles availability with every route of their tables implemented. */
function mounted(families: readonly Module.AnyModule[], paid: boolean) {
  const gateway = mount({ families, ports: {}, env: {}, paid })
  const tables = gateway.routes.flatMap((route) => ('plugin' in route ? [route.plugin as Table] : []))
  const implemented = new Set(tables.flatMap((table) => Object.keys(table)))
  const stubs = gateway.complete(implemented)
  /** A request through the mount, as a framework would drive it: admitted, then its family's handler. */
  const handle = (request: Request): Response | mount.Admission => {
    const route = `${request.method} ${new URL(canonicalUrlOf(request.url) ?? request.url).pathname}`
    const admission = gateway.admit(route)
    if (admission.type === 'refused' || admission.type === 'paid') return admission
    const handler = tables.find((table) => route in table)?.[route]
    return handler ? handler(request) : admission
  }
  return { gateway, stubs, handle }
}

const entry = (key: string) => Catalog.entries.find((candidate) => Catalog.key(candidate) === key)!

describe('mount', () => {
  test('default: a free entry is answered by its family, a paid one asks for payment, with no web framework', async () => {
    const { handle } = mounted([models], true)
    const free = handle(new Request('http://gateway.test/api/v1/gpu/models'))
    expect(free).toBeInstanceOf(Response)
    expect(await (free as Response).json()).toEqual({ models: [] })
    expect(handle(new Request('http://gateway.test/api/v1/models'))).toEqual({
      type: 'paid',
      entry: entry('GET /api/v1/models'),
    })
  })

  test('behavior: the family declares its limit, jobs and extra routes; other entries are stubbed 501', async () => {
    const { gateway, stubs } = mounted([models], true)
    expect(gateway.limitOf('GET /api/v1/gpu/models')).toEqual({
      family: 'models',
      options: { capacity: 2, refill: 2, intervalMs: 60_000 },
    })
    expect(await Promise.all(gateway.jobs.map((job) => job.run()))).toEqual(['swept'])
    expect(stubs.some((stub) => 'method' in stub && `${stub.method} ${stub.path}` === 'GET /api/v1/models')).toBe(false)
    const stub = stubs.find((route) => 'method' in route && route.path === '/api/v1/oracle/prices')
    expect(stub && 'error' in stub ? stub.error.code : undefined).toBe('not_implemented')
  })

  test('behavior: without payments a paid entry is refused before payment, a free one still answers', () => {
    const { handle } = mounted([models], false)
    const refused = handle(new Request('http://gateway.test/api/v1/models'))
    expect(refused).toMatchObject({ type: 'refused', error: { code: 'upstream_unavailable' } })
    expect(handle(new Request('http://gateway.test/api/v1/gpu/models'))).toBeInstanceOf(Response)
  })

  test('behavior: a family missing a port is not mounted: its entries and extra routes answer 503 with the reason', () => {
    const { gateway, handle } = mounted([oracle], true)
    expect(gateway.routes).toEqual([
      { method: 'GET', path: '/oracle/keys', error: expect.objectContaining({ code: 'upstream_unavailable' }) },
    ])
    const refused = handle(new Request('http://gateway.test/api/v1/oracle/prices?tokens=ETH'))
    expect(refused).toMatchObject({ type: 'refused', error: { code: 'upstream_unavailable' } })
    expect(gateway.availability(entry('GET /api/v1/oracle/prices'))).toMatchObject({ available: false })
  })

  test('error: a price rule for an entry the family does not serve fails at mount', () => {
    const wrong = Module.define({ ...models, prices: { 'POST /api/v1/batch/execute': () => 0n } as never })
    expect(() => mount({ families: [wrong], ports: {}, env: {}, paid: true })).toThrow(
      'A price rule is declared for POST /api/v1/batch/execute, which its module does not serve.',
    )
  })

  test('error: a family with an environment that was not parsed fails at mount', () => {
    const unparsed = { ...models, env: Type.Object({}) }
    expect(() => mount({ families: [unparsed], ports: {}, env: {}, paid: true })).toThrow(
      'The environment of module models was not parsed',
    )
  })
})

describe('assertCoverage', () => {
  test('error: a mounted route off the catalog, and every entry unmounted, are named', () => {
    expect(() => assertCoverage(new Set(['GET /nowhere']), new Set())).toThrow(
      /Not in the catalog: GET \/nowhere\. Not mounted: .*GET \/api\/v1\/models/,
    )
  })
})
