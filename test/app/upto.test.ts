import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import {
  extractReceiptFromResponse,
  isEIP712SignedReceipt,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createWalletClient, erc20Abi, type Hex, type LocalAccount, maxUint256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { account } from '../../adapters/chain/devnet.js'
import { ConfigError } from '../../core/Errors.js'
import { chatMeter, parsePrices } from '../../core/Meter.js'
import * as Permit2 from '../../core/Permit2.js'
import { completionOf, openaiStub } from '../support/openai.js'
import { origin, paidGateway } from '../support/paid.js'

// x402 `upto` on the devnet, paid by the official @x402/evm upto client against a local OpenAI stand-in: the payer
// signs a Permit2 witness transfer of up to what max_tokens could cost, the completion runs, and exactly the tokens
// its `usage` reports are charged, sent by the relayer the permit names (the proxy takes no other caller).

const chat = openaiStub()
/** Atomic USDC per million tokens: $2 per million prompt tokens, $8 per million completion tokens. */
const prices = { input: 2_000_000n, output: 8_000_000n }
const maxTokens = 256
const messages = [{ role: 'user', content: 'Hi' }]
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({
    env: {
      CHAT_UPSTREAM_URL: chat.url,
      CHAT_UPSTREAM_KEY: 'sk-chat-operator-key',
      CHAT_ALLOWED_MODELS: 'small-model, large-model',
      CHAT_MAX_TOKENS: String(maxTokens),
      CHAT_UPTO_PRICES: `small-model=${prices.input}:${prices.output}`,
      DECENTRALIZED_UPSTREAM_URL: chat.url,
      DECENTRALIZED_ALLOWED_MODELS: 'small-model',
      DECENTRALIZED_UPTO_PRICES: `small-model=${prices.input}:${prices.output}`,
      COMPUTE_MODELS: JSON.stringify({
        'tiny-text': { kind: 'text', upstream: 'openai', upstreamModel: 'small-model', price: '0.003' },
        'tiny-embed': { kind: 'embeddings', upstream: 'openai', upstreamModel: 'embed-model', price: '0.005' },
      }),
      COMPUTE_UPSTREAM_URL: chat.url,
      COMPUTE_UPTO_PRICES: `tiny-text=${prices.input}:${prices.output},tiny-embed=${prices.input}:0`,
    },
  })
})
afterAll(async () => {
  await gateway.close()
  chat.stop()
})

/** A new payer holding `usdc` and no ether: it can sign, never send. */
async function newPayer(usdc: bigint): Promise<LocalAccount> {
  const payer = privateKeyToAccount(generatePrivateKey())
  await gateway.devnet.fund({ address: payer.address, amount: usdc })
  return payer
}

/** `fetch` paying with the official upto client only; it reads the chain to sign EIP-2612 permits when asked. */
function uptoFetch(payer: LocalAccount, seen: { header?: string } = {}): typeof fetch {
  const client = new x402Client().register(
    gateway.terms.network,
    new UptoEvmScheme(toClientEvmSigner(payer, gateway.devnet.publicClient)),
  )
  // The devnet's USDC is no default asset of the SDK: the agent allows it, up to a cent per call.
  client.setSpendControls({
    allowedAssets: [
      { network: gateway.terms.network, asset: gateway.terms.asset.address, maxAmountPerPayment: '10000' },
    ],
  })
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get(
      'payment-signature',
    )
    if (header) seen.header = header
    return gateway.fetch(input, init)
  }) as typeof fetch
  return wrapFetchWithPayment(recording, client) as typeof fetch
}

function completion(pay: typeof fetch, body: unknown, path = '/api/v1/chat/completions') {
  return pay(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** The `upto` offer of a 402. */
async function uptoOffer(body: unknown): Promise<{ offer: PaymentRequirements; extensions: Record<string, unknown> }> {
  const unpaid = await completion(gateway.fetch, body)
  expect(unpaid.status).toBe(402)
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)
  const offer = required.accepts.find((accept) => accept.scheme === 'upto')
  if (!offer) throw new Error('no upto offer')
  return { offer, extensions: required.extensions ?? {} }
}

/** What a request body's prompt could cost plus max_tokens' worth of completion: the offer's maximum. */
function maximumOf(body: unknown, completionTokens: number): bigint {
  const bytes = BigInt(new TextEncoder().encode(JSON.stringify(body)).byteLength)
  const perMillion = (units: bigint, price: bigint) => (units * price + 999_999n) / 1_000_000n
  return perMillion(bytes, prices.input) + perMillion(BigInt(completionTokens), prices.output)
}

/** Transactions the relayer (the upto facilitator) has sent so far. */
async function relayerSent(facilitator: Hex): Promise<number> {
  return gateway.devnet.publicClient.getTransactionCount({ address: facilitator })
}

describe('upto (Permit2) on compute text inference and embeddings', () => {
  test('behavior: each is charged exactly the tokens its usage reports, never its fixed model price', async () => {
    for (const { path, body, charged } of [
      // The stand-in reports 9 prompt and 3 completion tokens for a completion, 2 prompt tokens for embeddings.
      { path: '/api/v1/compute/text-inference', body: { model: 'tiny-text', prompt: 'Hi' }, charged: 42n },
      { path: '/api/v1/compute/embeddings', body: { model: 'tiny-embed', input: 'Hi' }, charged: 4n },
    ]) {
      const unpaid = await completion(gateway.fetch, body, path)
      const offered = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts
      expect(offered.map((accept) => accept.scheme)).toContain('upto')
      const payer = await newPayer(1_000_000n)
      const before = await gateway.balance(payer.address)
      const response = await completion(uptoFetch(payer), body, path)
      expect(response.status).toBe(200)
      const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
      expect(settled).toMatchObject({ success: true, amount: charged.toString() })
      expect(await gateway.balance(payer.address)).toBe(before - charged)
    }
  })
})

describe('upto (Permit2) on chat completions', () => {
  test('behavior: the 402 offers upto beside exact, for what max_tokens could cost, with EIP-2612 gas sponsoring', async () => {
    const body = { model: 'small-model', messages, max_tokens: 100 }
    const { offer, extensions } = await uptoOffer(body)
    expect(BigInt(offer.amount)).toBe(maximumOf(body, 100))
    expect(offer.extra).toMatchObject({ assetTransferMethod: 'permit2', name: 'USD Coin', version: '2' })
    expect(typeof offer.extra.facilitatorAddress).toBe('string')
    expect(extensions).toHaveProperty('eip2612GasSponsoring')
    // Decentralized chat completions are metered the same way.
    const decentralized = await completion(gateway.fetch, body, '/decentralized/v1/chat/completions')
    const offered = decodePaymentRequiredHeader(decentralized.headers.get('payment-required')!).accepts
    expect(offered.find((accept) => accept.scheme === 'upto')?.amount).toBe(maximumOf(body, 100).toString())
    // A model without token prices, and a stream (its usage comes after the answer), are offered at the fixed price only.
    for (const unmetered of [
      { model: 'large-model', messages },
      { model: 'small-model', messages, stream: true },
    ]) {
      const unpaid = await completion(gateway.fetch, unmetered)
      const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)
      expect(required.accepts.map((accept) => accept.scheme)).not.toContain('upto')
    }
  })

  test('behavior: an agent with no approval pays through an EIP-2612 permit and is charged exactly its tokens', async () => {
    const payer = await newPayer(1_000_000n)
    const body = { model: 'small-model', messages }
    const { offer } = await uptoOffer(body)
    const facilitator = offer.extra.facilitatorAddress as Hex
    const max = maximumOf(body, maxTokens)
    expect(BigInt(offer.amount)).toBe(max)
    const before = { payer: await gateway.balance(payer.address), payee: await gateway.balance(gateway.terms.payTo) }

    const response = await completion(uptoFetch(payer), body)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(completionOf('small-model'))

    // The stand-in reports 9 prompt and 3 completion tokens.
    const charged = (9n * prices.input) / 1_000_000n + (3n * prices.output) / 1_000_000n
    expect(charged).toBe(42n)
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, payer: payer.address, amount: charged.toString() })
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex })
    expect(receipt.status).toBe('success')
    // Sent by the facilitator the permit names, straight to the proxy.
    expect(receipt.from.toLowerCase()).toBe(facilitator.toLowerCase())
    expect(await gateway.balance(payer.address)).toBe(before.payer - charged)
    expect(await gateway.balance(gateway.terms.payTo)).toBe(before.payee + charged)
    // The permit approved Permit2 for the maximum; what was not charged stays approved, nothing more moved.
    const allowance = await gateway.devnet.publicClient.readContract({
      address: gateway.terms.asset.address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [payer.address, Permit2.address],
    })
    expect(allowance).toBe(max - charged)
  })

  test('behavior: without an approval or a permit the answer is 412 PERMIT2_ALLOWANCE_REQUIRED, and nothing runs', async () => {
    const payer = await newPayer(1_000_000n)
    const body = { model: 'small-model', messages }
    const { offer } = await uptoOffer(body)
    // The client signs the permit alone when the 402 declares no gas sponsoring.
    const bare = await new UptoEvmScheme(payer).createPaymentPayload(2, offer)
    const header = encodePaymentSignatureHeader({ ...bare, accepted: offer } as PaymentPayload)
    const calls = chat.received.length
    const response = await gateway.fetch(
      new Request(`${origin}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
        body: JSON.stringify(body),
      }),
    )
    expect(response.status).toBe(412)
    const problem = (await response.json()) as { code: string; error: string }
    expect(problem.code).toBe('allowance_required')
    expect(problem.error).toBe('PERMIT2_ALLOWANCE_REQUIRED')
    expect(chat.received.length).toBe(calls)
  })

  test('behavior: a payer that approved Permit2 once pays without a permit; 0 tokens and a failed upstream send no transaction', async () => {
    const payer = gateway.account(3)
    const wallet = createWalletClient({
      account: payer,
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    const approval = await wallet.writeContract({
      address: gateway.terms.asset.address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [Permit2.address, maxUint256],
    })
    await gateway.devnet.publicClient.waitForTransactionReceipt({ hash: approval })
    const body = { model: 'small-model', messages, max_tokens: 64 }
    const { offer } = await uptoOffer(body)
    const facilitator = offer.extra.facilitatorAddress as Hex

    // Nothing used: the answer stands, no transaction, nothing charged.
    chat.state.answer = () =>
      Response.json({
        ...completionOf('small-model'),
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      })
    const before = { payer: await gateway.balance(payer.address), sent: await relayerSent(facilitator) }
    try {
      const free = await completion(uptoFetch(payer), body)
      expect(free.status).toBe(200)
      expect(decodePaymentResponseHeader(free.headers.get('payment-response')!)).toMatchObject({
        success: true,
        transaction: '',
        amount: '0',
      })
      // The upstream fails: no answer, no charge.
      chat.state.answer = () =>
        Response.json({ error: { message: 'overloaded', type: 'server_error' } }, { status: 500 })
      const failed = await completion(uptoFetch(payer), body)
      expect(failed.status).toBeGreaterThanOrEqual(500)
    } finally {
      chat.state.answer = undefined
    }
    expect(await gateway.balance(payer.address)).toBe(before.payer)
    expect(await relayerSent(facilitator)).toBe(before.sent)

    // Approved: the permit alone settles, with no EIP-2612 permit in it.
    const seen: { header?: string } = {}
    const paid = await completion(uptoFetch(payer, seen), body)
    expect(paid.status).toBe(200)
    const sent = JSON.parse(Buffer.from(seen.header!, 'base64').toString()) as {
      extensions?: { eip2612GasSponsoring?: { info: Record<string, unknown> } }
    }
    expect(sent.extensions?.eip2612GasSponsoring?.info).not.toHaveProperty('signature')
    expect(await gateway.balance(payer.address)).toBe(before.payer - 42n)
  })

  test('security: a used permit is refused for another request, and a second process on the same ledger refuses it too', async () => {
    const payer = await newPayer(1_000_000n)
    const body = { model: 'small-model', messages }
    const seen: { header?: string } = {}
    const first = await completion(uptoFetch(payer, seen), body)
    expect(first.status).toBe(200)
    const after = await gateway.balance(payer.address)
    const replay = (target: typeof gateway, request: unknown) =>
      target.fetch(
        new Request(`${origin}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': seen.header! },
          body: JSON.stringify(request),
        }),
      )
    // Same permit, other messages of the same size: the maximum matches, the ledger does not.
    const other = { model: 'small-model', messages: [{ role: 'user', content: 'Yo' }] }
    const refused = await replay(gateway, other)
    expect(refused.status).toBe(402)
    expect(((await refused.json()) as { code: string }).code).toBe('replayed')
    // The same request again is its retry: the kept answer, charged once.
    const retried = await replay(gateway, body)
    expect(retried.status).toBe(200)
    expect(decodePaymentResponseHeader(retried.headers.get('payment-response')!).amount).toBe('42')
    expect(await gateway.balance(payer.address)).toBe(after)

    // Another process on the same ledger (a devnet of its own, where the nonce is unused): the claim is refused.
    const second = await paidGateway({
      ledger: gateway.ledger,
      env: {
        CHAT_UPSTREAM_URL: chat.url,
        CHAT_UPSTREAM_KEY: 'sk-chat-operator-key',
        CHAT_ALLOWED_MODELS: 'small-model',
        CHAT_MAX_TOKENS: String(maxTokens),
        CHAT_UPTO_PRICES: `small-model=${prices.input}:${prices.output}`,
      },
    })
    try {
      await second.devnet.fund({ address: payer.address, amount: 1_000_000n })
      const elsewhere = await replay(second, other)
      expect(elsewhere.status).toBe(402)
      expect(((await elsewhere.json()) as { code: string }).code).toBe('replayed')
      expect(await second.balance(payer.address)).toBe(1_000_000n)
    } finally {
      await second.close()
    }
  })
})

describe('upto refusals before the chain', () => {
  test('error: a permit for another maximum or another facilitator is refused with the offer again', async () => {
    const payer = await newPayer(1_000_000n)
    const body = { model: 'small-model', messages }
    const { offer } = await uptoOffer(body)
    for (const [changed, code] of [
      [{ ...offer, amount: (BigInt(offer.amount) - 1n).toString() }, 'amount_mismatch'],
      [{ ...offer, extra: { ...offer.extra, facilitatorAddress: payer.address } }, 'malformed_payment'],
    ] as const) {
      const signed = await new UptoEvmScheme(payer).createPaymentPayload(2, changed)
      const header = encodePaymentSignatureHeader({ ...signed, accepted: changed } as PaymentPayload)
      const response = await gateway.fetch(
        new Request(`${origin}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
          body: JSON.stringify(body),
        }),
      )
      expect(response.status).toBe(402)
      expect(((await response.json()) as { code: string }).code).toBe(code)
    }
    expect(await gateway.balance(payer.address)).toBe(1_000_000n)
  })
})

describe('signed receipts (offer-receipt)', () => {
  test('behavior: every settled x402 payment carries an EIP-712 receipt that verifies offline against the published signer', async () => {
    const manifest = (await (await gateway.fetch(`${origin}/.well-known/x402.json`)).json()) as {
      receipts: { extension: string; format: string; signer: Hex; domain: { name: string } }
    }
    expect(manifest.receipts).toMatchObject({ extension: 'offer-receipt', format: 'eip712' })
    expect(manifest.receipts.domain.name).toBe('x402 receipt')
    // The devnet's receipt key is test account #18.
    expect(manifest.receipts.signer).toBe(account({ index: 18 }).address)

    const payer = await newPayer(1_000_000n)
    const exact = await gateway.paid(gateway.account(4), 'POST', '/api/v1/chat/completions', {
      model: 'small-model',
      messages,
    })
    const metered = await completion(uptoFetch(payer), { model: 'small-model', messages })
    for (const [response, paidBy] of [
      [exact, gateway.account(4).address],
      [metered, payer.address],
    ] as const) {
      expect(response.status).toBe(200)
      const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
      const signed = extractReceiptFromResponse(response)
      if (!signed || !isEIP712SignedReceipt(signed)) throw new Error('no EIP-712 receipt')
      // Offline: no request to the gateway or the chain, only the signature and the published address.
      const { signer, payload } = await verifyReceiptSignatureEIP712(signed)
      expect(signer).toBe(manifest.receipts.signer)
      expect(payload).toMatchObject({
        version: 1,
        network: gateway.terms.network,
        payer: paidBy,
        transaction: settled.transaction,
      })
      expect(new URL(payload.resourceUrl).pathname).toBe('/api/v1/chat/completions')
      // Altered, it no longer recovers to the published signer.
      const forged = {
        ...signed,
        payload: { ...signed.payload, payer: payer.address === paidBy ? gateway.terms.payTo : payer.address },
      }
      expect((await verifyReceiptSignatureEIP712(forged)).signer).not.toBe(manifest.receipts.signer)
    }
  })
})

describe('token meter', () => {
  const meterPrices = parsePrices('small-model=2000000:8000000', ['small-model', 'large-model'], 'CHAT_UPTO_PRICES')
  const meter = chatMeter({ prices: meterPrices, maxTokens })
  const input = (body: unknown) => ({ body, query: {}, params: {} })

  test('behavior: the charge is the usage at the model prices, rounded up to an atomic unit', () => {
    const body = { model: 'small-model', messages }
    expect(meter.cost({ usage: { prompt_tokens: 1, completion_tokens: 1 } }, input(body))).toBe(2n + 8n)
    expect(meter.cost({ usage: { prompt_tokens: 1_000_000, completion_tokens: 500_000 } }, input(body))).toBe(
      2_000_000n + 4_000_000n,
    )
    expect(parsePrices('small-model=3:0', ['small-model'], 'CHAT_UPTO_PRICES').get('small-model')).toEqual({
      input: 3n,
      output: 0n,
    })
    expect(
      chatMeter({ prices: parsePrices('small-model=3:0', ['small-model'], 'X'), maxTokens }).cost(
        { usage: { prompt_tokens: 1, completion_tokens: 0 } },
        input(body),
      ),
    ).toBe(1n)
  })

  test('error: no usage, a negative count or an unpriced model gives no charge to compute', () => {
    const body = { model: 'small-model', messages }
    expect(meter.cost({}, input(body))).toBeUndefined()
    expect(meter.cost({ usage: { prompt_tokens: -1, completion_tokens: 2 } }, input(body))).toBeUndefined()
    expect(
      meter.cost({ usage: { prompt_tokens: 1, completion_tokens: 2 } }, input({ model: 'large-model', messages })),
    ).toBeUndefined()
    expect(meter.max(input({ model: 'large-model', messages }))).toBeUndefined()
  })

  test('error: a malformed price list or an unlisted model stops the start', () => {
    expect(() => parsePrices('small-model=2', ['small-model'], 'CHAT_UPTO_PRICES')).toThrow(ConfigError)
    expect(() => parsePrices('other=1:2', ['small-model'], 'CHAT_UPTO_PRICES')).toThrow(ConfigError)
  })
})
