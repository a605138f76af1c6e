import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory } from '../../adapters/store/memory.js'
import { openai } from '../../adapters/upstream/openai.js'
import { maxHeaderBytes, maxTargetBytes } from '../../app/head.js'
import type { Onchain } from '../support/gateway.js'
import { stubPayment, testGateway } from '../support/gateway.js'
import { openaiStub } from '../support/openai.js'

// Input rules the gateway applies to every route, before any module hook and before any payment is asked for.

const token = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
/** A settlement chain that is never reached: every case here is refused before a handler runs. */
const onchain: Onchain = {
  chainId: 84532,
  transfers: { find: async () => [], blockNumber: async () => 0n },
  escrow: { read: async () => undefined, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', chainId: 84532 },
  tokens: [{ symbol: 'USDC', address: token, decimals: 6 }],
}
const gateway = testGateway({ store: memory(), onchain })
const paid = testGateway({ store: memory(), onchain, payment: stubPayment().payment })
const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return (await response.json()) as Record<string, unknown>
}

describe('a value that cannot be turned into a string', () => {
  const poisoned = { toString: 1 }
  test.each([
    ['/api/v1/escrow/create', { depositor: poisoned, beneficiary: address, token: 'USDC', amount: '1' }, 'depositor'],
    ['/api/v1/escrow/fund', { escrowId: poisoned }, 'escrowId'],
    ['/api/v1/invoice/create', { creator: address, token: poisoned, amount: '1' }, 'token'],
    ['/api/v1/auth/session', { address: poisoned }, 'address'],
    ['/api/v1/audit/log', { action: poisoned, actor: address, resource: 'invoice:1' }, 'action'],
    ['/api/v1/audit/log', { action: 5, actor: address, resource: { toString: {} } }, 'action'],
  ])('error: in a string field of %s is a 400 naming the field, never a 500', async (path, body, field) => {
    const response = await gateway.post(path, body)
    expect(response.status).toBe(400)
    const refused = await problem(response)
    expect(refused.code).toBe('validation_failed')
    expect(refused.field).toBe(field)
  })

  test('behavior: inside a field that takes any JSON object it is accepted as data', async () => {
    // Audit details take any object: the entry is valid, so the only refusal left is the missing payment setup.
    const response = await gateway.post('/api/v1/audit/log', {
      action: 'a',
      actor: address,
      resource: 'r',
      details: { toString: 1 },
    })
    expect(response.status).toBe(503)
  })
})

describe('path and query parameters', () => {
  const escrowId = `0x${'ab'.repeat(32)}`
  const invoiceId = `inv_${'0f'.repeat(16)}`
  test.each([
    ['/api/v1/escrow/esc_1', 'id'],
    ['/api/v1/escrow?id=esc_1', 'id'],
    ['/api/v1/escrow', 'id'],
    [`/api/v1/escrow/${escrowId}?id=0x${'cd'.repeat(32)}`, 'id'],
    ['/api/v1/escrow/list?address=nope', 'address'],
    [`/api/v1/escrow/list?address=${address.replace('C8', 'c8')}`, 'address'],
    ['/api/v1/invoice/nope', 'id'],
    ['/api/v1/invoice?id=nope', 'id'],
    ['/api/v1/invoice', 'id'],
    [`/api/v1/invoice/${invoiceId}?id=inv_${'1f'.repeat(16)}`, 'id'],
    ['/api/v1/invoice/list?address=0x1234', 'address'],
  ])('error: GET %s is a 400 before any payment is asked for', async (path, field) => {
    const response = await paid.fetch(path)
    expect(response.status).toBe(400)
    expect(response.headers.get('payment-required')).toBeNull()
    expect((await problem(response)).field).toBe(field)
  })

  test.each([
    [`/api/v1/escrow/${escrowId}`],
    [`/api/v1/escrow?id=${escrowId}`],
    [`/api/v1/escrow/${escrowId}?id=${escrowId.toUpperCase().replace('0X', '0x')}`],
    [`/api/v1/escrow/list?address=${address}`],
    [`/api/v1/invoice/${invoiceId}`],
    [`/api/v1/invoice?id=${invoiceId}`],
    [`/api/v1/invoice/list?address=${address.toLowerCase()}`],
  ])('behavior: GET %s with well-formed parameters asks for payment', async (path) => {
    expect((await paid.fetch(path)).status).toBe(402)
  })
})

describe('repeated query parameters', () => {
  test.each([
    ['/free/uuid?count=1&count=2', 'count', gateway],
    ['/free/uuid?count=1&%63ount=2', 'count', gateway],
    ['/api/v1/auth/verify?token=a&token=b', 'token', paid],
    [`/api/v1/escrow?id=0x${'ab'.repeat(32)}&id=0x${'ab'.repeat(32)}`, 'id', paid],
  ])('error: GET %s is a 400 naming the parameter, before any payment is asked for', async (path, field, target) => {
    const response = await target.fetch(path)
    expect(response.status).toBe(400)
    const refused = await problem(response)
    expect(refused.code).toBe('validation_failed')
    expect(refused.field).toBe(field)
  })

  test('behavior: distinct parameters are fine', async () => {
    expect((await gateway.fetch('/free/uuid?count=2')).status).toBe(200)
  })
})

describe('oversized request heads', () => {
  test('error: a query string past the limit is a 414 problem, before any payment is asked for', async () => {
    const response = await paid.fetch(`/api/v1/auth/verify?token=${'a'.repeat(maxTargetBytes)}`)
    expect(response.status).toBe(414)
    const refused = await problem(response)
    expect(refused).toMatchObject({ code: 'uri_too_long', limitBytes: maxTargetBytes })
    expect(JSON.stringify(refused)).not.toContain('a'.repeat(100))
  })

  test('error: header fields past the limit are a 431 problem', async () => {
    const response = await paid.fetch('/free/timestamp', { headers: { 'x-padding': 'b'.repeat(maxHeaderBytes) } })
    expect(response.status).toBe(431)
    expect(await problem(response)).toMatchObject({ code: 'headers_too_large', limitBytes: maxHeaderBytes })
  })

  test('behavior: heads within the limits are served', async () => {
    expect((await gateway.fetch(`/free/uuid?count=1&pad=${'a'.repeat(maxTargetBytes - 100)}`)).status).toBe(200)
    expect(
      (await gateway.fetch('/free/timestamp', { headers: { 'x-padding': 'b'.repeat(maxHeaderBytes - 200) } })).status,
    ).toBe(200)
  })

  test("behavior: `npm start` raises Bun's own parser limit above the gateway's, so the gateway answers first", () => {
    const start = (
      JSON.parse(readFileSync(join(import.meta.dir, '../../package.json'), 'utf8')) as { scripts: { start: string } }
    ).scripts.start
    const parser = Number(/--max-http-header-size=(\d+)/.exec(start)?.[1])
    expect(parser).toBeGreaterThan(maxTargetBytes + maxHeaderBytes)
  })
})

describe('unknown body fields', () => {
  test.each([
    ['/api/v1/auth/session', { address, extra: 1 }, 'extra'],
    ['/api/v1/escrow/fund', { escrowId: `0x${'ab'.repeat(32)}`, amount: '1' }, 'amount'],
    ['/api/v1/invoice/create', { creator: address, token: 'USDC', amount: '1', currency: 'USD' }, 'currency'],
    ['/api/v1/audit/log', { action: 'a', actor: address, resource: 'r', caller: address }, 'caller'],
    [
      '/api/v1/logs/ingest',
      { entries: [{ level: 'info', message: 'm', service: 's', extra: true }] },
      'entries.0.extra',
    ],
  ])(
    'error: POST %s with a field it does not take is a 400 naming it, before any payment is asked for',
    async (path, body, field) => {
      const response = await paid.post(path, body)
      expect(response.status).toBe(400)
      const refused = await problem(response)
      expect(refused.code).toBe('validation_failed')
      expect(refused.field).toBe(field)
    },
  )

  test('security: an undeclared query parameter never reaches the handler', async () => {
    // `caller` is what the audit query names the payer; a query parameter of that name must not stand in for it.
    const [alice, bob] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())]
    expect(
      (await paid.paid('POST', '/api/v1/audit/log', { action: 'a', actor: alice.address, resource: 'r' }, alice))
        .status,
    ).toBe(200)
    const response = await paid.paid('GET', `/api/v1/audit/query?caller=${alice.address}`, undefined, bob)
    expect(response.status).toBe(200)
    expect(((await response.json()) as { total: number }).total).toBe(0)
  })

  describe('on the OpenAI-compatible pass-through bodies', () => {
    const stub = openaiStub()
    afterAll(() => stub.stop())
    const limits = {
      CHAT_ALLOWED_MODELS: 'small-model',
      CHAT_MAX_TOKENS: '64',
      DECENTRALIZED_ALLOWED_MODELS: 'small-model',
      DECENTRALIZED_MAX_TOKENS: '64',
    }
    const upstream = openai({ name: 'the chat upstream', baseUrl: stub.url, apiKey: 'sk-test', retryDelayMs: 0 })
    const ai = testGateway({
      env: limits,
      inference: { chat: upstream, decentralized: upstream },
      payment: stubPayment().payment,
    })
    const messages = [{ role: 'user', content: 'Hi', name: 'agent-7' }]

    test.each([['/api/v1/chat/completions'], ['/decentralized/v1/chat/completions']])(
      'behavior: %s takes fields it does not know, forwarding nested ones and never top-level vendor extensions',
      async (path) => {
        const body = {
          model: 'small-model',
          messages,
          stream_options: { include_usage: true, include_obfuscation: false },
          provider: { order: ['x'] },
        }
        const response = await ai.paid('POST', path, { ...body, stream: true })
        expect(response.status).toBe(200)
        await response.text()
        expect(stub.last().body).toEqual({
          model: 'small-model',
          messages,
          stream: true,
          stream_options: body.stream_options,
          max_tokens: 64,
        })
      },
    )

    test('behavior: embeddings and images take fields they do not know, without forwarding them', async () => {
      expect(
        (await ai.paid('POST', '/decentralized/v1/embeddings', { model: 'small-model', input: 'hi', provider: 'x' }))
          .status,
      ).toBe(200)
      expect(stub.last().body).toEqual({ model: 'small-model', input: 'hi' })
      expect(
        (
          await ai.paid('POST', '/decentralized/v1/images/generations', {
            model: 'small-model',
            prompt: 'a cat',
            seed: 7,
          })
        ).status,
      ).toBe(200)
      expect(stub.last().body).toEqual({ model: 'small-model', prompt: 'a cat' })
    })
  })
})

describe('echoed caller strings', () => {
  const long = 'y'.repeat(3000)
  const bounded = async (response: Response) => {
    const text = JSON.stringify(await problem(response))
    expect(text).not.toContain('y'.repeat(129))
    expect(text).toContain('…')
  }

  test('security: an unknown path is echoed bounded, in the detail and the instance', async () => {
    const response = await gateway.fetch(`/${'y'.repeat(5000)}`)
    expect(response.status).toBe(404)
    await bounded(response)
  })

  test('security: a long media type or repeated parameter name is echoed bounded', async () => {
    const mediaType = await gateway.fetch('/free/validate-batch', {
      method: 'POST',
      headers: { 'content-type': `text/${long}` },
      body: 'x',
    })
    expect(mediaType.status).toBe(415)
    await bounded(mediaType)
    const repeated = await gateway.fetch(`/free/uuid?${long}=1&${long}=2`)
    expect(repeated.status).toBe(400)
    await bounded(repeated)
  })

  test('security: an unknown body field with a long name is named bounded', async () => {
    const response = await paid.post('/api/v1/auth/session', { address, [long]: 1 })
    expect(response.status).toBe(400)
    await bounded(response)
  })
})
