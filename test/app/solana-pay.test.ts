import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createKeyPairSignerFromPrivateKeyBytes, getBase58Encoder, type KeyPairSigner } from '@solana/kit'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { wrapFetchWithPayment } from '@x402/fetch'
import { SOLANA_DEVNET_CAIP2 } from '@x402/svm'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { Elysia } from 'elysia'
import { memory } from '../../adapters/ledger/memory.js'
import { sqlite } from '../../adapters/ledger/sqlite.js'
import { feePayer } from '../../adapters/solana/pay.js'
import { silent } from '../../app/log.js'
import { solana } from '../../app/payment/solana.js'
import type { Ledger } from '../../core/Ledger.js'
import * as Module from '../../core/Module.js'
import { sqliteFixture } from '../support/backends.js'
import { stubPayment, testGateway } from '../support/gateway.js'
import { servedSolana } from '../support/litesvm.js'
import { origin, paidGateway } from '../support/paid.js'

const network = SOLANA_DEVNET_CAIP2 as `solana:${string}`
/** `GET /api/v1/models` costs $0.001. */
const price = 1_000n

let node: Awaited<ReturnType<typeof servedSolana>>
let relayer: KeyPairSigner
let secretKey: string
let mint: Address
let payTo: Address

beforeAll(async () => {
  node = await servedSolana()
  const seed = crypto.getRandomValues(new Uint8Array(32))
  relayer = await createKeyPairSignerFromPrivateKeyBytes(seed)
  secretKey = JSON.stringify([...seed, ...getBase58Encoder().encode(relayer.address)])
  node.svm.airdrop(relayer.address, 1_000_000_000n as never)
  mint = await node.mint()
  payTo = (await node.wallet()).address
  await node.fund({ mint, owner: payTo, amount: 0n })
})

afterAll(() => node.close())

/** A gateway with one paid route that works (or fails when told), one that reads the caller, and Solana offered. */
async function setup(
  options: {
    confirmTimeoutMs?: number
    /** The ledger, shared by several gateways standing for several processes. @default a memory ledger of its own */
    ledger?: Ledger
    /** This gateway's lease. @default one that only it holds */
    lease?: { id: string; isLive: (id: string) => Promise<boolean> }
  } = {},
) {
  const served = { count: 0, fail: false }
  const family = Module.define({
    name: 'paid',
    paths: ['/api/v1/models', '/api/v1/invoice/list'],
    needs: [],
    routes: () =>
      new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>()
        .get('/api/v1/models', ({ set }) => {
          served.count++
          if (served.fail) {
            set.status = 502
            return { error: 'upstream down' }
          }
          return { models: ['m'], count: served.count }
        })
        .get('/api/v1/invoice/list', ({ paid }) => ({ invoices: [], count: 0, caller: paid.payer })),
  })
  const { payment, settled } = stubPayment()
  const ledger = options.ledger ?? memory()
  const lease = options.lease ?? { id: 'solana-lease', isLive: async (id: string) => id === 'solana-lease' }
  const pay = solana({
    network,
    mint,
    payTo,
    feePayer: await feePayer({
      url: node.url,
      secretKey,
      network,
      confirmTimeoutMs: options.confirmTimeoutMs ?? 5_000,
    }),
    ledger,
    lease,
    maxTimeoutSeconds: 60,
    logger: silent(),
  })
  const gateway = testGateway({ families: [family], payment: { ...payment, ledger, lease, solana: pay } })
  return { gateway, served, settled, ledger, pay }
}

/** A payer holding `amount` of the mint, and the official x402 client paying from it on this network only. */
async function payer(amount = 5_000_000n) {
  const signer = await node.wallet()
  await node.fund({ mint, owner: signer.address, amount })
  const client = new x402Client()
  client.register(network, new ExactSvmScheme(signer, { rpcUrl: node.url }))
  client.setSpendControls({ allowedAssets: [{ network, asset: mint, maxAmountPerPayment: '1000000' }] })
  return { signer, client }
}

/** The Solana offer of a 402. */
function solanaOffer(response: Response): PaymentRequirements {
  const required = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!)
  return required.accepts.find((accept) => accept.network === network)!
}

/** A `PAYMENT-SIGNATURE` the official client signs for `requirements` (tampered or not). */
async function header(signer: KeyPairSigner, requirements: PaymentRequirements) {
  const scheme = new ExactSvmScheme(signer, { rpcUrl: node.url })
  const created = await scheme.createPaymentPayload(2, requirements)
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: { url: 'http://gateway.test/api/v1/models', description: '', mimeType: 'application/json' },
    accepted: requirements,
    payload: created.payload,
  })
}

const balance = (owner: Address) => node.balance({ mint, owner })
const sends = () => node.methods.filter((method) => method === 'sendTransaction').length

describe('x402 exact on Solana', () => {
  test('behavior: the 402 offers Solana beside the EVM offer, our relayer as the fee payer', async () => {
    const { gateway } = await setup()
    const response = await gateway.fetch('/api/v1/models')
    expect(response.status).toBe(402)
    const required = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!)
    expect(required.accepts.map((accept) => accept.network)).toEqual([gateway.terms.network, network])
    expect(solanaOffer(response)).toEqual({
      scheme: 'exact',
      network,
      amount: price.toString(),
      asset: mint,
      payTo,
      maxTimeoutSeconds: 60,
      extra: { feePayer: relayer.address },
    })
  })

  test('behavior: the official @x402/svm client pays end to end; exactly the price moves to our token account', async () => {
    const { gateway, served, ledger, settled } = await setup()
    const { signer, client } = await payer()
    const before = { payer: await balance(signer.address), payTo: await balance(payTo) }
    const fetch = wrapFetchWithPayment(
      (async (input: RequestInfo | URL, init?: RequestInit) =>
        gateway.handle(new Request(input, init))) as typeof globalThis.fetch,
      client,
    )
    const response = await fetch('http://gateway.test/api/v1/models')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ models: ['m'], count: 1 })
    const receipt = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
    expect(receipt).toMatchObject({ success: true, network, payer: signer.address })
    expect(node.landed(receipt.transaction)).toBe(true)
    expect(await balance(signer.address)).toBe(before.payer - price)
    expect(await balance(payTo)).toBe(before.payTo + price)
    // Our relayer paid the fee; the payer spent no SOL.
    expect(node.svm.getBalance(signer.address)).toBe(1_000_000_000n as never)
    const [entry] = await ledger.list({ state: 'settled' })
    expect(entry).toMatchObject({
      payer: `${network}:${signer.address}`,
      amount: price,
      endpoint: 'GET /api/v1/models',
    })
    expect(served.count).toBe(1)
    expect(settled).toEqual([])
  })

  test('security: one transaction is served once; sent again it gets the kept answer, or is refused for another request', async () => {
    const { gateway, served } = await setup()
    const { signer } = await payer()
    const offer = solanaOffer(await gateway.fetch('/api/v1/models'))
    const payment = await header(signer, offer)
    const first = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(first.status).toBe(200)
    const paid = await balance(signer.address)
    const sent = sends()

    const again = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ models: ['m'], count: 1 })
    expect(again.headers.get('PAYMENT-RESPONSE')).toBe(first.headers.get('PAYMENT-RESPONSE'))

    const other = await gateway.fetch('/api/v1/models?other=1', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(other.status).toBe(402)
    expect(await other.json()).toMatchObject({ code: 'replayed' })

    expect(served.count).toBe(1)
    expect(sends()).toBe(sent)
    expect(await balance(signer.address)).toBe(paid)
  })

  test('security: a payment of the wrong amount, mint or destination is refused with its reason; nothing is sent', async () => {
    const { gateway, served } = await setup()
    const { signer } = await payer()
    const otherMint = await node.mint()
    await node.fund({ mint: otherMint, owner: signer.address, amount: 5_000_000n })
    const stranger = (await node.wallet()).address
    await node.fund({ mint, owner: stranger, amount: 0n })
    await node.fund({ mint: otherMint, owner: payTo, amount: 0n })
    const offer = solanaOffer(await gateway.fetch('/api/v1/models'))
    const sent = sends()
    const held = await balance(signer.address)
    const cases = [
      { tampered: { ...offer, amount: (price - 1n).toString() }, code: 'amount_mismatch' },
      { tampered: { ...offer, asset: otherMint }, code: 'wrong_asset' },
      { tampered: { ...offer, payTo: stranger }, code: 'wrong_payee' },
    ]
    for (const { tampered, code } of cases) {
      const response = await gateway.fetch('/api/v1/models', {
        headers: { 'PAYMENT-SIGNATURE': await header(signer, tampered) },
      })
      expect(response.status).toBe(402)
      const problem = (await response.json()) as { code: string; detail: string }
      expect(problem.code).toBe(code)
      expect(problem.detail).toContain('invalid_exact_svm_payload_')
      // The refusal offers the right payment again.
      expect(solanaOffer(response)).toEqual(offer)
    }
    expect(served.count).toBe(0)
    expect(sends()).toBe(sent)
    expect(await balance(signer.address)).toBe(held)
  })

  test('behavior: a failed handler sends no transaction and releases the payment, which pays a later retry', async () => {
    const { gateway, served, ledger } = await setup()
    const { signer } = await payer()
    const payment = await header(signer, solanaOffer(await gateway.fetch('/api/v1/models')))
    const sent = sends()
    const before = await balance(signer.address)
    served.fail = true
    const failed = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(failed.status).toBe(502)
    expect(failed.headers.get('PAYMENT-RESPONSE')).toBeNull()
    expect(sends()).toBe(sent)
    expect(await balance(signer.address)).toBe(before)
    expect(await ledger.list({ state: 'released' })).toHaveLength(1)

    served.fail = false
    const retried = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(retried.status).toBe(200)
    expect(await balance(signer.address)).toBe(before - price)
  })

  test('behavior: a route that needs an EVM caller refuses a Solana payer with 403; nothing is charged', async () => {
    const { gateway, ledger } = await setup()
    const { signer } = await payer()
    const unpaid = await gateway.fetch('/api/v1/invoice/list')
    const offer = solanaOffer(unpaid)
    const sent = sends()
    const response = await gateway.fetch('/api/v1/invoice/list', {
      headers: { 'PAYMENT-SIGNATURE': await header(signer, offer) },
    })
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ code: 'forbidden' })
    expect(sends()).toBe(sent)
    expect((await ledger.list({ state: 'released' })).map((entry) => entry.endpoint)).toEqual([
      'GET /api/v1/invoice/list',
    ])
  })

  test('behavior: no confirmation in time is 503 settlement_pending; reconciliation records it and the retry gets the answer, charged once', async () => {
    const { gateway, served, ledger, pay } = await setup({ confirmTimeoutMs: 300 })
    const { signer } = await payer()
    const payment = await header(signer, solanaOffer(await gateway.fetch('/api/v1/models')))
    const before = await balance(signer.address)
    node.holdConfirmations(true)
    const pending = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(pending.status).toBe(503)
    expect(await pending.json()).toMatchObject({ code: 'settlement_pending' })
    const said = decodePaymentResponseHeader(pending.headers.get('PAYMENT-RESPONSE')!)
    expect(said).toMatchObject({ success: false, errorReason: 'settlement_pending', network })
    expect(node.landed(said.transaction)).toBe(true)
    const [settling] = await ledger.list({ state: 'settling' })
    expect(settling?.lease).toBeUndefined()
    expect(await pay.reconcile()).toEqual({ settled: 0, failed: 0, pending: 1 })

    node.holdConfirmations(false)
    expect(await pay.reconcile()).toEqual({ settled: 1, failed: 0, pending: 0 })
    const retried = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(retried.status).toBe(200)
    expect(decodePaymentResponseHeader(retried.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({
      success: true,
      transaction: said.transaction,
    })
    expect(served.count).toBe(1)
    expect(await balance(signer.address)).toBe(before - price)
  })

  test('security: two processes on one ledger serve one transaction once', async () => {
    const database = sqliteFixture('solana-ledger', (path) => sqlite({ path }))
    const live = async (id: string) => id === 'process-a' || id === 'process-b'
    const a = await setup({ ledger: database.open(), lease: { id: 'process-a', isLive: live } })
    const b = await setup({ ledger: database.open(), lease: { id: 'process-b', isLive: live } })
    try {
      const { signer } = await payer()
      const payment = await header(signer, solanaOffer(await a.gateway.fetch('/api/v1/models')))
      const before = await balance(signer.address)
      const sent = sends()
      const answers = await Promise.all(
        [a, b].map(({ gateway }) => gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })),
      )
      // One serves it; the other is told it is being served, or gets its kept answer if it came late.
      const statuses = answers.map((answer) => answer.status).sort()
      expect(statuses[0]).toBe(200)
      expect([200, 503]).toContain(statuses[1]!)
      expect(a.served.count + b.served.count).toBe(1)
      const retried = await b.gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
      expect(retried.status).toBe(200)
      expect(a.served.count + b.served.count).toBe(1)
      expect(sends()).toBe(sent + 1)
      expect(await balance(signer.address)).toBe(before - price)
    } finally {
      await database.teardown()
    }
  })

  test('behavior: a transaction that never lands fails once its blockhash expires; nothing moved, the retry is refused', async () => {
    const { gateway, served, ledger, pay } = await setup({ confirmTimeoutMs: 300 })
    const { signer } = await payer()
    const payment = await header(signer, solanaOffer(await gateway.fetch('/api/v1/models')))
    const before = await balance(signer.address)
    node.dropSends(true)
    try {
      const pending = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
      expect(pending.status).toBe(503)
      expect(await pay.reconcile()).toEqual({ settled: 0, failed: 0, pending: 1 })
    } finally {
      node.dropSends(false)
    }
    node.svm.expireBlockhash()
    expect(await pay.reconcile()).toEqual({ settled: 0, failed: 1, pending: 0 })
    const [failed] = await ledger.list({ state: 'failed' })
    expect(failed?.reason).toBe('The transaction expired without landing.')
    const retried = await gateway.fetch('/api/v1/models', { headers: { 'PAYMENT-SIGNATURE': payment } })
    expect(retried.status).toBe(402)
    expect(await retried.json()).toMatchObject({ code: 'settlement_failed' })
    expect(served.count).toBe(1)
    expect(await balance(signer.address)).toBe(before)
  })

  test('behavior: unconfigured, there is no Solana offer and discovery says why', async () => {
    const { payment } = stubPayment()
    const gateway = testGateway({
      payment,
      families: [
        Module.define({
          name: 'paid',
          paths: ['/api/v1/models'],
          needs: [],
          routes: () => new Elysia().get('/api/v1/models', () => ({ models: [], count: 0 })),
        }),
      ],
      env: { SOLANA_PAY_TO: payTo },
    })
    const required = decodePaymentRequiredHeader(
      (await gateway.fetch('/api/v1/models')).headers.get('PAYMENT-REQUIRED')!,
    )
    expect(required.accepts.map((accept) => accept.network)).toEqual([gateway.terms.network])
    const manifest = (await (await gateway.fetch('/.well-known/x402.json')).json()) as { solana: unknown }
    expect(manifest.solana).toEqual({
      offered: false,
      reason:
        'Solana payments are not configured on this gateway: SOLANA_PAY_RPC_URL (its node), SOLANA_FEE_PAYER_SECRET_KEY (our fee payer) are not set.',
    })
  })

  test('behavior: configured, discovery publishes the Solana terms', async () => {
    const { gateway } = await setup()
    const manifest = (await (await gateway.fetch('/.well-known/x402.json')).json()) as { solana: unknown }
    expect(manifest.solana).toEqual({
      offered: true,
      scheme: 'exact',
      network,
      asset: mint,
      payTo,
      feePayer: relayer.address,
    })
  })

  test('behavior: booted with SOLANA_PAY_*, the gateway offers Solana and the official client pays a real endpoint', async () => {
    const booted = await paidGateway({
      env: {
        SOLANA_PAY_RPC_URL: node.url,
        SOLANA_FEE_PAYER_SECRET_KEY: secretKey,
        SOLANA_PAY_TO: payTo,
        SOLANA_PAY_MINT: mint,
        SOLANA_PAY_NETWORK: network,
      },
    })
    try {
      expect(booted.jobs.map((job) => job.name)).toContain('reconcile-solana')
      const { signer, client } = await payer()
      const before = await balance(payTo)
      const response = await wrapFetchWithPayment(booted.fetch, client)(`${origin}/api/v1/rpc/chains`)
      expect(response.status).toBe(200)
      expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({
        success: true,
        network,
        payer: signer.address,
      })
      expect(await balance(payTo)).toBe(before + price)
      const manifest = (await (await booted.fetch(`${origin}/.well-known/x402.json`)).json()) as { solana: unknown }
      expect(manifest.solana).toMatchObject({ offered: true, network, feePayer: relayer.address })
    } finally {
      await booted.close()
    }
  })

  test('error: a fee payer key whose halves do not match stops the start with a line that does not quote it', async () => {
    const mismatched = JSON.stringify([...new Uint8Array(32).fill(1), ...getBase58Encoder().encode(payTo)])
    const started = paidGateway({
      env: { SOLANA_PAY_RPC_URL: node.url, SOLANA_FEE_PAYER_SECRET_KEY: mismatched, SOLANA_PAY_TO: payTo },
    })
    const error = (await started.catch((caught: Error) => caught)) as Error
    expect(error.name).toBe('ConfigError')
    expect(error.message).toStartWith('SOLANA_FEE_PAYER_SECRET_KEY is not a Solana keypair')
    expect(error.message).not.toContain('1,1,1')
  })
})
