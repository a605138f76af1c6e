import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory } from '../../adapters/store/memory.js'
import * as Outbound from '../../core/Outbound.js'
import * as TokenList from '../../core/TokenList.js'
import { stubPayment, testGateway } from '../support/gateway.js'

// Every server listens on loopback. The allow-list lets 127.0.0.1 through as the stand-in of a public address;
// 127.0.0.2, not on it, stands in for a private one the guard must refuse.

const allowed = Outbound.parseAllowList('127.0.0.1')
if (!allowed.ok) throw new Error(allowed.message)
const guard = outbound({ allow: allowed.list, timeoutMs: 5_000 })

/** This gateway, paid calls on (stub settlement), its probe's guard allowing loopback; served over HTTP below. */
const gateway = testGateway({ store: memory(), payment: stubPayment().payment, ports: { outbound: guard } })

/** Paths the private stand-in was asked for: none, ever. */
const privateHits: string[] = []

let self: ReturnType<typeof Bun.serve>
let variants: ReturnType<typeof Bun.serve>
let privateServer: ReturnType<typeof Bun.serve>
let brokenDocs: ReturnType<typeof Bun.serve>

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** Base mainnet's USDC, whose decimals our token list knows. */
const usdc = TokenList.baseMainnet.find((token) => token.symbol === 'USDC')!.address
const payee = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C'

/** A valid x402 v2 offer of 0.01 USDC on Base. */
const validV2 = {
  x402Version: 2,
  resource: { url: 'http://127.0.0.1/valid' },
  accepts: [
    {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '10000',
      asset: usdc,
      payTo: payee,
      maxTimeoutSeconds: 60,
      extra: { name: 'USD Coin', version: '2' },
    },
  ],
}

/** A valid MPP charge challenge of 0.5 of an 18-decimals token, stating its decimals. */
const validMpp = `Payment id="abc", realm="127.0.0.1", method="evm", intent="charge", request="${base64url({
  amount: '500000000000000000',
  currency: '0x4200000000000000000000000000000000000006',
  recipient: payee,
  methodDetails: { chainId: 8453, decimals: 18 },
})}", expires="2099-01-01T00:00:00.000Z"`

const variantRoutes: Record<string, () => Response> = {
  '/valid': () =>
    new Response('{}', {
      status: 402,
      headers: {
        'payment-required': encodePaymentRequiredHeader(validV2 as never),
        'www-authenticate': validMpp,
        'content-type': 'application/json',
      },
    }),
  '/bad-base64': () => new Response(null, { status: 402, headers: { 'payment-required': '%%% not base64 %%%' } }),
  '/v2-missing-fields': () =>
    new Response(null, {
      status: 402,
      headers: {
        'payment-required': base64({ x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:8453' }] }),
      },
    }),
  '/v1-not-json': () =>
    new Response('{"x402Version":1,"accepts":[', { status: 402, headers: { 'content-type': 'application/json' } }),
  '/mpp-malformed': () =>
    new Response(null, {
      status: 402,
      headers: { 'www-authenticate': 'Payment id="x", realm="r", method="evm", intent="charge", request="%%%"' },
    }),
  '/mpp-bad-amount': () =>
    new Response(null, {
      status: 402,
      headers: {
        'www-authenticate': `Payment id="y", realm="r", method="evm", intent="charge", request="${base64url({
          amount: '0.5',
          currency: usdc,
        })}", expires="2000-01-01T00:00:00.000Z"`,
      },
    }),
  '/free': () => Response.json({ ok: true }),
  '/openapi.json': () =>
    Response.json({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/valid': { get: {} } } }),
  '/llms.txt': () => new Response('# Variants\n\nPays with x402.\n'),
}

beforeAll(() => {
  self = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => gateway.handle(request) })
  privateServer = Bun.serve({
    hostname: '127.0.0.2',
    port: 0,
    fetch(request) {
      privateHits.push(new URL(request.url).pathname)
      return new Response(null, { status: 402, headers: { 'payment-required': base64(validV2) } })
    },
  })
  brokenDocs = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      switch (new URL(request.url).pathname) {
        case '/.well-known/x402.json':
          return new Response('{"x402Version": 2,', { headers: { 'content-type': 'application/json' } })
        case '/openapi.json':
          return Response.json({
            openapi: '3.1.0',
            info: { title: 't', version: '1' },
            paths: { '/x': { get: { 'x-payment-info': { amount: '0.5', currency: 'USD' }, responses: {} } } },
          })
        default:
          return new Response('Payment required', { status: 402, headers: { 'content-type': 'text/plain' } })
      }
    },
  })
  variants = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url)
      if (pathname === '/redirect-private')
        return new Response(null, {
          status: 302,
          headers: { location: `http://127.0.0.2:${privateServer.port}/valid` },
        })
      return variantRoutes[pathname]?.() ?? new Response('not found', { status: 404 })
    },
  })
})

afterAll(() => {
  brokenDocs.stop(true)
  self.stop(true)
  variants.stop(true)
  privateServer.stop(true)
})

type Report = {
  url: string
  status: number | null
  x402: boolean
  response: { status: number | null; paymentRequired: boolean }
  protocols: string[]
  offers: {
    protocol: string
    where: string
    scheme: string
    method?: string
    network?: string
    asset?: string
    payTo?: string
    amount?: string
    decimals?: number
    formatted?: string
  }[]
  networks: string[]
  assets: string[]
  payees: string[]
  discovery: {
    wellKnown: { status: number | null; found: boolean; x402Version?: unknown; resources?: number; payees?: string[] }
    openapi: { status: number | null; found: boolean; paidOperations?: number }
    llmsTxt: { status: number | null; found: boolean; mentions?: string[]; title?: string | null }
  }
  malformed: { where: string; why: string }[]
  missing: { where: string; why: string }[]
}

async function check(url: string): Promise<Report> {
  const response = await gateway.post('/free/x402-check', { url })
  expect(response.status).toBe(200)
  return (await response.json()) as Report
}

const variant = (path: string) => `http://127.0.0.1:${variants.port}${path}`

describe('POST /free/x402-check', () => {
  test('default: against this gateway itself, every protocol and discovery document it offers', async () => {
    const report = await check(`http://127.0.0.1:${self.port}/api/v1/audit/query`)
    const { terms } = gateway
    expect(report.response).toMatchObject({ status: 402, paymentRequired: true })
    // The original gateway's names for the same two facts.
    expect(report).toMatchObject({ status: 402, x402: true })
    expect(report.protocols.sort()).toEqual(['mpp', 'x402-v1', 'x402-v2'])
    expect(report.offers.map((offer) => offer.protocol).sort()).toEqual(['mpp', 'x402-v1', 'x402-v2'])
    for (const offer of report.offers) {
      expect(offer.network).toBe(terms.network)
      expect(offer.asset?.toLowerCase()).toBe(terms.asset.address.toLowerCase())
      expect(offer.payTo?.toLowerCase()).toBe(terms.payTo.toLowerCase())
      expect(offer.decimals).toBe(terms.asset.decimals)
      expect(BigInt(offer.amount!)).toBeGreaterThan(0n)
      expect(offer.formatted).toMatch(/^0\.\d+$/)
    }
    expect(report.offers.find((offer) => offer.protocol === 'mpp')).toMatchObject({ scheme: 'charge', method: 'evm' })
    expect(report.offers.find((offer) => offer.protocol === 'x402-v2')?.scheme).toBe('exact')
    expect(report.networks).toEqual([terms.network])
    expect(report.payees).toHaveLength(1)
    expect(report.discovery.wellKnown).toMatchObject({ status: 200, found: true, x402Version: 2 })
    expect(report.discovery.wellKnown.resources).toBeGreaterThan(100)
    expect(report.discovery.openapi).toMatchObject({ status: 200, found: true })
    expect(report.discovery.openapi.paidOperations).toBeGreaterThan(100)
    expect(report.discovery.llmsTxt).toMatchObject({ status: 200, found: true, title: 'agent-pay-gateway' })
    expect(report.discovery.llmsTxt.mentions).toEqual(expect.arrayContaining(['x402', 'mpp', 'PAYMENT-REQUIRED']))
    expect(report.malformed).toEqual([])
    expect(report.missing).toEqual([])
  })

  test('behavior: a valid offer on Base is formatted from our token list, an MPP one from its own decimals', async () => {
    const report = await check(variant('/valid'))
    expect(report.offers).toEqual([
      {
        protocol: 'x402-v2',
        where: 'PAYMENT-REQUIRED header accepts[0]',
        scheme: 'exact',
        network: 'eip155:8453',
        asset: usdc,
        payTo: payee,
        amount: '10000',
        decimals: 6,
        formatted: '0.01',
      },
      {
        protocol: 'mpp',
        where: 'WWW-Authenticate header Payment challenge 0 (id abc)',
        scheme: 'charge',
        method: 'evm',
        network: 'eip155:8453',
        asset: '0x4200000000000000000000000000000000000006',
        payTo: payee,
        amount: '500000000000000000',
        decimals: 18,
        formatted: '0.5',
      },
    ])
    expect(report.malformed).toEqual([])
  })

  test('behavior: a PAYMENT-REQUIRED header that is not base64 is malformed', async () => {
    const report = await check(variant('/bad-base64'))
    expect(report.offers).toEqual([])
    expect(report.malformed).toEqual([
      { where: 'PAYMENT-REQUIRED header', why: expect.stringContaining('not base64-encoded JSON') },
    ])
  })

  test('behavior: a v2 header missing fields names each missing field', async () => {
    const report = await check(variant('/v2-missing-fields'))
    expect(report.protocols).toEqual(['x402-v2'])
    expect(report.offers).toEqual([])
    const wheres = report.malformed.map((issue) => issue.where)
    expect(wheres).toEqual(
      expect.arrayContaining([
        'PAYMENT-REQUIRED header resource',
        'PAYMENT-REQUIRED header accepts[0].amount',
        'PAYMENT-REQUIRED header accepts[0].asset',
        'PAYMENT-REQUIRED header accepts[0].payTo',
      ]),
    )
  })

  test('behavior: a JSON 402 body that does not parse is malformed', async () => {
    const report = await check(variant('/v1-not-json'))
    expect(report.malformed).toEqual([{ where: '402 body', why: expect.stringContaining('does not parse') }])
  })

  test('behavior: an MPP challenge mppx cannot parse is malformed, and so are an amount and expiry it parses', async () => {
    const broken = await check(variant('/mpp-malformed'))
    expect(broken.protocols).toEqual(['mpp'])
    expect(broken.malformed).toEqual([
      { where: 'WWW-Authenticate header', why: expect.stringContaining('Payment challenge does not parse') },
    ])
    const wrong = await check(variant('/mpp-bad-amount'))
    expect(wrong.malformed.map((issue) => issue.where)).toEqual([
      'WWW-Authenticate header Payment challenge 0 (id y) request.amount',
      'WWW-Authenticate header Payment challenge 0 (id y) request.recipient',
      'WWW-Authenticate header Payment challenge 0 (id y) expires',
    ])
  })

  test('behavior: a missing well-known manifest and an OpenAPI document without x-payment-info are reported missing', async () => {
    const report = await check(variant('/valid'))
    expect(report.discovery.wellKnown).toMatchObject({ status: 404, found: false })
    expect(report.discovery.openapi).toMatchObject({ status: 200, found: true, paidOperations: 0 })
    expect(report.discovery.llmsTxt).toMatchObject({ found: true, title: 'Variants', mentions: ['x402'] })
    expect(report.missing).toEqual([
      { where: '/.well-known/x402.json', why: 'answered 404' },
      { where: '/openapi.json', why: 'no operation carries x-payment-info' },
    ])
  })

  test('behavior: a well-known manifest that is not JSON and a bad x-payment-info are malformed, a bare 402 missing', async () => {
    const report = await check(`http://127.0.0.1:${brokenDocs.port}/x`)
    expect(report.response).toMatchObject({ status: 402, paymentRequired: true })
    expect(report.protocols).toEqual([])
    expect(report.malformed).toEqual([
      { where: '/.well-known/x402.json', why: expect.stringContaining('not JSON') },
      { where: '/openapi.json paths./x.get.x-payment-info.amount', why: 'Invalid amount' },
    ])
    expect(report.missing.map((issue) => issue.where)).toEqual(['/llms.txt', '/x'])
  })

  test('behavior: a URL that answers without 402 is reported, not an error', async () => {
    const report = await check(variant('/free'))
    expect(report.response).toMatchObject({ status: 200, paymentRequired: false })
    expect(report).toMatchObject({ status: 200, x402: false })
    expect(report.missing).toContainEqual({ where: '/free', why: 'answered 200, not 402 Payment Required' })
  })

  test('security: a redirect to a refused address is not followed', async () => {
    const before = privateHits.length
    const report = await check(variant('/redirect-private'))
    expect(report.response).toMatchObject({ status: null, paymentRequired: false })
    const why = report.missing.find((issue) => issue.where === '/redirect-private')?.why
    expect(why).toStartWith('no answer:')
    expect(why).toContain('127.0.0.2')
    expect(privateHits.length).toBe(before)
  })

  test('security: a URL the guard refuses is a 400 naming url, before anything is fetched', async () => {
    const before = privateHits.length
    const response = await gateway.post('/free/x402-check', { url: `http://127.0.0.2:${privateServer.port}/valid` })
    expect(response.status).toBe(400)
    const problem = await response.json()
    expect(problem.detail).toStartWith('url:')
    expect(problem).toMatchObject({ field: 'url', reason: 'private_address' })
    expect(privateHits.length).toBe(before)
  })

  test('error: no url, or one that is not http(s), is a 400 naming url', async () => {
    const missing = await gateway.post('/free/x402-check', {})
    expect(missing.status).toBe(400)
    expect(JSON.stringify(await missing.json())).toContain('url')
    const ftp = await gateway.post('/free/x402-check', { url: 'ftp://example.com/x' })
    expect(ftp.status).toBe(400)
    expect(await ftp.json()).toMatchObject({ field: 'url', reason: 'scheme_not_allowed' })
  })

  test('error: without an outbound guard the path answers 503 before anything', async () => {
    const bare = testGateway()
    const response = await bare.post('/free/x402-check', { url: variant('/valid') })
    expect(response.status).toBe(503)
  })
})
