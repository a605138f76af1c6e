import { describe, expect, test } from 'bun:test'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { PaymentRequiredV2Schema } from '@x402/core/schemas'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { Challenge, Credential, evm as MppEvm, x402 as MppX402, PaymentRequest, Receipt } from 'mppx'
import { Mppx } from 'mppx/client'
import { evm } from 'mppx/evm/client'
import { getAddress, type Hash } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createPaymentHeader, selectPaymentRequirements } from 'x402/client'
import { ChainIdToNetwork, PaymentRequirementsSchema, SettleResponseSchema, settleResponseFromHeader } from 'x402/types'
import { decode } from '../../../app/payment/decode.js'
import { paymentIdentifierDeclaration } from '../../../app/payment/idempotency.js'
import { offer } from '../../../app/payment/offer.js'
import { receipt } from '../../../app/payment/receipt.js'
import { v1NetworkOf } from '../../../app/payment/x402.js'
import type { PaymentTerms } from '../../../core/PaymentTerms.js'

const mnemonic = 'test test test test test test test test test test test junk'
const payer = mnemonicToAccount(mnemonic, { addressIndex: 1 })
const terms: PaymentTerms = {
  network: 'eip155:84532',
  asset: { address: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9', name: 'USD Coin', version: '2', decimals: 6 },
  payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  maxTimeoutSeconds: 300,
}
const amount = 1000n
const resource = 'http://127.0.0.1:3402/api/v1/rpc/chains'
const method = 'GET'
const secret = 'codec-test-secret-at-least-32-bytes-long'
const transaction = `0x${'ab'.repeat(32)}` as Hash
const context = { terms, amount, resource, method, secret }

/** Our 402 as the network delivers it. */
function challengeResponse(overrides: Partial<offer.Parameters> = {}): Response {
  const { status, headers, body } = offer({
    ...context,
    description: 'Configured chains and allowed RPC methods',
    mimeType: 'application/json',
    now: new Date(),
    ...overrides,
  })
  return new Response(JSON.stringify(body), { status, headers: { ...headers, 'content-type': 'application/json' } })
}

/** A fake `fetch` that answers our 402 until a payment header arrives, then 200 with `success` headers. */
function server(parameters: { challenge: () => Response; success?: Record<string, string> }) {
  const paid: Request[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    const carries =
      request.headers.has('payment-signature') ||
      request.headers.has('x-payment') ||
      (request.headers.get('authorization') ?? '').startsWith('Payment ')
    if (!carries) return parameters.challenge()
    paid.push(request)
    return new Response('{"ok":true}', {
      status: 200,
      headers: { 'content-type': 'application/json', ...parameters.success },
    })
  }
  return { fetch: fetch as typeof globalThis.fetch, paid }
}

/** An @x402/core client with the ExactEvmScheme signer, allowed to spend our devnet token (not a default asset). */
function x402ClientFor(): x402Client {
  const client = new x402Client()
  registerExactEvmScheme(client, { signer: payer })
  const allowed = { asset: terms.asset.address, maxAmountPerPayment: '1000000' }
  // v1 requirements carry the v1 network name, which spend controls match literally (typed as CAIP-2 only).
  const v1 = 'base-sepolia' as `${string}:${string}`
  return client.setSpendControls({
    allowedAssets: [
      { network: terms.network, ...allowed },
      { network: v1, ...allowed },
    ],
  })
}

/** Pays our 402 with @x402/fetch and an ExactEvmScheme signer; returns the paid request's headers. */
async function payV2(): Promise<Headers> {
  const client = x402ClientFor()
  const { fetch, paid } = server({ challenge: () => challengeResponse() })
  const response = await wrapFetchWithPayment(fetch, client)(resource)
  expect(response.status).toBe(200)
  return paid[0]!.headers
}

/** Pays our 402 the way the legacy `x402-fetch` wrapper does: body `accepts` parsed with the v1 schema. */
async function payV1(): Promise<Headers> {
  const first = challengeResponse()
  const { x402Version, accepts } = (await first.json()) as { x402Version: number; accepts: unknown[] }
  const parsed = accepts.map((entry) => PaymentRequirementsSchema.parse(entry))
  const selected = selectPaymentRequirements(parsed, 'base-sepolia', 'exact')
  return new Headers({ 'X-PAYMENT': await createPaymentHeader(payer, x402Version, selected) })
}

/** Pays a 402 with the mppx client and the evm charge method; returns the paid request's headers. */
async function payMpp(challenge: () => Response = () => challengeResponse()): Promise<Headers> {
  const { fetch, paid } = server({ challenge })
  const mppx = Mppx.create({
    methods: [evm({ account: payer, authorization: { name: 'USD Coin', version: '2' } })],
    fetch,
    polyfill: false,
  })
  const response = await mppx.fetch(resource)
  expect(response.status).toBe(200)
  return paid[0]!.headers
}

/** Rewrites the JSON inside a base64 payment header. */
function tamper(header: string, edit: (payload: any) => void): string {
  const payload = JSON.parse(atob(header))
  edit(payload)
  return encodePaymentSignatureHeader(payload)
}

describe('offer', () => {
  test('default: every protocol in one 402, each valid to its official parser', () => {
    const { status, headers, body } = offer({
      ...context,
      description: 'Configured chains',
      mimeType: 'application/json',
      now: new Date('2026-01-01T00:00:00Z'),
    })
    expect(status).toBe(402)
    expect(headers['Cache-Control']).toBe('no-store')

    const v2 = decodePaymentRequiredHeader(headers['PAYMENT-REQUIRED']!)
    expect(PaymentRequiredV2Schema.parse(v2)).toEqual(v2 as never)
    expect(MppX402.PaymentRequiredSchema.safeParse(v2).success).toBe(true)
    expect(v2).toEqual({
      x402Version: 2,
      error: 'PAYMENT-SIGNATURE header is required',
      resource: { url: resource, description: 'Configured chains', mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '1000',
          asset: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
          payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
      extensions: { 'payment-identifier': paymentIdentifierDeclaration },
    })
    expect(v2.extensions?.['payment-identifier']).toMatchObject({
      info: { required: false },
      schema: { properties: { id: { minLength: 16, maxLength: 128 } } },
    })

    expect(body).toEqual({
      x402Version: 1,
      error: 'X-PAYMENT header is required',
      accepts: [
        {
          scheme: 'exact',
          network: 'base-sepolia',
          maxAmountRequired: '1000',
          amount: '1000',
          resource,
          description: 'Configured chains',
          mimeType: 'application/json',
          outputSchema: { input: { type: 'http', method: 'GET', discoverable: true } },
          payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          maxTimeoutSeconds: 300,
          asset: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    })
    expect(PaymentRequirementsSchema.parse(body.accepts[0])).toBeDefined()

    const challenge = Challenge.deserialize(headers['WWW-Authenticate']!)
    expect(Challenge.verify(challenge, { secretKey: secret })).toBe(true)
    expect(challenge).toMatchObject({
      realm: '127.0.0.1',
      method: 'evm',
      intent: 'charge',
      description: 'Configured chains',
      expires: '2026-01-01T00:05:00.000Z',
      request: {
        amount: '1000',
        currency: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
        recipient: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        methodDetails: { chainId: 84532, credentialTypes: ['authorization'], decimals: 6 },
      },
    })
  })

  test('behavior: a refusal names its reason in both x402 error fields', () => {
    const { headers, body } = offer({
      ...context,
      description: 'd',
      mimeType: 'application/json',
      now: new Date(),
      refusal: { reason: 'amount_mismatch', message: 'The authorization is for 999 atomic units.' },
    })
    expect(decodePaymentRequiredHeader(headers['PAYMENT-REQUIRED']!).error).toBe('amount_mismatch')
    expect(body.error).toBe('amount_mismatch')
  })

  test('behavior: the precomputed challenge is byte for byte what mppx builds from the same fields', () => {
    for (const description of ['Configured chains', 'Prix: 0,10 \u20ac "net" \\ tax', '']) {
      const now = new Date('2026-01-01T00:00:00.400Z')
      const { headers, challengeId } = offer({ ...context, description, mimeType: 'application/json', now })
      const ours = Challenge.deserialize(headers['WWW-Authenticate']!)
      expect(ours.id).toBe(challengeId)
      // mppx's own server path, given the same meta (the salt is random per challenge).
      const theirs = Challenge.fromMethod(MppEvm.charge, {
        secretKey: secret,
        realm: ours.realm,
        request: {
          amount: '0.001',
          chainId: 84532,
          currency: terms.asset.address,
          credentialTypes: ['authorization'],
          decimals: 6,
          recipient: terms.payTo,
        },
        expires: new Date('2026-01-01T00:05:00.000Z'),
        meta: PaymentRequest.deserialize(ours.opaque!) as Record<string, string>,
        ...(description ? { description } : {}),
      })
      expect(headers['WWW-Authenticate']).toBe(Challenge.serialize(theirs))
      expect(Challenge.verify(ours, { secretKey: secret })).toBe(true)
    }
  })

  test('behavior: every 402 of one offer carries a new challenge', () => {
    const now = new Date()
    const first = offer({ ...context, description: 'd', mimeType: 'application/json', now })
    const second = offer({ ...context, description: 'd', mimeType: 'application/json', now })
    expect(first.headers['PAYMENT-REQUIRED']).toBe(second.headers['PAYMENT-REQUIRED']!)
    expect(first.challengeId).not.toBe(second.challengeId)
    expect(Challenge.deserialize(first.headers['WWW-Authenticate']!).opaque).not.toBe(
      Challenge.deserialize(second.headers['WWW-Authenticate']!).opaque,
    )
  })

  test('behavior: a description with line breaks still makes a legal challenge', () => {
    const { headers } = offer({
      ...context,
      description: 'Chains\nand methods',
      mimeType: 'application/json',
      now: new Date(),
    })
    expect(Challenge.deserialize(headers['WWW-Authenticate']!).description).toBe('Chains and methods')
  })

  test('behavior: v1 network names are the names of the v1 SDKs', () => {
    expect(v1NetworkOf('eip155:84532')).toBe('base-sepolia')
    expect(v1NetworkOf('eip155:8453')).toBe('base')
    expect(ChainIdToNetwork[84532]).toBe('base-sepolia')
    expect(ChainIdToNetwork[8453]).toBe('base')
    const base = offer({
      ...context,
      terms: { ...terms, network: 'eip155:8453' },
      description: 'd',
      mimeType: 'application/json',
      now: new Date(),
    })
    expect(base.body.accepts[0]!.network).toBe('base')
  })

  test('behavior: a network v1 cannot name gets no v1 offer', () => {
    const local = offer({
      ...context,
      terms: { ...terms, network: 'eip155:31337' },
      description: 'd',
      mimeType: 'application/json',
      now: new Date(),
    })
    expect(local.body.accepts).toEqual([])
    expect(decodePaymentRequiredHeader(local.headers['PAYMENT-REQUIRED']!).accepts[0]!.network).toBe('eip155:31337')
  })
})

describe('decode', () => {
  const now = () => new Date()

  test('default: no payment header', async () => {
    expect(await decode({ ...context, headers: new Headers(), now: now() })).toEqual({ ok: true, payment: undefined })
    const bearer = new Headers({ authorization: 'Bearer abc' })
    expect(await decode({ ...context, headers: bearer, now: now() })).toEqual({ ok: true, payment: undefined })
  })

  describe('x402 v2 (@x402/fetch + ExactEvmScheme)', () => {
    test('default: the official client pays our 402', async () => {
      const headers = await payV2()
      const decoded = await decode({ ...context, headers, now: now() })
      if (!decoded.ok || !decoded.payment) throw new Error(JSON.stringify(decoded))
      const { protocol, authorization, signatureChecked } = decoded.payment
      expect(protocol).toBe('x402-v2')
      expect(signatureChecked).toBe(true)
      expect(authorization.from).toBe(payer.address)
      expect(authorization.to).toBe(getAddress(terms.payTo))
      expect(authorization.value).toBe(amount)
      expect(authorization.nonce).toMatch(/^0x[0-9a-f]{64}$/)
    })

    test('error: tampered fields get their own reason', async () => {
      const header = (await payV2()).get('payment-signature')!
      const cases: [string, (payload: any) => void][] = [
        ['amount_mismatch', (p) => (p.payload.authorization.value = '999')],
        ['wrong_payee', (p) => (p.payload.authorization.to = payer.address)],
        ['wrong_network', (p) => (p.accepted.network = 'eip155:8453')],
        ['wrong_asset', (p) => (p.accepted.asset = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')],
        ['invalid_signature', (p) => (p.payload.signature = `${p.payload.signature.slice(0, 10)}${'00'.repeat(60)}1b`)],
        [
          'invalid_signature',
          (p) => (p.payload.authorization.validBefore = String(Number(p.payload.authorization.validBefore) + 1)),
        ],
        ['not_yet_valid', (p) => (p.payload.authorization.validAfter = String(Math.floor(Date.now() / 1000) + 60))],
        ['expired', (p) => (p.payload.authorization.validBefore = String(Math.floor(Date.now() / 1000)))],
        ['malformed_payment', (p) => (p.accepted.scheme = 'upto')],
        ['malformed_payment', (p) => delete p.payload.authorization],
      ]
      for (const [reason, edit] of cases) {
        const headers = new Headers({ 'payment-signature': tamper(header, edit) })
        expect({ reason, decoded: await decode({ ...context, headers, now: now() }) }).toMatchObject({
          reason,
          decoded: { ok: false, reason },
        })
      }
      const garbage = new Headers({ 'payment-signature': 'not base64 json!' })
      expect(await decode({ ...context, headers: garbage, now: now() })).toMatchObject({
        ok: false,
        reason: 'malformed_payment',
      })
    })

    test('behavior: a smart-wallet signature is left to the chain', async () => {
      const header = (await payV2()).get('payment-signature')!
      const headers = new Headers({
        'payment-signature': tamper(header, (p) => (p.payload.signature = `0x${'11'.repeat(200)}`)),
      })
      const decoded = await decode({ ...context, headers, now: now() })
      expect(decoded).toMatchObject({ ok: true, payment: { protocol: 'x402-v2', signatureChecked: false } })
    })

    test('behavior: the nonce is one ledger key whatever its letter case', async () => {
      const header = (await payV2()).get('payment-signature')!
      const upper = tamper(
        header,
        (p) => (p.payload.authorization.nonce = `0x${p.payload.authorization.nonce.slice(2).toUpperCase()}`),
      )
      const decoded = await decode({ ...context, headers: new Headers({ 'payment-signature': upper }), now: now() })
      if (!decoded.ok || !decoded.payment) throw new Error(JSON.stringify(decoded))
      expect(decoded.payment.authorization.nonce).toBe(decoded.payment.authorization.nonce.toLowerCase() as never)
    })
  })

  describe('x402 v1 (legacy x402 client)', () => {
    test('default: the legacy client pays our 402 body', async () => {
      const headers = await payV1()
      const decoded = await decode({ ...context, headers, now: now() })
      if (!decoded.ok || !decoded.payment) throw new Error(JSON.stringify(decoded))
      expect(decoded.payment.protocol).toBe('x402-v1')
      expect(decoded.payment.authorization).toMatchObject({
        from: payer.address,
        to: getAddress(terms.payTo),
        value: amount,
      })
      expect(decoded.payment.signatureChecked).toBe(true)
    })

    test('behavior: @x402/core pays a v1-only 402 with X-PAYMENT too', async () => {
      const client = x402ClientFor()
      const { fetch, paid } = server({
        challenge: () => {
          const response = challengeResponse()
          const headers = new Headers(response.headers)
          headers.delete('payment-required')
          return new Response(response.body, { status: 402, headers })
        },
      })
      await wrapFetchWithPayment(fetch, client)(resource)
      const decoded = await decode({ ...context, headers: paid[0]!.headers, now: now() })
      expect(decoded).toMatchObject({ ok: true, payment: { protocol: 'x402-v1', signatureChecked: true } })
    })

    test('error: another network or amount', async () => {
      const header = (await payV1()).get('x-payment')!
      const network = new Headers({ 'x-payment': tamper(header, (p) => (p.network = 'base')) })
      expect(await decode({ ...context, headers: network, now: now() })).toMatchObject({
        ok: false,
        reason: 'wrong_network',
      })
      const value = new Headers({ 'x-payment': tamper(header, (p) => (p.payload.authorization.value = '1')) })
      expect(await decode({ ...context, headers: value, now: now() })).toMatchObject({
        ok: false,
        reason: 'amount_mismatch',
      })
      const local = await decode({
        ...context,
        terms: { ...terms, network: 'eip155:31337' },
        headers: new Headers({ 'x-payment': header }),
        now: now(),
      })
      expect(local).toMatchObject({ ok: false, reason: 'wrong_network' })
    })
  })

  describe('MPP (mppx client + evm charge)', () => {
    test('default: the mppx client answers our challenge', async () => {
      const headers = await payMpp()
      expect(headers.get('authorization')).toStartWith('Payment ')
      expect(headers.has('payment-signature')).toBe(false)
      const decoded = await decode({ ...context, headers, now: now() })
      if (!decoded.ok || !decoded.payment) throw new Error(JSON.stringify(decoded))
      const credential = Credential.deserialize(headers.get('authorization')!)
      expect(decoded.payment).toMatchObject({
        protocol: 'mpp',
        signatureChecked: true,
        challengeId: credential.challenge.id,
      })
      expect(decoded.payment.authorization).toMatchObject({
        from: payer.address,
        to: getAddress(terms.payTo),
        value: amount,
      })
    })

    test('error: a challenge bound with another key', async () => {
      const headers = await payMpp(() => challengeResponse({ secret: 'another-secret-at-least-32-bytes-long!!' }))
      expect(await decode({ ...context, headers, now: now() })).toMatchObject({
        ok: false,
        reason: 'challenge_mismatch',
      })
    })

    test('error: an expired challenge', async () => {
      const headers = await payMpp()
      const later = new Date(Date.now() + (terms.maxTimeoutSeconds + 1) * 1000)
      expect(await decode({ ...context, headers, now: later })).toMatchObject({ ok: false, reason: 'expired' })
    })

    test('error: a challenge for another amount or another route', async () => {
      const headers = await payMpp(() => challengeResponse({ amount: 2000n }))
      expect(await decode({ ...context, headers, now: now() })).toMatchObject({
        ok: false,
        reason: 'challenge_mismatch',
      })
      const own = await payMpp()
      const elsewhere = await decode({
        ...context,
        resource: 'http://127.0.0.1:3402/api/v1/rpc/call',
        headers: own,
        now: now(),
      })
      expect(elsewhere).toMatchObject({ ok: false, reason: 'challenge_mismatch' })
    })

    test('error: an edited echo or a forged signature', async () => {
      const header = (await payMpp()).get('authorization')!
      const credential = Credential.deserialize(header)
      const cheaper = Credential.serialize({
        ...credential,
        challenge: { ...credential.challenge, request: { ...credential.challenge.request, amount: '1' } },
      })
      expect(await decode({ ...context, headers: new Headers({ authorization: cheaper }), now: now() })).toMatchObject({
        ok: false,
        reason: 'challenge_mismatch',
      })
      const payload = credential.payload as { signature: string }
      const forged = Credential.serialize({
        ...credential,
        payload: { ...payload, signature: `0x${'00'.repeat(64)}1b` },
      })
      expect(await decode({ ...context, headers: new Headers({ authorization: forged }), now: now() })).toMatchObject({
        ok: false,
        reason: 'invalid_signature',
      })
      expect(
        await decode({ ...context, headers: new Headers({ authorization: 'Payment !!!' }), now: now() }),
      ).toMatchObject({ ok: false, reason: 'malformed_payment' })
    })
  })
})

describe('decode: echoed caller strings', () => {
  const now = () => new Date()
  const long = 'x'.repeat(3000)
  const bounded = (message: string) => {
    expect(message).not.toContain('x'.repeat(65))
    expect(message).toContain('…')
  }

  test('security: a 3,000-character MPP source is echoed at most 64 characters long', async () => {
    const credential = Credential.deserialize((await payMpp()).get('authorization')!)
    const authorization = Credential.serialize({ ...credential, source: `did:pkh:eip155:84532:${long}` })
    const decoded = await decode({ ...context, headers: new Headers({ authorization }), now: now() })
    if (decoded.ok) throw new Error('expected a refusal')
    expect(decoded.reason).toBe('malformed_payment')
    bounded(decoded.message)
  })

  test('security: a long x402 scheme or network is echoed at most 64 characters long', async () => {
    const v2 = (await payV2()).get('payment-signature')!
    for (const edit of [
      (p: any) => (p.accepted.scheme = long),
      (p: any) => (p.accepted.network = `eip155:${long}`),
      (p: any) => (p.accepted.asset = long),
    ]) {
      const decoded = await decode({
        ...context,
        headers: new Headers({ 'payment-signature': tamper(v2, edit) }),
        now: now(),
      })
      if (decoded.ok) throw new Error('expected a refusal')
      bounded(decoded.message)
    }
    const v1 = (await payV1()).get('x-payment')!
    const decoded = await decode({
      ...context,
      headers: new Headers({ 'x-payment': tamper(v1, (p) => (p.scheme = long)) }),
      now: now(),
    })
    if (decoded.ok) throw new Error('expected a refusal')
    bounded(decoded.message)
  })
})

describe('receipt', () => {
  const settled = { transaction, network: terms.network, payer: payer.address, now: new Date('2026-01-01T00:00:10Z') }

  test('default: x402 v2 PAYMENT-RESPONSE, as @x402/core decodes it', () => {
    const headers = receipt({ ...settled, protocol: 'x402-v2' })
    expect(Object.keys(headers)).toEqual(['PAYMENT-RESPONSE'])
    expect(decodePaymentResponseHeader(headers['PAYMENT-RESPONSE']!)).toEqual({
      success: true,
      transaction,
      network: 'eip155:84532',
      payer: payer.address,
    })
    expect(MppX402.Header.decodePaymentResponse(headers['PAYMENT-RESPONSE']!)).toMatchObject({
      success: true,
      transaction,
    })
  })

  test('default: x402 v1 X-PAYMENT-RESPONSE, as the legacy package decodes it', () => {
    const headers = receipt({ ...settled, protocol: 'x402-v1' })
    expect(Object.keys(headers)).toEqual(['X-PAYMENT-RESPONSE'])
    const decoded = SettleResponseSchema.parse(settleResponseFromHeader(headers['X-PAYMENT-RESPONSE']!))
    expect(decoded).toEqual({ success: true, transaction, network: 'base-sepolia', payer: payer.address })
  })

  test('default: MPP Payment-Receipt, as mppx decodes it', () => {
    const headers = receipt({ ...settled, protocol: 'mpp', challengeId: 'abc' })
    expect(Object.keys(headers)).toEqual(['Payment-Receipt'])
    expect(Receipt.deserialize(headers['Payment-Receipt']!) as Record<string, unknown>).toEqual({
      method: 'evm',
      reference: transaction,
      status: 'success',
      timestamp: '2026-01-01T00:00:10.000Z',
      chainId: 84532,
      challengeId: 'abc',
    })
  })

  test('behavior: the official clients read the receipt of a paid call', async () => {
    const client = x402ClientFor()
    const { fetch } = server({
      challenge: () => challengeResponse(),
      success: receipt({ ...settled, protocol: 'x402-v2' }),
    })
    const response = await wrapFetchWithPayment(fetch, client)(resource)
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction).toBe(transaction)

    const mpp = server({ challenge: () => challengeResponse(), success: receipt({ ...settled, protocol: 'mpp' }) })
    const mppx = Mppx.create({
      methods: [evm({ account: payer, authorization: { name: 'USD Coin', version: '2' } })],
      fetch: mpp.fetch,
      polyfill: false,
    })
    const paid = await mppx.fetch(resource)
    expect(Receipt.fromResponse(paid).reference).toBe(transaction)
  })
})
