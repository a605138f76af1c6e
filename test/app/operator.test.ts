import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import * as crypto from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { AnyElysia } from 'elysia'
import { chromium } from 'playwright-core'
import { memory } from '../../adapters/limiter/memory.js'
import { vendor } from '../../adapters/vendor/vendor.js'
import { parse } from '../../app/config.js'
import { snapshot } from '../../app/dashboard.js'
import { metrics } from '../../app/metrics.js'
import { loginLimit, operator, secretMatcher } from '../../app/operator.js'
import { vendorHealth } from '../../app/providers.js'
import { testGateway } from '../support/gateway.js'
import { openaiStub } from '../support/openai.js'
import { origin, paidGateway } from '../support/paid.js'

const token = 'operator-token-for-tests-0002-0123456789'
/** Debian's chromium package; CHROMIUM_PATH names another build. */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const hasChromium = existsSync(chromiumPath)
if (!hasChromium && process.env.CI)
  throw new Error(`CI runs the dashboard in a real browser: install Debian's chromium package (${chromiumPath}).`)
if (!hasChromium)
  process.stderr.write(
    `Skipping the dashboard browser test: no Chromium at ${chromiumPath} (apt-get install chromium).\n`,
  )

let gateway: Awaited<ReturnType<typeof paidGateway>>
/** Settlement transactions of the paid calls made before the tests. */
const transactions: string[] = []

beforeAll(async () => {
  gateway = await paidGateway({ env: { OPERATOR_TOKEN: token } })
  const payer = gateway.account(2)
  const pay = gateway.x402(payer)
  for (const path of ['/api/v1/rpc/chains', '/api/v1/rpc/chains']) {
    const response = await pay(`${origin}${path}`)
    expect(response.status).toBe(200)
    await response.text()
    transactions.push(decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction)
  }
  // One call with no payment: a 402 the metrics count by reason.
  const unpaid = await gateway.fetch(`${origin}/api/v1/rpc/chains`)
  expect(unpaid.status).toBe(402)
  await unpaid.text()
})
afterAll(async () => {
  await gateway?.close()
})

const bearer = { authorization: `Bearer ${token}` }

/** The series of the paid calls answered. */
const paidCalls = 'gateway_requests_total{method="GET",route="/api/v1/rpc/chains",status="200"}'

describe('request ids', () => {
  test('behavior: every answer carries X-Request-Id, and a problem body repeats it', async () => {
    const response = await gateway.fetch(`${origin}/no/such/path`)
    const id = response.headers.get('x-request-id')
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(((await response.json()) as { requestId: string }).requestId).toBe(id!)
    const offered = await gateway.fetch(`${origin}/api/v1/rpc/chains`, {
      headers: { 'x-request-id': 'agent-42.call-7' },
    })
    expect(offered.headers.get('x-request-id')).toBe('agent-42.call-7')
    expect(((await offered.json()) as { requestId: string }).requestId).toBe('agent-42.call-7')
  })

  test('security: a client id that is not a short token is replaced', async () => {
    const response = await gateway.fetch(`${origin}/free/uuid`, { headers: { 'x-request-id': 'a b"<script>' } })
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('GET /metrics', () => {
  test('security: the operator bearer is required', async () => {
    expect((await gateway.fetch(`${origin}/metrics`)).status).toBe(401)
    expect(
      (await gateway.fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer wrong-token-000000000' } })).status,
    ).toBe(401)
  })

  test('behavior: Prometheus text with requests, refusals, settlements, batches, claim latency and queues', async () => {
    const scrape = async () => {
      const response = await gateway.fetch(`${origin}/metrics`, { headers: bearer })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
      return response.text()
    }
    // A refusal of bad input is counted by the route that refused it.
    expect((await gateway.fetch(`${origin}/free/uuid?count=0`)).status).toBe(400)
    const text = await scrape()
    const value = (series: string) => {
      const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
      return line === undefined ? undefined : Number(line.slice(series.length + 1))
    }
    // A request is counted as its answer leaves, by the route it matched and the status it was answered with.
    expect(value(paidCalls)).toBe(2)
    expect(
      value('gateway_requests_total{method="GET",route="/api/v1/rpc/chains",status="402"}'),
    ).toBeGreaterThanOrEqual(3)
    expect(value('gateway_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1)
    expect(value('gateway_requests_total{method="GET",route="/free/uuid",status="200"}')).toBeGreaterThanOrEqual(1)
    expect(value('gateway_requests_total{method="GET",route="/free/uuid",status="400"}')).toBe(1)
    expect(value('gateway_request_duration_seconds_count{route="/api/v1/rpc/chains"}')).toBeGreaterThanOrEqual(5)
    expect(value('gateway_settlements_total{outcome="settled"}')).toBe(2)
    // The client's first try and the unpaid call, each a 402 with no payment.
    expect(value('gateway_payments_refused_total{reason="payment_required"}')).toBeGreaterThanOrEqual(3)
    expect(value('gateway_settlement_batch_size_count')).toBe(2)
    expect(value('gateway_settlement_batch_gas_sum')).toBeGreaterThan(0)
    expect(value('gateway_ledger_claim_seconds_count')).toBe(2)
    expect(value('gateway_payments_outstanding{state="settling"}')).toBe(0)
    expect(text).toContain('# TYPE gateway_request_duration_seconds histogram')
    expect(text).toContain('# TYPE gateway_upstream_breaker_state gauge')
  })

  test("behavior: the vendors' health, as the providers' clients record it, in the metrics and the dashboard", async () => {
    const stub = openaiStub()
    try {
      stub.state.answer = () => (stub.hits.get('/v1/models') === 2 ? Response.json({}, { status: 503 }) : undefined)
      const client = vendor({ id: 'operator-stub', name: 'the operator stub', baseUrl: stub.url, retries: 0 })
      for (let call = 0; call < 3; call++) await client.json({ method: 'GET', path: '/models' })
      // boot counts into metrics built on the providers' registry.
      const meter = metrics({ upstreams: vendorHealth })
      const text = await meter.render()
      expect(text).toContain('gateway_upstream_calls{vendor="operator-stub"} 3')
      expect(text).toContain('gateway_upstream_failures{vendor="operator-stub"} 1')
      expect(text).toContain('gateway_upstream_breaker_state{vendor="operator-stub"} 0')
      const { upstreams } = await snapshot({
        ledger: undefined,
        availability: () => ({ available: true }),
        metrics: meter,
      })
      expect(upstreams.find((row) => row.id === 'operator-stub')).toMatchObject({ calls: 3, breaker: 'closed' })
      expect(upstreams.find((row) => row.id === 'operator-stub')?.errorRate).toBeCloseTo(1 / 3)
      // A gateway built without boot names no vendor unless it is given where they record.
      expect(await metrics().render()).not.toContain('operator-stub')
    } finally {
      stub.stop()
    }
  })

  test('behavior: without OPERATOR_TOKEN the operator pages are off', async () => {
    const { testGateway } = await import('../support/gateway.js')
    const plain = testGateway()
    expect((await plain.fetch('/metrics', { headers: bearer })).status).toBe(404)
    expect((await plain.fetch('/dashboard', { headers: bearer })).status).toBe(404)
  })
})

describe('POST /dashboard/login', () => {
  /** The operator routes alone, each request's client named by its `x-client` header. */
  const routes = () =>
    operator({
      config: parse({ OPERATOR_TOKEN: token }),
      metrics: metrics(),
      ledger: undefined,
      availability: () => ({ available: true }),
      handle: async () => new Response(null, { status: 404 }),
      origin: () => origin,
      limiter: memory(),
      clientOf: (request) => request.headers.get('x-client') ?? 'unnamed',
    })
  const login = (app: Pick<AnyElysia, 'handle'>, body: string, client = 'unnamed') =>
    app.handle(
      new Request(`${origin}/dashboard/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-client': client },
        body,
      }),
    )

  test('error: a token that is not a string is a 400 problem, and nothing is logged at error level', async () => {
    const events: string[] = []
    const local = testGateway({
      env: { OPERATOR_TOKEN: token },
      logger: { log: (level, event) => events.push(`${level} ${event}`) },
    })
    for (const body of ['{"token":{"toString":1}}', '{"token":{"valueOf":1,"toString":1}}', '{"token":[1]}']) {
      const response = await login(local, body)
      expect(response.status).toBe(400)
      expect(response.headers.get('content-type')).toStartWith('application/problem+json')
      expect(await response.json()).toMatchObject({ code: 'validation_failed', field: 'token' })
    }
    expect(events.filter((event) => event.startsWith('error '))).toEqual([])
  })

  test('security: 300 wrong tries from one client get 429 after its allowance, the right token too; another client signs in', async () => {
    const app = routes()
    const statuses: number[] = []
    for (let attempt = 0; attempt < 300; attempt++)
      statuses.push(
        (await login(app, JSON.stringify({ token: `${token.slice(0, -3)}${attempt}` }), '198.51.100.7')).status,
      )
    expect(statuses.slice(0, loginLimit.capacity)).toEqual(Array(loginLimit.capacity).fill(401))
    expect(statuses.slice(loginLimit.capacity)).toEqual(Array(300 - loginLimit.capacity).fill(429))
    expect(await (await login(routes(), '{"token":"wrong"}')).text()).toContain(
      '<p class="bad" role="alert">That token is not the operator token.</p>',
    )
    const throttled = await login(app, JSON.stringify({ token }), '198.51.100.7')
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(throttled.headers.get('set-cookie')).toBeNull()
    expect(await throttled.text()).toContain('Too many tries from this address')

    const other = await login(app, JSON.stringify({ token }), '203.0.113.9')
    expect(other.status).toBe(303)
    expect(other.headers.get('set-cookie')).toStartWith('operator_session=')
  })

  test("behavior: the gateway throttles its clients' login tries", async () => {
    const local = testGateway({ env: { OPERATOR_TOKEN: token } })
    const statuses: number[] = []
    for (let attempt = 0; attempt <= loginLimit.capacity; attempt++)
      statuses.push((await login(local, JSON.stringify({ token: 'wrong' }))).status)
    expect(statuses).toEqual([...Array(loginLimit.capacity).fill(401), 429])
  })
})

describe('secretMatcher', () => {
  test('behavior: the secret matches; anything else, or no secret, does not', () => {
    const matches = secretMatcher(token)
    expect(matches(token)).toBe(true)
    for (const presented of [undefined, '', token.slice(0, -1), `${token}x`, token.toUpperCase()])
      expect(matches(presented)).toBe(false)
    expect(secretMatcher(undefined)(token)).toBe(false)
    expect(secretMatcher(undefined)(undefined)).toBe(false)
  })

  test('security: a value of any length is compared in full, as a 32-byte digest against 32 bytes, in constant time', () => {
    const compare = spyOn(crypto, 'timingSafeEqual')
    try {
      const matches = secretMatcher(token)
      for (const presented of ['', 'o', token.slice(0, -1), token, `${token}x`, 'x'.repeat(10_000)]) {
        compare.mockClear()
        matches(presented)
        expect(compare).toHaveBeenCalledTimes(1)
        const [a, b] = compare.mock.calls[0] as [Buffer, Buffer]
        expect([a.byteLength, b.byteLength]).toEqual([32, 32])
      }
    } finally {
      compare.mockRestore()
    }
  })
})

describe.skipIf(!hasChromium)('GET /dashboard in headless Chromium', () => {
  test('behavior: the token is required; after login the page shows the paid calls, their transactions and plots', async () => {
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => gateway.gateway.handle(request) })
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] })
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1300 } })
      const url = `http://127.0.0.1:${server.port}/dashboard`
      const first = await page.goto(url)
      expect(first!.status()).toBe(401)
      expect(await page.locator('h1').textContent()).toBe('Operator dashboard')
      await page.fill('#token', 'not-the-operator-token')
      await page.click('button[type=submit]')
      expect(await page.locator('[role=alert]').textContent()).toBe('That token is not the operator token.')

      await page.fill('#token', token)
      await Promise.all([page.waitForURL(url), page.click('button[type=submit]')])
      const [session] = await page.context().cookies()
      expect(session).toMatchObject({
        name: 'operator_session',
        httpOnly: true,
        sameSite: 'Strict',
        path: '/dashboard',
      })
      expect(session!.value).not.toContain(token)
      expect(await page.locator('#revenue .big').textContent()).toBe('$0.002000')
      expect(await page.locator('#per-endpoint').textContent()).toContain('GET /api/v1/rpc/chains')
      expect(await page.locator('tr[data-state=settled] td').nth(1).textContent()).toBe('2')
      for (const transaction of transactions)
        expect(await page.locator(`#payments [title="${transaction}"]`).count()).toBeGreaterThan(0)
      expect(await page.locator('#top-payers').textContent()).toContain(gateway.account(2).address)
      expect(await page.locator('#revenue svg path').count()).toBe(1)
      expect(await page.locator('#latency svg rect').count()).toBeGreaterThan(0)
      expect(await page.locator('#availability h2').textContent()).toMatch(
        /^Availability: \d+ of \d+ entries available$/,
      )

      const screenshot = process.env.DASHBOARD_SCREENSHOT
      if (screenshot) {
        mkdirSync(dirname(screenshot), { recursive: true })
        await page.screenshot({ path: screenshot, fullPage: true })
      }
      // The same page answers a bearer token, with no cookie.
      const direct = await gateway.fetch(`${origin}/dashboard`, { headers: bearer })
      expect(direct.status).toBe(200)
      expect(direct.headers.get('content-security-policy')).toContain("default-src 'none'")
    } finally {
      await browser.close()
      server.stop(true)
    }
  }, 30_000)
})
