import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { chromium } from 'playwright-core'
import { origin, paidGateway } from '../support/paid.js'

const token = 'operator-token-for-tests-0002'
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

  test('behavior: without OPERATOR_TOKEN the operator pages are off', async () => {
    const { testGateway } = await import('../support/gateway.js')
    const plain = testGateway()
    expect((await plain.fetch('/metrics', { headers: bearer })).status).toBe(404)
    expect((await plain.fetch('/dashboard', { headers: bearer })).status).toBe(404)
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
