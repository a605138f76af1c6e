import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as Catalog from '../../core/Catalog.js'
import { chunksOf, completionOf, eventsOf, openaiStub, textReader } from '../support/openai.js'
import { origin, paidGateway } from '../support/paid.js'

// The AI endpoints through the real paid flow on the devnet, against local OpenAI-compatible servers: the payment
// settles only once the upstream has answered, before the first byte; an upstream failure charges nothing; an
// unconfigured or failing upstream is refused before any payment is asked for.

const chat = openaiStub()
const network = openaiStub()
const price = { chat: 5_000n, models: 1_000n, decentralized: 30_000n }
const messages = [{ role: 'user', content: 'Hi' }]
let gateway: Awaited<ReturnType<typeof paidGateway>>
/** Set: the chain refuses every settlement (nothing moves), as when the payer's funds left before it. */
let refuseSettlements = false

beforeAll(async () => {
  gateway = await paidGateway({
    facilitator: (real) => ({
      ...real,
      settle: (parameters) =>
        refuseSettlements
          ? Promise.resolve({ ok: false, reason: 'settlement_failed', message: 'The payer moved its funds away.' })
          : real.settle(parameters),
    }),
    env: {
      CHAT_UPSTREAM_URL: chat.url,
      CHAT_UPSTREAM_KEY: 'sk-chat-operator-key',
      CHAT_ALLOWED_MODELS: 'small-model, large-model',
      CHAT_MAX_TOKENS: '256',
      DECENTRALIZED_UPSTREAM_URL: network.url,
      DECENTRALIZED_ALLOWED_MODELS: 'small-model',
    },
  })
})
afterAll(async () => {
  await gateway.close()
  chat.stop()
  network.stop()
})

function post(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

describe('POST /api/v1/chat/completions', () => {
  test('behavior: no payment is a 402 at the catalog price', async () => {
    const response = await gateway.fetch(post('/api/v1/chat/completions', { model: 'small-model', messages }))
    expect(response.status).toBe(402)
    const body = (await response.json()) as { accepts: { maxAmountRequired: string }[] }
    expect(body.accepts[0]!.maxAmountRequired).toBe(price.chat.toString())
    expect(chat.received).toHaveLength(0)
  })

  test.each([
    ['a model outside the allow-list', { model: 'secret-model', messages }, 'model'],
    ['max_tokens above the ceiling', { model: 'small-model', messages, max_tokens: 257 }, 'max_tokens'],
  ])('error: %s is a 400 before any payment is asked for', async (_, body, field) => {
    const response = await gateway.fetch(post('/api/v1/chat/completions', body))
    expect(response.status).toBe(400)
    expect(((await response.json()) as { field: string }).field).toBe(field)
  })

  test('behavior: a paid completion is relayed unchanged and charged exactly the price', async () => {
    const payer = gateway.account(1)
    const [payerBefore, payeeBefore] = [
      await gateway.balance(payer.address),
      await gateway.balance(gateway.terms.payTo),
    ]
    const response = await gateway.paid(payer, 'POST', '/api/v1/chat/completions', {
      model: 'small-model',
      messages,
      temperature: 0.3,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(completionOf('small-model'))
    expect(chat.last().headers.get('authorization')).toBe('Bearer sk-chat-operator-key')
    expect(chat.last().body).toEqual({ model: 'small-model', messages, temperature: 0.3, max_tokens: 256 })
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!).success).toBe(true)
    expect(await gateway.balance(payer.address)).toBe(payerBefore - price.chat)
    expect(await gateway.balance(gateway.terms.payTo)).toBe(payeeBefore + price.chat)
  })

  test('behavior: a paid stream is settled before its first byte, then arrives as the upstream sends it', async () => {
    const payer = gateway.account(2)
    const before = await gateway.balance(payer.address)
    chat.state.hold = true
    const response = await gateway.paid(payer, 'POST', '/api/v1/chat/completions', {
      model: 'small-model',
      messages,
      stream: true,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    // The upstream has sent one event and is held; the payment is already on chain and the receipt is on the stream.
    expect(chat.lastStream().sent).toBe(1)
    expect(await gateway.balance(payer.address)).toBe(before - price.chat)
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    })
    expect(receipt.status).toBe('success')
    const events = eventsOf(chunksOf('small-model', false))
    const reader = textReader(response.body!)
    expect(await reader.next()).toBe(events[0]!)
    chat.proceed()
    expect(await reader.rest()).toBe(events.slice(1).join(''))
  })

  test('security: a stream whose settlement fails is withheld whole, and its upstream is released at once', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    await gateway.devnet.fund({ address: payer.address, amount: price.chat })
    const header = await gateway.presigned({ signer: payer, value: price.chat })
    chat.state.hold = true
    refuseSettlements = true
    const streamsBefore = chat.streams.length
    try {
      const withheld = await gateway.fetch(
        post(
          '/api/v1/chat/completions',
          { model: 'small-model', messages, stream: true },
          { 'PAYMENT-SIGNATURE': header },
        ),
      )
      expect(withheld.status).toBe(402)
      expect(((await withheld.json()) as { code: string }).code).toBe('settlement_failed')
      await Bun.sleep(100)
      const streams = chat.streams.slice(streamsBefore)
      expect(streams.map((stream) => stream.cancelled)).toEqual([true])
    } finally {
      refuseSettlements = false
      chat.state.hold = false
      chat.proceed()
    }
    expect(await gateway.balance(payer.address)).toBe(price.chat)
  })

  test('security: a second stream beyond the balance is refused before its upstream is called', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    await gateway.devnet.fund({ address: payer.address, amount: price.chat })
    // Both verify against a balance of one price; the ledger holds the first claim against it.
    const headers = await Promise.all([
      gateway.presigned({ signer: payer, value: price.chat }),
      gateway.presigned({ signer: payer, value: price.chat }),
    ])
    const streamsBefore = chat.streams.length
    const responses = await Promise.all(
      headers.map((header) =>
        gateway.fetch(
          post(
            '/api/v1/chat/completions',
            { model: 'small-model', messages, stream: true },
            { 'PAYMENT-SIGNATURE': header },
          ),
        ),
      ),
    )
    expect(responses.map((response) => response.status).sort()).toEqual([200, 402])
    const refused = responses.find((response) => response.status === 402)!
    expect(((await refused.json()) as { code: string }).code).toBe('insufficient_funds')
    expect(await responses.find((response) => response.status === 200)!.text()).toBe(
      eventsOf(chunksOf('small-model', false)).join(''),
    )
    expect(chat.streams.length - streamsBefore).toBe(1)
    expect(await gateway.balance(payer.address)).toBe(0n)
  })

  test.each([
    [
      'an upstream 500',
      () => Response.json({ error: { message: 'boom' } }, { status: 500 }),
      false,
      502,
      'upstream_failed',
    ],
    [
      'an upstream 400',
      () => Response.json({ error: { message: 'bad image' } }, { status: 400 }),
      false,
      400,
      'upstream_rejected',
    ],
    [
      'an error as the first event of a stream',
      () =>
        new Response('data: {"error":{"message":"overloaded"}}\n\n', {
          headers: { 'content-type': 'text/event-stream' },
        }),
      true,
      502,
      'upstream_failed',
    ],
  ])(
    'error: %s after payment charges nothing and releases the authorization',
    async (_, answer, stream, status, code) => {
      const payer = gateway.account(3)
      const before = await gateway.balance(payer.address)
      const header = await gateway.presigned({ signer: payer, value: price.chat })
      chat.state.answer = answer
      try {
        const response = await gateway.fetch(
          post('/api/v1/chat/completions', { model: 'small-model', messages, stream }, { 'PAYMENT-SIGNATURE': header }),
        )
        expect(response.status).toBe(status)
        expect(response.headers.get('content-type')).toBe('application/problem+json')
        expect(((await response.json()) as { code: string }).code).toBe(code)
        expect(response.headers.get('payment-response')).toBeNull()
      } finally {
        chat.state.answer = undefined
      }
      expect(await gateway.balance(payer.address)).toBe(before)
      const nonce = JSON.parse(atob(header)).payload.authorization.nonce as `0x${string}`
      expect((await gateway.ledger.get({ payer: payer.address, nonce }))?.state).toBe('released')
    },
  )
})

describe('GET /api/v1/models', () => {
  test('behavior: the allowed models with their count, paid at its own price, served from cache', async () => {
    const payer = gateway.account(4)
    const before = await gateway.balance(payer.address)
    const hits = chat.hits.get('/v1/models') ?? 0
    for (let call = 0; call < 2; call++) {
      const response = await gateway.paid(payer, 'GET', '/api/v1/models')
      expect(response.status).toBe(200)
      const body = (await response.json()) as { models: { id: string }[]; count: number }
      expect(body.models.map((model) => model.id)).toEqual(['small-model', 'large-model'])
      expect(body.count).toBe(2)
    }
    expect(chat.hits.get('/v1/models')).toBe(hits + 1)
    expect(await gateway.balance(payer.address)).toBe(before - 2n * price.models)
  })
})

describe('/decentralized/v1', () => {
  test('behavior: chat completions on the second upstream, paid at their own price', async () => {
    const payer = gateway.account(5)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'POST', '/decentralized/v1/chat/completions', {
      model: 'small-model',
      messages,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(completionOf('small-model'))
    expect(network.last().path).toBe('/v1/chat/completions')
    expect(network.last().headers.get('authorization')).toBeNull()
    expect(await gateway.balance(payer.address)).toBe(before - price.decentralized)
  })

  test('behavior: an upstream that keeps failing is refused before payment once its breaker opens', async () => {
    const payer = gateway.account(6)
    const before = await gateway.balance(payer.address)
    const entry = Catalog.entries.find((candidate) => candidate.path === '/decentralized/v1/embeddings')!
    network.state.answer = () => Response.json({ error: { message: 'network down' } }, { status: 503 })
    try {
      // The breaker opens after 5 failed calls in a row (the adapter's default); none of them is charged.
      for (let call = 0; call < 5; call++) {
        const response = await gateway.paid(payer, 'POST', '/decentralized/v1/embeddings', {
          model: 'small-model',
          input: 'x',
        })
        expect(response.status).toBe(502)
      }
      const hits = network.received.length
      const unpaid = await gateway.fetch(post('/decentralized/v1/embeddings', { model: 'small-model', input: 'x' }))
      expect(unpaid.status).toBe(503)
      expect(((await unpaid.json()) as { code: string }).code).toBe('upstream_unavailable')
      const models = await gateway.fetch(`${origin}/decentralized/v1/models`)
      expect(models.status).toBe(503)
      expect(gateway.gateway.availability(entry)).toMatchObject({ available: false, code: 'upstream_unavailable' })
      expect(network.received).toHaveLength(hits)
      // The chat upstream has a breaker of its own.
      expect((await gateway.fetch(post('/api/v1/chat/completions', { model: 'small-model', messages }))).status).toBe(
        402,
      )
    } finally {
      network.state.answer = undefined
    }
    expect(await gateway.balance(payer.address)).toBe(before)
  })
})

describe('unconfigured', () => {
  test('behavior: without an upstream URL the AI endpoints answer 503 before any payment, and nothing is called', async () => {
    const bare = await paidGateway()
    try {
      for (const [method, path] of [
        ['POST', '/api/v1/chat/completions'],
        ['GET', '/api/v1/models'],
        ['POST', '/decentralized/v1/chat/completions'],
        ['POST', '/decentralized/v1/embeddings'],
        ['POST', '/decentralized/v1/images/generations'],
        ['GET', '/decentralized/v1/models'],
      ] as const) {
        const response = await bare.fetch(
          method === 'GET'
            ? `${origin}${path}`
            : post(path, { model: 'small-model', messages, input: 'x', prompt: 'x' }),
        )
        expect(response.status).toBe(503)
        expect(((await response.json()) as { code: string }).code).toBe('upstream_unavailable')
      }
    } finally {
      await bare.close()
    }
  })
})
