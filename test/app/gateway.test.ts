import { describe, expect, test } from 'bun:test'
import { families } from '../../app/modules.js'
import * as Catalog from '../../core/Catalog.js'
import { testGateway } from '../support/gateway.js'

const gateway = testGateway()

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return (await response.json()) as Record<string, unknown>
}

describe('createGateway', () => {
  test('behavior: every catalog entry is mounted, and every mounted route is in the catalog', () => {
    const mounted = new Set(gateway.app.routes.map((route) => `${route.method} ${route.path}`))
    for (const entry of Catalog.entries) expect(mounted.has(Catalog.key(entry))).toBe(true)
  })

  test('behavior: no request pays for parsing its cookies or copying its headers', () => {
    // Elysia infers from its hooks' code what every request needs; a hook handing its whole context on makes it all.
    gateway.app.compile()
    const { inference } = gateway.app as unknown as { inference: Record<string, boolean> }
    expect(inference).toMatchObject({ cookie: false, headers: false })
  })

  test('behavior: every endpoint that cannot run answers 501/503 without asking for payment', async () => {
    const unavailable = Catalog.entries.filter((entry) => !gateway.availability(entry).available)
    expect(unavailable.length).toBeGreaterThan(0)
    for (const entry of unavailable) {
      const availability = gateway.availability(entry) as { code: string }
      const path = entry.path.replace(/:[A-Za-z]+/g, 'abc')
      const response = await gateway.fetch(path, {
        method: entry.method,
        ...(entry.method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
      })
      expect(response.status).toBe(availability.code === 'not_implemented' ? 501 : 503)
      expect(response.headers.get('payment-required')).toBeNull()
      expect(response.headers.get('www-authenticate')).toBeNull()
      expect((await problem(response)).code).toBe(availability.code)
    }
  })

  test('behavior: without a chain the RPC endpoints are unavailable (503), not unbuilt', async () => {
    const response = await gateway.fetch('/api/v1/rpc/chains')
    expect(response.status).toBe(503)
    expect((await problem(response)).detail).toContain('needs a chain')
  })

  test('behavior: an :id path also answers on the bare path with the id in the query', async () => {
    // Every :id entry is built now: the gpu family is left out so that one is not.
    const unbuilt = testGateway({ families: families.filter((family) => family.name !== 'gpu') })
    const response = await unbuilt.fetch('/api/v1/gpu/status?id=abc')
    expect(response.status).toBe(501)
    expect((await problem(response)).code).toBe('not_implemented')
  })

  test('error: unknown route is 404 problem+json', async () => {
    const response = await gateway.fetch('/api/v1/nothing-here')
    expect(response.status).toBe(404)
    expect((await problem(response)).code).toBe('not_found')
  })

  test('error: wrong method is 405 with Allow', async () => {
    const response = await gateway.fetch('/free/timestamp', { method: 'POST' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET')
    expect((await problem(response)).code).toBe('method_not_allowed')
  })

  test('error: malformed JSON is 400 and does not echo the body', async () => {
    const response = await gateway.fetch('/free/validate-batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"sourceSecret": SBSECRETVALUE}',
    })
    expect(response.status).toBe(400)
    const body = await problem(response)
    expect(body.code).toBe('malformed_json')
    expect(JSON.stringify(body)).not.toContain('SBSECRETVALUE')
  })

  test('error: a body that is not JSON is 415', async () => {
    const response = await gateway.fetch('/free/validate-batch', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    })
    expect(response.status).toBe(415)
    expect((await problem(response)).code).toBe('unsupported_media_type')
  })

  test('error: a body over the limit is 413, by declared length and by streamed length', async () => {
    const small = testGateway({ env: { BODY_LIMIT_BYTES: '2048' } })
    const big = JSON.stringify({ recipients: 'x'.repeat(4096) })
    const declared = await small.post('/free/validate-batch', JSON.parse(big))
    expect(declared.status).toBe(413)
    expect((await problem(declared)).code).toBe('payload_too_large')
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      },
    })
    const streamed = await small.fetch('/free/validate-batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
    })
    expect(streamed.status).toBe(413)
  })

  test('error: a schema violation is 400 naming the field, never 422', async () => {
    const response = await gateway.fetch('/free/validate-address')
    expect(response.status).toBe(400)
    const body = await problem(response)
    expect(body.code).toBe('validation_failed')
    expect(body.field).toBe('address')
  })

  test('behavior: CORS preflight allows the payment headers, and every answer exposes all of its headers', async () => {
    const preflight = await gateway.fetch('/api/v1/rpc/call', { method: 'OPTIONS' })
    expect(preflight.status).toBe(204)
    for (const name of ['payment-signature', 'x-payment', 'x-request-id'])
      expect(preflight.headers.get('access-control-allow-headers')).toContain(name)
    const response = await gateway.fetch('/free/timestamp')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe('*')
    const error = await gateway.fetch('/nothing')
    expect(error.headers.get('access-control-allow-origin')).toBe('*')
    expect(error.headers.get('access-control-expose-headers')).toBe('*')
  })
})
