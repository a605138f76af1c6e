import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { Receipt } from 'mppx'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { settleResponseFromHeader } from 'x402/types'
import { origin, paidGateway } from '../../support/paid.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
const price = 1000n
const chainsUrl = `${origin}/api/v1/rpc/chains`
const callUrl = `${origin}/api/v1/rpc/call`
const blockNumber = { chain: 'devnet', method: 'eth_blockNumber', params: [] }

beforeAll(async () => {
  gateway = await paidGateway()
})
afterAll(async () => {
  await gateway.close()
})

function post(url: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

async function refusal(response: Response) {
  expect(response.status).toBe(402)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  const body = (await response.json()) as { code: string; error: string; x402Version: number; accepts: unknown[] }
  expect(body.x402Version).toBe(1)
  expect(body.error).toBe(body.code)
  return body.code
}

describe('paid call', () => {
  test('behavior: no payment is a 402 with every offer at once, and no-store', async () => {
    const response = await gateway.fetch(chainsUrl)
    expect(response.status).toBe(402)
    expect(response.headers.get('payment-required')).toBeTruthy()
    expect(response.headers.get('www-authenticate')).toStartWith('Payment ')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as {
      code: string
      x402Version: number
      accepts: { maxAmountRequired: string }[]
    }
    expect(body.code).toBe('payment_required')
    expect(body.accepts[0]!.maxAmountRequired).toBe(price.toString())
  })

  test('behavior: bad input is a 400 before any payment is asked for', async () => {
    const response = await gateway.fetch(
      post(callUrl, { chain: 'devnet', method: 'eth_sendRawTransaction', params: ['0x00'] }),
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as { field: string }).field).toBe('method')
    const unknownChain = await gateway.fetch(post(callUrl, { chain: 'mainnet', method: 'eth_blockNumber' }))
    expect(unknownChain.status).toBe(400)
  })

  test('behavior: x402 v2 (@x402/fetch) pays, the payee gains exactly the price, the receipt names the transaction', async () => {
    const payer = gateway.account(1)
    const [payerBefore, payeeBefore] = [
      await gateway.balance(payer.address),
      await gateway.balance(gateway.terms.payTo),
    ]
    const response = await gateway.x402(payer)(chainsUrl)
    expect(response.status).toBe(200)
    const body = (await response.json()) as { chains: { name: string; chainId: number }[]; allowedMethods: string[] }
    expect(body.chains).toEqual([{ name: 'devnet', key: 'devnet', chainId: 84532, network: 'eip155:84532' }] as never)
    expect(body.allowedMethods).toContain('eth_call')
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled.success).toBe(true)
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    })
    expect(receipt.status).toBe('success')
    expect(await gateway.balance(payer.address)).toBe(payerBefore - price)
    expect(await gateway.balance(gateway.terms.payTo)).toBe(payeeBefore + price)
  })

  test('behavior: x402 v1 (legacy x402 client) pays with X-PAYMENT', async () => {
    const payer = gateway.account(2)
    const payeeBefore = await gateway.balance(gateway.terms.payTo)
    const unpaid = await gateway.fetch(post(callUrl, blockNumber))
    const header = await gateway.x402v1Header(payer, unpaid)
    const response = await gateway.fetch(post(callUrl, blockNumber, { 'X-PAYMENT': header }))
    expect(response.status).toBe(200)
    const body = (await response.json()) as { jsonrpc: string; result: string }
    expect(body.jsonrpc).toBe('2.0')
    expect(body.result).toMatch(/^0x[0-9a-f]+$/)
    const settled = settleResponseFromHeader(response.headers.get('x-payment-response')!)
    expect(settled.success).toBe(true)
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await gateway.balance(gateway.terms.payTo)).toBe(payeeBefore + price)
  })

  test('behavior: MPP (mppx client) pays with Authorization: Payment and gets a Payment-Receipt', async () => {
    const payer = gateway.account(3)
    const payeeBefore = await gateway.balance(gateway.terms.payTo)
    const response = await gateway.mpp(payer)(callUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(blockNumber),
    })
    expect(response.status).toBe(200)
    const receipt = Receipt.deserialize(response.headers.get('payment-receipt')!)
    expect(receipt.status).toBe('success')
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await gateway.balance(gateway.terms.payTo)).toBe(payeeBefore + price)
  })

  test('security: a replayed authorization is served once, sequentially: the same request gets the kept answer, another is refused', async () => {
    const payer = gateway.account(4)
    const before = await gateway.balance(payer.address)
    const header = await gateway.presigned({ signer: payer })
    const first = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
    expect(first.status).toBe(200)
    const body = await first.text()
    const again = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
    expect(again.status).toBe(200)
    expect(await again.text()).toBe(body)
    expect(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction).toBe(
      decodePaymentResponseHeader(first.headers.get('payment-response')!).transaction,
    )
    const other = await gateway.fetch(post(callUrl, blockNumber, { 'PAYMENT-SIGNATURE': header }))
    expect(await refusal(other)).toBe('replayed')
    expect(await gateway.balance(payer.address)).toBe(before - price)
  })

  test('security: 20 concurrent copies of one authorization are served once and charged once', async () => {
    const payer = gateway.account(5)
    const before = await gateway.balance(payer.address)
    const header = await gateway.presigned({ signer: payer })
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } })),
      ),
    )
    // One is served; the copies that overtook it are told to come back, and those after it get its kept answer.
    const transactions = new Set<string>()
    for (const response of responses) {
      expect([200, 503]).toContain(response.status)
      if (response.status === 200)
        transactions.add(decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction)
      else
        expect(['payment_in_progress', 'settlement_pending']).toContain(
          ((await response.json()) as { code: string }).code,
        )
    }
    expect(transactions.size).toBe(1)
    expect(await gateway.balance(payer.address)).toBe(before - price)
  })

  test('behavior: a failing handler charges nothing and releases the authorization', async () => {
    const payer = gateway.account(6)
    const before = await gateway.balance(payer.address)
    const header = await gateway.presigned({ signer: payer })
    // eth_call to the token with calldata it rejects: the node answers an error, the handler answers 502.
    const failing = {
      chain: 'devnet',
      method: 'eth_call',
      params: [{ to: gateway.devnet.token.address, data: '0xdeadbeef' }, 'latest'],
    }
    const response = await gateway.fetch(post(callUrl, failing, { 'PAYMENT-SIGNATURE': header }))
    expect(response.status).toBe(502)
    expect(((await response.json()) as { code: string }).code).toBe('upstream_failed')
    expect(response.headers.get('payment-response')).toBeNull()
    expect(await gateway.balance(payer.address)).toBe(before)
    const nonce = JSON.parse(atob(header)).payload.authorization.nonce as `0x${string}`
    expect((await gateway.ledger.get({ payer: payer.address, nonce }))?.state).toBe('released')
    // Nothing was charged, so the same authorization may buy a call that succeeds.
    const retry = await gateway.fetch(post(callUrl, blockNumber, { 'PAYMENT-SIGNATURE': header }))
    expect(retry.status).toBe(200)
    expect(await gateway.balance(payer.address)).toBe(before - price)
  })

  test.each([
    ['amount_mismatch', { value: 999n }],
    ['wrong_payee', { to: '0x000000000000000000000000000000000000dEaD' as const }],
    ['wrong_network', { network: 'eip155:8453' as const, chainId: 8453 }],
    ['expired', { validBefore: BigInt(Math.floor(Date.now() / 1000) - 10) }],
    ['not_yet_valid', { validAfter: BigInt(Math.floor(Date.now() / 1000) + 3600) }],
  ])('error: %s is a 402 naming the reason, nothing moves', async (reason, options) => {
    const payer = gateway.account(7)
    const before = await gateway.balance(payer.address)
    const header = await gateway.presigned({ signer: payer, ...options })
    const response = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
    expect(await refusal(response)).toBe(reason)
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('error: a signature by another key is invalid_signature', async () => {
    const header = await gateway.presigned({ signer: gateway.account(8), from: gateway.account(7).address })
    const response = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
    expect(await refusal(response)).toBe('invalid_signature')
  })

  test('error: a payer without USDC is insufficient_funds', async () => {
    const header = await gateway.presigned({ signer: privateKeyToAccount(generatePrivateKey()) })
    const response = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
    expect(await refusal(response)).toBe('insufficient_funds')
  })

  test('error: a malformed payment header is malformed_payment, never a 500', async () => {
    for (const header of ['not base64!', btoa('{"x402Version":2}'), btoa('[]')]) {
      const response = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
      expect(await refusal(response)).toBe('malformed_payment')
    }
  })
})

describe('paid call, money edge cases', () => {
  test('behavior: two calls against a balance of one: the second is refused before its handler runs, charged once', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    await gateway.devnet.fund({ address: payer.address, amount: price })
    // Both verify against a balance of one price; the ledger holds the first claim against it.
    const headers = await Promise.all([gateway.presigned({ signer: payer }), gateway.presigned({ signer: payer })])
    const responses = await Promise.all(
      headers.map((header) => gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))),
    )
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses).toEqual([200, 402])
    const refused = responses.find((response) => response.status === 402)!
    expect(await refusal(refused)).toBe('insufficient_funds')
    expect(refused.headers.get('payment-response')).toBeNull()
    expect(await gateway.balance(payer.address)).toBe(0n)
  })

  test('behavior: the verified payer is the caller, checksummed', async () => {
    const payer = gateway.account(8)
    const header = await gateway.presigned({ signer: payer })
    const nonce = JSON.parse(atob(header)).payload.authorization.nonce as `0x${string}`
    const response = await gateway.fetch(new Request(chainsUrl, { headers: { 'PAYMENT-SIGNATURE': header } }))
    expect(response.status).toBe(200)
    const entry = await gateway.ledger.get({ payer: payer.address, nonce })
    expect(entry?.payer).toBe(payer.address)
    expect(entry?.state).toBe('settled')
    expect(entry?.endpoint).toBe('GET /api/v1/rpc/chains')
    expect(entry?.protocol).toBe('x402-v2')
  })
})

describe('paid call, MPP', () => {
  test('behavior: one payer pays the same route twice within a second, each with its own challenge', async () => {
    const payer = gateway.account(9)
    const before = await gateway.balance(payer.address)
    const pay = gateway.mpp(payer)
    const responses = await Promise.all([pay(chainsUrl), pay(chainsUrl)])
    expect(responses.map((response) => response.status)).toEqual([200, 200])
    expect(await gateway.balance(payer.address)).toBe(before - 2n * price)
  })
})
