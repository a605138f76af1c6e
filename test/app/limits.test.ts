import { afterEach, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory as memoryLimiter } from '../../adapters/limiter/memory.js'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import { clients } from '../../app/clients.js'
import { carriesPayment, failedVerifications, perMinute, unpaidConcurrency } from '../../app/limits.js'
import type { Facilitator } from '../../core/Facilitator.js'
import * as Module from '../../core/Module.js'
import type { Oracle } from '../../core/Oracle.js'
import { stubPayment, testGateway } from '../support/gateway.js'

/** Gateways a test served; stopped after it. */
const served: { stop: () => unknown }[] = []
afterEach(async () => {
  for (const app of served.splice(0)) await app.stop()
})

/** Serves `gateway` on a free port of 127.0.0.1, so that its requests have a source address: its origin. */
function serve(gateway: ReturnType<typeof testGateway>): string {
  gateway.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
  served.push(gateway.app)
  return `http://127.0.0.1:${gateway.app.server!.port}`
}

/** A module serving one fixed-price entry, `GET /api/v1/models`, with nothing behind it. */
const models = Module.define({
  name: 'models',
  paths: ['/api/v1/models'],
  needs: [],
  routes: () => new Elysia().get('/api/v1/models', () => ({ models: [], count: 0 })),
})

/** A family serving one free entry, `GET /api/v1/gpu/models`, that sets no rate limit of its own. */
const gpuModels = Module.define({
  name: 'gpu',
  paths: ['/api/v1/gpu/models'],
  needs: [],
  routes: () => new Elysia().get('/api/v1/gpu/models', () => ({ models: [] })),
})

describe('carriesPayment', () => {
  test.each([
    [{ 'payment-signature': 'x' }, true],
    [{ 'x-payment': 'x' }, true],
    [{ authorization: 'Payment id="1"' }, true],
    [{ authorization: 'Bearer token' }, false],
    [{}, false],
  ])('behavior: %p carries a payment: %p', (headers, expected) => {
    expect(carriesPayment(new Headers(headers))).toBe(expected)
  })
})

describe('unpaidConcurrency', () => {
  test('default: a client is refused past its cap until one of its requests is answered; others are not', () => {
    const counter = unpaidConcurrency({ cap: 2 })
    expect([counter.enter('a'), counter.enter('a'), counter.enter('a'), counter.enter('b')]).toEqual([
      true,
      true,
      false,
      true,
    ])
    counter.leave('a')
    expect(counter.enter('a')).toBe(true)
  })
})

describe('failedVerifications', () => {
  test('default: past its failures a client is blocked until the bucket refills; others are not', async () => {
    let now = 1_000_000
    const failures = failedVerifications({
      limiter: memoryLimiter({ now: () => now }),
      options: perMinute(2),
      now: () => now,
    })
    for (let failure = 0; failure < 2; failure++) await failures.record('a')
    expect(failures.blockedUntil('a')).toBeUndefined()
    await failures.record('a')
    expect(failures.blockedUntil('a')).toBe(1_030_000)
    expect(failures.blockedUntil('b')).toBeUndefined()
    now = 1_030_000
    expect(failures.blockedUntil('a')).toBeUndefined()
  })
})

describe('the cap on unpaid requests in progress', () => {
  test('error: one unpaid request past the cap is answered 429 at once; paid ones and later ones are not refused', async () => {
    // Prices wait until the test lets them go: the requests that ask for one stay in progress.
    const waiting: (() => void)[] = []
    const oracle: Oracle = {
      usdPrice: () =>
        new Promise((resolve) =>
          waiting.push(() => resolve({ ok: true, usd: '2000', source: 'test', observedAt: new Date() })),
        ),
    }
    const gateway = testGateway({
      oracle,
      env: { UNPAID_CONCURRENCY_PER_CLIENT: '3', FREE_RATE_LIMIT_PER_MINUTE: '0' },
    })
    const origin = serve(gateway)
    const held = Array.from({ length: 3 }, () => fetch(`${origin}/free/convert?amount=1&from=ETH&to=USD`))
    while (waiting.length < 3) await Bun.sleep(5)
    const refused = await fetch(`${origin}/free/timestamp`)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toBe('application/problem+json')
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' })
    // A request that carries a payment is not counted: the free endpoint serves it.
    expect((await fetch(`${origin}/free/timestamp`, { headers: { 'payment-signature': 'x' } })).status).toBe(200)
    for (const release of waiting) release()
    expect((await Promise.all(held)).map((response) => response.status)).toEqual([200, 200, 200])
    expect((await fetch(`${origin}/free/timestamp`)).status).toBe(200)
  })

  test('behavior: 0 turns the cap off', async () => {
    const waiting: (() => void)[] = []
    const oracle: Oracle = {
      usdPrice: () =>
        new Promise((resolve) =>
          waiting.push(() => resolve({ ok: true, usd: '2000', source: 'test', observedAt: new Date() })),
        ),
    }
    const gateway = testGateway({
      oracle,
      env: { UNPAID_CONCURRENCY_PER_CLIENT: '0', FREE_RATE_LIMIT_PER_MINUTE: '0' },
    })
    const origin = serve(gateway)
    const held = Array.from({ length: 40 }, () => fetch(`${origin}/free/convert?amount=1&from=ETH&to=USD`))
    while (waiting.length < 40) await Bun.sleep(5)
    expect((await fetch(`${origin}/free/timestamp`)).status).toBe(200)
    for (const release of waiting) release()
    await Promise.all(held)
  })
})

describe('the default rate limit of free endpoints', () => {
  test('error: a family that sets no limit of its own gets the default on its free entries', async () => {
    const gateway = testGateway({ families: [gpuModels], env: { FREE_ENDPOINT_RATE_LIMIT_PER_MINUTE: '2' } })
    const statuses = []
    for (let call = 0; call < 3; call++) statuses.push((await gateway.fetch('/api/v1/gpu/models')).status)
    expect(statuses).toEqual([200, 200, 429])
    const response = await gateway.fetch('/api/v1/gpu/models')
    expect(response.headers.get('ratelimit-policy')).toBe('"gpu";q=2;w=60')
  })

  test('default: 300 calls a minute per client, and a family limit set to 0 still means none', async () => {
    const limited = testGateway({ families: [gpuModels] })
    for (let call = 0; call < 300; call++) expect((await limited.fetch('/api/v1/gpu/models')).status).toBe(200)
    expect((await limited.fetch('/api/v1/gpu/models')).status).toBe(429)
    const unlimited = testGateway({ env: { FREE_RATE_LIMIT_PER_MINUTE: '0' } })
    for (let call = 0; call < 310; call++) expect((await unlimited.fetch('/free/timestamp')).status).toBe(200)
  })
})

describe('a limiter whose engine does not answer', () => {
  test('error: a limited call is a 503 upstream_unavailable that says to retry, never a 500, and is not let through', async () => {
    let handled = 0
    const counted = Module.define({
      name: 'gpu',
      paths: ['/api/v1/gpu/models'],
      needs: [],
      routes: () => new Elysia().get('/api/v1/gpu/models', () => ({ models: [], handled: ++handled })),
    })
    const gateway = testGateway({
      families: [counted],
      limiter: {
        take: () =>
          Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' })),
        close: async () => {},
      },
    })
    const response = await gateway.fetch('/api/v1/gpu/models')
    expect(response.status).toBe(503)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    const body = (await response.json()) as { code: string; detail: string }
    expect(body.code).toBe('upstream_unavailable')
    expect(body.detail).not.toContain('6379')
    expect(handled).toBe(0)
  })
})

describe('the limit on payments that fail their on-chain check', () => {
  test('error: past the limit a client gets 429 before the chain is read again', async () => {
    const { payment } = stubPayment()
    let reads = 0
    const verify: Facilitator['verify'] = async () => {
      reads++
      return { ok: false, reason: 'insufficient_funds', message: 'The payer holds too little USDC.' }
    }
    payment.facilitator = { ...payment.facilitator, verify }
    const gateway = testGateway({ payment, families: [models], env: { FAILED_PAYMENT_CHECKS_PER_MINUTE: '2' } })
    const origin = serve(gateway)
    const pay = clients({ terms: gateway.terms, fetch })
    const statuses: number[] = []
    for (let call = 0; call < 6; call++) {
      // A new unfunded key each time, as an attacker would sign.
      const header = await pay.presigned({ signer: privateKeyToAccount(generatePrivateKey()), value: 1000n })
      const response = await fetch(`${origin}/api/v1/models`, { headers: { 'PAYMENT-SIGNATURE': header } })
      statuses.push(response.status)
      if (response.status === 429) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        expect(await response.json()).toMatchObject({ code: 'rate_limited' })
      } else await response.arrayBuffer()
    }
    // Two failures are allowed; the third's read finds the bucket empty, and from then on the chain is not read.
    expect(statuses).toEqual([402, 402, 402, 429, 429, 429])
    expect(reads).toBe(3)
  })

  test('behavior: a paying client is never counted', async () => {
    const { payment } = stubPayment()
    const gateway = testGateway({ payment, families: [models], env: { FAILED_PAYMENT_CHECKS_PER_MINUTE: '1' } })
    const origin = serve(gateway)
    const pay = clients({ terms: gateway.terms, fetch })
    for (let call = 0; call < 4; call++) {
      const header = await pay.presigned({ signer: privateKeyToAccount(generatePrivateKey()), value: 1000n })
      const response = await fetch(`${origin}/api/v1/models`, { headers: { 'PAYMENT-SIGNATURE': header } })
      expect(response.status).toBe(200)
      await response.arrayBuffer()
    }
  })
})

describe('the URL check before payment', () => {
  /** A gateway whose names all resolve to one private address, served. */
  function webhooks(env: Record<string, string>) {
    const gateway = testGateway({
      store: memoryStore(),
      ports: { queue: memoryQueue(), outbound: outbound({ resolve: async () => ['10.1.2.3'] }) },
      env,
    })
    const origin = serve(gateway)
    return (url: string) =>
      fetch(`${origin}/api/v1/webhook/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['payment.settled'] }),
      })
  }

  test('error: past the limit a client gets 429 before any DNS', async () => {
    const register = webhooks({ URL_CHECKS_PER_MINUTE: '2' })
    const statuses = []
    for (let call = 0; call < 4; call++) statuses.push((await register(`http://host-${call}.example/hook`)).status)
    expect(statuses).toEqual([400, 400, 429, 429])
    const refused = await register('http://another.example/hook')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' })
  })

  test('security: a refusal names neither the range nor the address the name resolves to', async () => {
    const register = webhooks({})
    const body = await (await register('http://intranet.example/hook')).json()
    expect(body).toMatchObject({ code: 'bad_request', field: 'url', reason: 'private_address' })
    expect(body.detail).toContain('resolves to a private or reserved address')
    expect(JSON.stringify(body)).not.toContain('10.1.2.3')
    expect(JSON.stringify(body)).not.toMatch(/\((private|loopback|link_local|metadata)\)|special-purpose/)
  })
})
