import { describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { Elysia, type Static, t } from 'elysia'
import { Challenge } from 'mppx'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { clients } from '../../../app/clients.js'
import { parse } from '../../../app/config.js'
import { terms as termsOf } from '../../../app/terms.js'
import * as Module from '../../../core/Module.js'
import type * as Price from '../../../core/Price.js'
import { stubPayment, testGateway } from '../../support/gateway.js'

// A test module priced per request, as a compute module would be: $0.02-$0.08 in the catalog, $0.01 per size unit.
const path = '/api/v1/compute/image-generation'
const key = `POST ${path}`
const Body = t.Object({ size: t.Integer({ minimum: 1, maximum: 100 }) })
const perSize: Price.Rule<Static<typeof Body>> = {
  description: '$0.01 per size unit',
  amount: ({ body }) => BigInt(body.size) * 10_000n,
}
const images = (prices?: Price.Rules) =>
  Module.define({
    name: 'images',
    paths: [path],
    needs: [],
    routes: () => new Elysia({ name: 'test-images' }).post(path, ({ body }) => ({ size: body.size }), { body: Body }),
    ...(prices ? { prices } : {}),
  })

const terms = termsOf(parse({}))

function setup(prices: Price.Rules | null = { [key]: perSize }) {
  const { payment, settled } = stubPayment()
  const gateway = testGateway({ payment, families: [images(prices ?? undefined)] })
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    gateway.handle(new Request(input, init))) as typeof globalThis.fetch
  const pay = clients({ terms, fetch })
  const post = (size: number, headers: Record<string, string> = {}) =>
    gateway.handle(
      new Request(`http://gateway.test${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ size }),
      }),
    )
  return { gateway, payment, settled, pay, fetch, post }
}

/** The amount every offer of a 402 names: the x402 v1 body, the x402 v2 header and the MPP challenge. */
async function offered(response: Response) {
  expect(response.status).toBe(402)
  const body = (await response.json()) as { code: string; detail: string; accepts: { maxAmountRequired: string }[] }
  const v2 = decodePaymentRequiredHeader(response.headers.get('payment-required')!)
  const mpp = Challenge.deserialize(response.headers.get('www-authenticate')!)
  const amounts = new Set([body.accepts[0]!.maxAmountRequired, v2.accepts[0]!.amount, String(mpp.request.amount)])
  expect(amounts.size).toBe(1)
  return { amount: BigInt([...amounts][0]!), body }
}

describe('a price per request', () => {
  test('behavior: two requests of different sizes get two different 402 amounts, in every offer', async () => {
    const { post } = setup()
    const three = await offered(await post(3))
    const five = await offered(await post(5))
    expect(three.amount).toBe(30_000n)
    expect(five.amount).toBe(50_000n)
    expect(three.body.code).toBe('payment_required')
    expect(three.body.detail).toContain('$0.030000')
  })

  test('behavior: a payment of the quoted amount is accepted, claimed and settled at that amount', async () => {
    const { post, pay, settled, payment } = setup()
    const payer = privateKeyToAccount(generatePrivateKey())
    const response = await post(3, { 'PAYMENT-SIGNATURE': await pay.presigned({ signer: payer, value: 30_000n }) })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ size: 3 })
    expect(settled.map((authorization) => authorization.value)).toEqual([30_000n])
    const entry = await payment.ledger.get({ payer: payer.address, nonce: settled[0]!.nonce })
    expect(entry).toMatchObject({ state: 'settled', amount: 30_000n, endpoint: key })
  })

  test("error: a payment of another request's amount is refused as amount_mismatch, nothing settles", async () => {
    const { post, pay, settled } = setup()
    const payer = privateKeyToAccount(generatePrivateKey())
    const response = await post(3, { 'PAYMENT-SIGNATURE': await pay.presigned({ signer: payer, value: 50_000n }) })
    const { amount, body } = await offered(response)
    expect(body.code).toBe('amount_mismatch')
    expect(amount).toBe(30_000n)
    expect(settled).toEqual([])
  })

  test('behavior: an amount outside the catalog range is held at its bounds, and that amount is what is paid', async () => {
    const { post, pay, settled } = setup()
    expect((await offered(await post(1))).amount).toBe(20_000n)
    expect((await offered(await post(20))).amount).toBe(80_000n)
    const payer = privateKeyToAccount(generatePrivateKey())
    const below = await post(1, { 'PAYMENT-SIGNATURE': await pay.presigned({ signer: payer, value: 10_000n }) })
    expect((await offered(below)).body.code).toBe('amount_mismatch')
    const held = await post(1, { 'PAYMENT-SIGNATURE': await pay.presigned({ signer: payer, value: 20_000n }) })
    expect(held.status).toBe(200)
    expect(settled.map((authorization) => authorization.value)).toEqual([20_000n])
  })

  test('behavior: the x402 and MPP clients pay the amount quoted for their request', async () => {
    const { pay, settled } = setup()
    const request = (size: number) =>
      new Request(`http://gateway.test${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ size }),
      })
    expect((await pay.x402(privateKeyToAccount(generatePrivateKey()))(request(4))).status).toBe(200)
    expect((await pay.mpp(privateKeyToAccount(generatePrivateKey()))(request(6))).status).toBe(200)
    expect(settled.map((authorization) => authorization.value)).toEqual([40_000n, 60_000n])
  })

  test('error: an MPP credential answering the challenge of another size is refused', async () => {
    const { post, fetch, settled } = setup()
    const challenge = (await post(3)).headers.get('www-authenticate')!
    // The mppx client answers the challenge it is shown (size 3's); its credential goes out with a size 5 request.
    const answers: Response[] = []
    const replaying = clients({
      terms,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        if (answers.length > 0) return new Response(null, { status: 500 })
        const request = new Request(input, init)
        if (!request.headers.has('authorization'))
          return new Response('{}', { status: 402, headers: { 'www-authenticate': challenge } })
        answers.push(await fetch(new Request(request, { body: JSON.stringify({ size: 5 }) })))
        return answers[0]!.clone()
      }) as typeof globalThis.fetch,
    })
    await replaying.mpp(privateKeyToAccount(generatePrivateKey()))(`http://gateway.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ size: 3 }),
    })
    const { amount, body } = await offered(answers[0]!)
    expect(body.code).toBe('challenge_mismatch')
    expect(body.detail).toBe('The challenge is for 30000 atomic units; this call costs 50000.')
    expect(amount).toBe(50_000n)
    expect(settled).toEqual([])
  })

  test('behavior: discovery shows the range with the rule', async () => {
    const { gateway } = setup()
    const manifest = (await (await gateway.fetch('/.well-known/x402.json')).json()) as {
      resources: { method: string; path: string; available: boolean; price: unknown }[]
    }
    const resource = manifest.resources.find((candidate) => `${candidate.method} ${candidate.path}` === key)!
    const price = {
      mode: 'range',
      minAmount: '0.020000',
      maxAmount: '0.080000',
      currency: 'USD',
      rule: '$0.01 per size unit',
    }
    expect(resource).toMatchObject({ available: true, price })
    const openapi = (await (await gateway.fetch('/openapi.json')).json()) as {
      paths: Record<string, Record<string, any>>
    }
    expect(openapi.paths[path]!.post['x-payment-info'].price).toEqual(price)
    expect(openapi.paths[path]!.post.description).toBe('$0.020000-$0.080000 by request ($0.01 per size unit) per call.')
    expect(await (await gateway.fetch('/llms.txt')).text()).toContain(
      `- ${key}: $0.020000-$0.080000 by request ($0.01 per size unit) - `,
    )
  })

  test('behavior: an entry priced per request whose module declares no rule answers 501 before any payment', async () => {
    const { post, settled } = setup(null)
    const response = await post(3)
    expect(response.status).toBe(501)
    expect(response.headers.get('payment-required')).toBeNull()
    expect(((await response.json()) as { code: string; detail: string }).detail).toContain('has no price rule')
    expect(settled).toEqual([])
  })

  test('error: a rule for an entry the module does not serve, or for a fixed price, fails at boot', () => {
    expect(() => setup({ 'POST /api/v1/compute/text-inference': perSize })).toThrow('does not serve')
    const chains = Module.define({
      name: 'chains',
      paths: ['/api/v1/rpc/chains'],
      needs: [],
      routes: () => new Elysia().get('/api/v1/rpc/chains', () => ({})),
      prices: { 'GET /api/v1/rpc/chains': perSize },
    })
    expect(() => testGateway({ payment: stubPayment().payment, families: [chains] })).toThrow('only ranges and varies')
  })
})
