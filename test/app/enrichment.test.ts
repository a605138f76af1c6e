import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Kind, type TSchema, Type } from '@sinclair/typebox'
import { enrichment, example as sampleOf } from '../../app/discovery/enrichment.js'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import * as Units from '../../core/Units.js'
import { origin, paidGateway } from '../support/paid.js'

const paid = Catalog.entries.filter((entry) => !Catalog.isFree(entry))

let gateway: Awaited<ReturnType<typeof paidGateway>>
beforeAll(async () => {
  gateway = await paidGateway()
})
afterAll(async () => {
  await gateway?.close()
})

/** The schemas the mounted route of `entry` validates its query and body with. */
function inputOf(entry: Catalog.Entry): { query?: TSchema; body?: TSchema; params?: TSchema } {
  const route = (gateway.gateway.app.routes as { method: string; path: string; hooks: Record<string, unknown> }[]).find(
    (candidate) => candidate.method === entry.method && candidate.path === entry.path,
  )
  const schema = (hook: unknown) =>
    typeof hook === 'object' && hook !== null && Kind in hook ? (hook as TSchema) : undefined
  return { query: schema(route?.hooks.query), body: schema(route?.hooks.body), params: schema(route?.hooks.params) }
}

/** The unpaid request of `entry` with `example` as its query (GET) or body, each path parameter `x1`. */
function requestOf(entry: Catalog.Entry, example: Record<string, unknown> | undefined): Request {
  const params = inputOf(entry).params
  const values = (params ? sampleOf(params) : undefined) as Record<string, string> | undefined
  const path = entry.path.replace(/:([A-Za-z]+)/g, (_, name: string) => values?.[name] ?? 'x1')
  if (entry.method === 'GET') {
    const query = new URLSearchParams(
      Object.entries(example ?? {}).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    )
    return new Request(`${origin}${path}${query.size > 0 ? `?${query}` : ''}`)
  }
  return new Request(`${origin}${path}`, {
    method: entry.method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(example ?? {}),
  })
}

/** The 402 body of an unpaid call. */
async function offerOf(request: Request): Promise<Record<string, any>> {
  const response = await gateway.gateway.handle(request)
  expect(response.status).toBe(402)
  return (await response.json()) as Record<string, any>
}

describe('enrichment', () => {
  test('behavior: the 402 carries description, example_request and related_endpoints, on top and under _spraay', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/batch/execute'],
      ['GET', '/api/v1/oracle/gas'],
      ['POST', '/api/v1/invoice/create'],
    ] as const) {
      const entry = Catalog.find(method, path)!
      const example = enrichment({ entry, input: inputOf(entry) }).example_request
      expect(example).toBeDefined()
      const body = await offerOf(requestOf(entry, example))
      // The x402 v1 offer and the problem members stay as they were.
      expect(body).toMatchObject({ x402Version: 1, code: 'payment_required', status: 402 })
      expect(body.accepts[0].maxAmountRequired).toBe(Price.quote({ price: entry.price }).toString())
      expect(body.description).toBe(entry.purpose)
      expect(body.example_request).toEqual(example!)
      expect(body.related_endpoints.length).toBeGreaterThan(0)
      for (const related of body.related_endpoints) {
        const other = Catalog.find(related.method, related.path)!
        expect(other).toBeDefined()
        expect(other === entry).toBe(false)
        expect(other.category === entry.category || other.tags.some((tag) => entry.tags.includes(tag))).toBe(true)
        expect(related).toEqual({
          method: other.method,
          path: other.path,
          price: Price.toText(other.price),
          why: other.purpose,
        })
      }
      expect(body._spraay).toEqual({
        description: body.description,
        example_request: body.example_request,
        related_endpoints: body.related_endpoints,
      })
    }
  })

  test('behavior: the example of batch/execute names the original gateway fields with values the route takes', async () => {
    const entry = Catalog.find('POST', '/api/v1/batch/execute')!
    const body = await offerOf(requestOf(entry, enrichment({ entry, input: inputOf(entry) }).example_request))
    expect(Object.keys(body.example_request).sort()).toEqual(['amounts', 'recipients', 'sender', 'token'])
    expect(body.example_request.token).toBe('USDC')
  })

  test('behavior: a refused payment answers the same hints', async () => {
    const entry = Catalog.find('GET', '/api/v1/oracle/gas')!
    const request = requestOf(entry, enrichment({ entry, input: inputOf(entry) }).example_request)
    const body = await offerOf(new Request(request.url, { headers: { 'PAYMENT-SIGNATURE': 'not-a-payment' } }))
    expect(body.code).not.toBe('payment_required')
    expect(body.description).toBe(entry.purpose)
    expect(body._spraay.related_endpoints).toEqual(body.related_endpoints)
  })

  test("behavior: every paid entry's example_request passes its route's validation (never a 400 unpaid)", async () => {
    const statuses = new Map<number, string[]>()
    let examples = 0
    for (const entry of paid) {
      const example = enrichment({ entry, input: inputOf(entry) }).example_request
      if (example === undefined) continue
      examples++
      const response = await gateway.gateway.handle(requestOf(entry, example))
      const body = (await response.json()) as { detail?: string }
      // This machine resolves no public name: the outbound check refuses the example's URL only for that.
      if (response.status === 400 && body.detail?.endsWith('https://example.com does not resolve')) continue
      statuses.set(response.status, [...(statuses.get(response.status) ?? []), Catalog.key(entry)])
      // 404 and 409: the example names a robot or recipient this fresh gateway does not hold, judged before payment.
      expect([Catalog.key(entry), [402, 404, 409, 503].includes(response.status)]).toEqual([Catalog.key(entry), true])
    }
    // Left out: the Solana swap transaction (it takes a Jupiter quote) and the routes unconfigured here (no schema).
    expect(examples).toBeGreaterThanOrEqual(paid.length - 25)
    expect(statuses.get(402)?.length).toBeGreaterThan(90)
  })

  test('behavior: an amount field takes a typical amount of its unit (x-unit), never a word', () => {
    const schema = Type.Object({
      total: Units.decimalSchema({ description: 'HUMAN decimal USDC.' }),
      priceRaw: Type.String({
        pattern: '^[1-9][0-9]*$',
        ...Units.amountOptions({ unit: 'raw', description: 'RAW atomic units.' }),
      }),
      spendLimitEth: Units.decimalSchema({ description: 'HUMAN decimal ETH.' }),
    })
    // The member's typical value first (spendLimitEth), else a typical amount of its reading.
    expect(sampleOf(schema)).toEqual({ total: '25', priceRaw: '25000000', spendLimitEth: '0.1' })
  })
})
