import { afterAll, describe, expect, test } from 'bun:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { Elysia, t } from 'elysia'
import { type Hash, type Hex, type LocalAccount, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory as memoryLedger } from '../../adapters/ledger/memory.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import * as Callback from '../../app/callback.js'
import { clients } from '../../app/clients.js'
import { silent } from '../../app/log.js'
import { paymentOutcome } from '../../app/payment/outcome.js'
import { reconcile } from '../../app/payment/reconcile.js'
import { settlement } from '../../app/payment/settlement.js'
import { signatureOf } from '../../app/payment/solana.js'
import { workerRunner } from '../../app/workers.js'
import * as Channel from '../../core/Channel.js'
import { BadRequestError } from '../../core/Errors.js'
import { events as eventsPort } from '../../core/Events.js'
import type { Facilitator } from '../../core/Facilitator.js'
import type { Ledger } from '../../core/Ledger.js'
import * as Module from '../../core/Module.js'
import { toDomain } from '../../core/PaymentTerms.js'
import type { Store } from '../../core/Store.js'
import * as Webhooks from '../../core/Webhooks.js'
import { manifest as cron } from '../../modules/cron/index.js'
import { manifest as webhooks } from '../../modules/webhooks/index.js'
import { stubPayment, testGateway } from '../support/gateway.js'
import { loopbackOutbound, signedReceiver } from '../support/receiver.js'

// The original gateway's `callback_url` on any paid call: checked before the 402, written with the paid call (taken
// back when it is never paid), delivered once its payment is settled, signed per Standard Webhooks.

const outboundGuard = loopbackOutbound()
const env = { WEBHOOK_RETRY_BASE_MS: '1000', WEBHOOK_RETRY_MAX_MS: '1000' }

const target = signedReceiver()
afterAll(() => target.stop())
const deliveredTo = (path: string) => target.received.filter((delivery) => delivery.path === path)

const taxPath = '/api/v1/tax/calculate'
const jobPath = '/api/v1/gpu/run'

/** A paid call with a strict body: answers its input doubled (as a JSON `Response` when asked), or fails when told. */
const doubling = Module.define({
  name: 'doubling',
  paths: [taxPath],
  needs: [],
  routes: () =>
    new Elysia({ name: 'doubling' }).post(
      taxPath,
      ({ body }) => {
        if (body.fail) throw new BadRequestError('Told to fail.')
        if (body.asText) return new Response(String(body.n * 2), { headers: { 'content-type': 'text/plain' } })
        const answer = { n: body.n, doubled: body.n * 2 }
        return body.asResponse
          ? new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } })
          : answer
      },
      {
        body: t.Object(
          {
            n: t.Integer(),
            fail: t.Optional(t.Boolean()),
            asResponse: t.Optional(t.Boolean()),
            asText: t.Optional(t.Boolean()),
          },
          { additionalProperties: false },
        ),
      },
    ),
})

/** The payments held by jobs the job module started, by job id. */
const held = new Map<string, Module.Held>()
let deferredPort: Module.Deferred | undefined

/** A paid call that starts a job: its payment waits for the job (202), as a GPU run's does. */
const jobs = Module.define({
  name: 'jobs',
  paths: [jobPath],
  needs: ['deferred'],
  routes: ({ ports }) => {
    deferredPort = ports.deferred
    return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'jobs' }).post(
      jobPath,
      ({ paid, set }) => {
        const id = `job_${crypto.randomUUID().replaceAll('-', '')}`
        held.set(id, paid.defer(id)!)
        set.status = 202
        return { jobId: id, status: 'queued' }
      },
      { body: t.Object({ prompt: t.String() }, { additionalProperties: false }) },
    )
  },
})

/** A gateway with the callback's families on one memory store and queue, and a stub settlement. */
function setup(parameters: { facilitator?: Partial<ReturnType<typeof stubPayment>['payment']['facilitator']> } = {}) {
  const queue = memoryQueue()
  const store = memoryStore({ queue })
  const { payment, settled } = stubPayment({ queue })
  Object.assign(payment.facilitator, parameters.facilitator)
  payment.settlementTimeoutMs = 200
  const ports = { store, queue, outbound: outboundGuard, events: eventsPort({ queue }) }
  const gateway = testGateway({ families: [doubling, jobs, cron, webhooks], payment, ports, env })
  let clock = new Date()
  const runner = workerRunner({ queue, workers: gateway.workers, logger: silent(), now: () => clock })
  /** Runs `runner` over every item due `ms` from now, and what those make due. */
  const run = async (worker: ReturnType<typeof workerRunner>, ms: number) => {
    clock = new Date(Date.now() + ms)
    await worker.drain()
  }
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    gateway.handle(new Request(input, init))) as typeof globalThis.fetch
  const pay = clients({ terms: gateway.terms, fetch })
  /**
   * POSTs `body` to `path`, paid with an x402 v2 authorization of `payer` for `value` (atomic units), or with the
   * `PAYMENT-SIGNATURE` header given.
   */
  async function paid(
    path: string,
    body: unknown,
    payer: LocalAccount,
    options: { value: bigint; nonce?: Hex; header?: string },
  ) {
    const header =
      options.header ?? (await pay.presigned({ signer: payer, value: options.value, nonce: options.nonce }))
    return fetch(`http://gateway.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
      body: JSON.stringify(body),
    })
  }
  return {
    gateway,
    store,
    queue,
    ledger: payment.ledger as Ledger,
    settled,
    pay,
    paid,
    /**
     * Runs every item due `ms` from now (a second: what is due now and what that makes due; more: retries too). An
     * item waiting for an undecided payment is looked at again within a second or two, so such tests run at `0`.
     */
    drain: (ms = 1_000) => run(runner, ms),
    /** The same families on the same store, queue and ledger: another gateway process (after a crash, say). */
    restarted() {
      const again = testGateway({ families: [doubling, jobs, cron, webhooks], payment, ports, env })
      const worker = workerRunner({ queue, workers: again.workers, logger: silent(), now: () => clock })
      return { drain: (ms = 1_000) => run(worker, ms) }
    },
  }
}

const payer = () => privateKeyToAccount(generatePrivateKey())
const taxPrice = 80_000n
const jobPrice = 60_000n

/** What reconciliation at a restart is given: the gateway's ledger and store, and a process lease nobody holds. */
function reconciling(gateway: ReturnType<typeof testGateway>, store: Store, ledger: Ledger) {
  return {
    ledger,
    domain: toDomain(gateway.terms),
    logger: silent(),
    store,
    lease: { id: 'restarted', isLive: async () => false },
  }
}

/** A facilitator that only reads the chain, which says `status` of every authorization. */
function onChain(status: Awaited<ReturnType<Facilitator['status']>>): Facilitator {
  return {
    verify: async () => ({ ok: true }),
    settle: async () => ({ ok: false, reason: 'settlement_failed', message: 'Not sent from here.' }),
    status: async () => status,
  }
}

/** A callback answer's `webhook` member, with its secret registered at the receiver for `path`. */
function registered(
  answer: { webhook: { webhook_id: string; webhook_secret: string; subscribed_events: string[] } },
  path: string,
) {
  target.secrets.set(path, answer.webhook.webhook_secret)
  return answer.webhook
}

describe('callback_url on a paid call', () => {
  test('default: paid with x402, the answer is POSTed once, signed with the secret the answer carries', async () => {
    const { paid, drain, settled } = setup()
    const response = await paid(taxPath, { n: 21, callback_url: target.url('/x402') }, payer(), { value: taxPrice })
    expect(response.status).toBe(200)
    const body = await response.json()
    const webhook = registered(body, '/x402')
    expect(webhook).toEqual({
      webhook_id: expect.stringMatching(/^cb_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      subscribed_events: ['call.completed'],
    })
    const { webhook: _, ...answer } = body
    expect(answer).toEqual({ n: 21, doubled: 42 })
    expect(settled).toHaveLength(1)
    const transaction = decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction
    await drain()
    await drain()
    const deliveries = deliveredTo('/x402')
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]!.type).toBe('call.completed')
    expect(deliveries[0]!.data).toEqual({
      requestId: response.headers.get('x-request-id')!,
      route: `POST ${taxPath}`,
      status: 200,
      answer,
      payment: { payer: expect.any(String), amountRaw: taxPrice.toString(), transaction },
    })
  })

  test('behavior: paid with MPP, the same; a JSON Response answer is delivered as its body', async () => {
    const { pay, drain } = setup()
    const response = await pay.mpp(payer())(`http://gateway.test${taxPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 5, asResponse: true, callback_url: target.url('/mpp') }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('payment-receipt')).toBeTruthy()
    const body = await response.json()
    registered(body, '/mpp')
    await drain()
    await drain()
    const deliveries = deliveredTo('/mpp')
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]!.data.answer).toEqual({ n: 5, doubled: 10 })
  })

  test('error: a refused URL is a 400 naming callback_url before payment: no 402, no claim, nothing settled', async () => {
    const { gateway, paid, ledger, settled, store } = setup()
    const cases: [unknown, string][] = [
      ['http://10.0.0.7/hook', 'private_address'],
      [`ftp://127.0.0.1:${new URL(target.url('/')).port}/hook`, 'scheme_not_allowed'],
      ['not a url', 'invalid_url'],
      [42, 'validation_failed'],
    ]
    for (const [url, reason] of cases) {
      const unpaid = await gateway.post(taxPath, { n: 1, callback_url: url })
      expect(unpaid.status).toBe(400)
      const problem = await unpaid.json()
      expect(problem.field ?? problem.details?.field).toBe('callback_url')
      expect(problem.reason ?? problem.details?.reason ?? problem.code).toBe(reason)
      const signer = payer()
      const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
      const refused = await paid(taxPath, { n: 1, callback_url: url }, signer, { value: taxPrice, nonce })
      expect(refused.status).toBe(400)
      expect(await ledger.get({ payer: signer.address, nonce })).toBeUndefined()
    }
    expect(settled).toHaveLength(0)
    expect(await store.list(Callback.collection, { owner: payer().address })).toHaveLength(0)
  })

  test('behavior: an answer that is no JSON object has no callback: it is served and charged as always', async () => {
    const { paid, settled, queue } = setup()
    const response = await paid(taxPath, { n: 2, asText: true, callback_url: target.url('/text') }, payer(), {
      value: taxPrice,
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('4')
    expect(settled).toHaveLength(1)
    expect((await queue.pending())[Callback.queueName]).toBeUndefined()
  })

  test('error: a failed handler delivers nothing and charges nothing', async () => {
    const { paid, drain, settled, queue } = setup()
    const response = await paid(taxPath, { n: 1, fail: true, callback_url: target.url('/failed') }, payer(), {
      value: taxPrice,
    })
    expect(response.status).toBe(400)
    expect(settled).toHaveLength(0)
    expect((await queue.pending())[Callback.queueName]).toBeUndefined()
    await drain()
    expect(deliveredTo('/failed')).toHaveLength(0)
  })

  test('error: a settlement that fails takes the callback back: nothing is delivered', async () => {
    const { paid, drain, store } = setup({
      facilitator: { settle: async () => ({ ok: false, reason: 'settlement_failed', message: 'Reverted.' }) },
    })
    const signer = payer()
    const response = await paid(taxPath, { n: 3, callback_url: target.url('/unsettled') }, signer, {
      value: taxPrice,
    })
    expect(response.status).toBe(402)
    expect(await store.list(Callback.collection, { owner: signer.address })).toHaveLength(0)
    await drain()
    expect(deliveredTo('/unsettled')).toHaveLength(0)
  })

  test('behavior: a receiver that is down gets the delivery again later, from the queue', async () => {
    const { paid, drain, store } = setup()
    target.down.set('/down', 2)
    const response = await paid(taxPath, { n: 4, callback_url: target.url('/down') }, payer(), { value: taxPrice })
    const { webhook_id } = registered(await response.json(), '/down')
    await drain(0)
    expect(deliveredTo('/down')).toHaveLength(0)
    await drain(5_000)
    expect(deliveredTo('/down')).toHaveLength(1)
    const endpoint = { collection: Callback.collection, id: webhook_id }
    const messageId = Webhooks.messageId(`call.completed:${webhook_id}`, endpoint)
    const delivery = await store.get<Webhooks.Delivery>(Webhooks.deliveries, messageId)
    expect(delivery?.value.attempts.map((attempt) => attempt.code)).toEqual([503, 503, 204])
    expect((await store.get<Webhooks.Endpoint>(endpoint.collection, endpoint.id))?.value).toMatchObject({
      status: 'active',
      failures: 0,
      lastDelivery: { status: 'delivered', code: 204 },
    })
  })
})

describe('callback_url and the outcome of a payment decided after the answer', () => {
  test('behavior: a settlement left pending delivers nothing; found mined after a crash, another process delivers it', async () => {
    const transaction = `0x${'cd'.repeat(32)}` as Hash
    // The node takes the transaction and the process never hears back: the caller is told the settlement is pending.
    const { paid, pay, drain, restarted, ledger, store, gateway } = setup({
      facilitator: {
        settle: ({ onSubmitted }) => {
          onSubmitted?.(transaction)
          return new Promise(() => {})
        },
      },
    })
    const signer = payer()
    const header = await pay.presigned({ signer, value: taxPrice })
    const call = () =>
      paid(taxPath, { n: 6, callback_url: target.url('/pending') }, signer, { value: taxPrice, header })
    const response = await call()
    expect(response.status).toBe(503)
    await drain(0)
    expect(deliveredTo('/pending')).toHaveLength(0)
    // Reconciliation (at the next start) finds it mined; the process that answered never looks at the callback again.
    const found = await reconcile({
      settlements: settlement({
        ...reconciling(gateway, store, ledger),
        facilitator: onChain({ state: 'settled', transaction }),
      }),
    })
    expect(found.settled).toBe(1)
    // The caller, told to retry, gets the answer kept for it: with the callback's secret, shown once the call is paid.
    const retried = await call()
    expect(retried.status).toBe(200)
    registered(await retried.json(), '/pending')
    await restarted().drain(120_000)
    const deliveries = deliveredTo('/pending')
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]!.data).toMatchObject({ answer: { n: 6, doubled: 12 }, payment: { transaction } })
    expect(target.unverified()).toBe(0)
  })

  test('behavior: a settlement that never reached the chain expires: reconciled, its callback is taken back', async () => {
    const { paid, drain, restarted, ledger, store, gateway } = setup({
      facilitator: { settle: () => new Promise(() => {}) },
    })
    const signer = payer()
    const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const answered = await paid(taxPath, { n: 8, callback_url: target.url('/dead') }, signer, {
      value: taxPrice,
      nonce,
    })
    expect(answered.status).toBe(503)
    await drain(0)
    expect(await store.list(Callback.collection, { owner: signer.address })).toHaveLength(1)
    const found = await reconcile({
      settlements: settlement({ ...reconciling(gateway, store, ledger), facilitator: onChain({ state: 'unused' }) }),
      now: new Date(Date.now() + 3_600_000),
    })
    expect(found.failed).toBe(1)
    expect(await store.list(Callback.collection, { owner: signer.address })).toHaveLength(0)
    await restarted().drain(120_000)
    expect(deliveredTo('/dead')).toHaveLength(0)
  })

  test('behavior: a job’s call is delivered once its job settles the payment, with the synchronous answer', async () => {
    const { paid, drain } = setup()
    const response = await paid(jobPath, { prompt: 'hi', callback_url: target.url('/job') }, payer(), {
      value: jobPrice,
    })
    expect(response.status).toBe(202)
    const body = await response.json()
    registered(body, '/job')
    await drain(0)
    expect(deliveredTo('/job')).toHaveLength(0)
    const settled = await deferredPort!.settle(held.get(body.jobId)!)
    expect(settled.ok).toBe(true)
    await drain(120_000)
    const deliveries = deliveredTo('/job')
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]!.data).toMatchObject({ status: 202, answer: { jobId: body.jobId, status: 'queued' } })
  })

  test('behavior: a job that fails releases its payment: its callback is removed, never delivered', async () => {
    const { paid, drain, store } = setup()
    const signer = payer()
    const response = await paid(jobPath, { prompt: 'hi', callback_url: target.url('/job-failed') }, signer, {
      value: jobPrice,
    })
    const body = await response.json()
    expect(await deferredPort!.release(held.get(body.jobId)!, 'the job failed')).toBe(true)
    await drain(120_000)
    expect(deliveredTo('/job-failed')).toHaveLength(0)
    expect(await store.list(Callback.collection, { owner: signer.address })).toHaveLength(0)
  })
})

describe('callback_url of a route that reads its own', () => {
  test('behavior: cron/create keeps its callback_url (its runs), and answers no call callback', async () => {
    const { paid, store } = setup()
    const signer = payer()
    const response = await paid(
      '/api/v1/cron/create',
      { action: 'webhook.trigger', schedule: '0 * * * *', payload: {}, callback_url: target.url('/cron') },
      signer,
      { value: 100_000n },
    )
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.callback).toMatchObject({ url: target.url('/cron'), secret: expect.stringMatching(/^whsec_/) })
    expect(body.webhook).toBeUndefined()
    expect(await store.list(Callback.collection, { owner: signer.address })).toHaveLength(0)
  })
})

describe('discovery', () => {
  test('behavior: OpenAPI documents callback_url on paid POST bodies; cron keeps its own; the manifest says it once', async () => {
    const { gateway } = setup()
    const openapi = await (await gateway.fetch('/openapi.json')).json()
    const body = (path: string) => openapi.paths[path].post.requestBody.content['application/json'].schema
    expect(body(taxPath).properties.callback_url).toEqual(Callback.property)
    expect(body('/api/v1/cron/create').properties.callback_url.description).toContain('cron.triggered')
    expect(openapi.paths['/api/v1/cron/list'].get.requestBody).toBeUndefined()
    const manifest = await (await gateway.fetch('/.well-known/x402.json')).json()
    expect(manifest.callbacks).toMatchObject({ offered: true, field: 'callback_url', event: 'call.completed' })
    expect(await (await gateway.fetch('/llms.txt')).text()).toContain(Callback.description)
  })

  test('error: without the webhooks family a callback_url is a 503 before payment; the call without one runs', async () => {
    const queue = memoryQueue()
    const store = memoryStore({ queue })
    const { payment, settled } = stubPayment({ queue })
    const gateway = testGateway({ families: [doubling], payment, ports: { store, queue, outbound: outboundGuard } })
    const refused = await gateway.paid('POST', taxPath, { n: 1, callback_url: target.url('/none') })
    expect(refused.status).toBe(503)
    expect((await refused.json()).detail).toBe(Callback.unserved)
    expect(settled).toHaveLength(0)
    expect((await gateway.paid('POST', taxPath, { n: 1 })).status).toBe(200)
    const manifest = await (await gateway.fetch('/.well-known/x402.json')).json()
    expect(manifest.callbacks).toEqual({ offered: false, reason: Callback.unserved })
  })
})

describe('callbacks: the worker that waits for a payment', () => {
  const queue = memoryQueue()
  const store = memoryStore({ queue })
  const ledger = memoryLedger({ queue })
  const { worker } = Callback.callbacks({
    store,
    queue,
    outbound: outboundGuard,
    outcome: paymentOutcome({ store, ledger }),
  })
  const payerAddress = privateKeyToAccount(generatePrivateKey()).address

  /** A callback written for a call paid by `payment`, as the gateway writes it after the handler. */
  async function written(payment: Module.Holding): Promise<string> {
    const id = `cb_${crypto.randomUUID().replaceAll('-', '')}`
    const value: Callback.Callback = {
      url: target.url('/unit'),
      secret: Webhooks.newSecret(),
      status: 'active',
      call: { requestId: 'req-1', route: `POST ${taxPath}`, status: 200, answer: { ok: true } },
      payment,
    }
    await store.insert({ collection: Callback.collection, id, owners: [], value, createdAt: new Date() })
    return id
  }
  const run = (id: string) =>
    worker.run({
      queue: Callback.queueName,
      id,
      payload: { id },
      state: 'pending',
      attempts: 1,
      dueAt: new Date(),
      createdAt: new Date(),
      updatedAt: new Date(),
      token: 'lease',
    })
  /** The delivery the worker enqueued for a callback, if any. */
  const deliveryOf = (id: string) =>
    queue.get<Webhooks.Payload>(
      Webhooks.deliveryQueue,
      Webhooks.messageId(`call.completed:${id}`, { collection: Callback.collection, id }),
    )

  const channelId = `0x${'ab'.repeat(32)}` as Hex
  async function channel(state: { charged: string; pending?: string }) {
    const value: Channel.State = {
      channelId,
      config: {} as Channel.Config,
      balance: '1000000',
      totalClaimed: '0',
      charged: state.charged,
      refundNonce: '0',
      withdrawRequestedAt: 0,
      ...(state.pending
        ? { pending: { maxClaimableAmount: state.pending, amount: '1000', signature: '0x', at: 0 } }
        : {}),
    }
    await store.remove(Channel.collection, channelId)
    await store.insert({ collection: Channel.collection, id: channelId, owners: [], value, createdAt: new Date() })
  }

  test('behavior: a channel voucher still reserved waits; charged, its delivery names the channel and no transaction', async () => {
    const id = await written({ type: 'channel', payer: payerAddress, channelId, ceiling: '3000', amount: '1000' })
    await channel({ charged: '2000', pending: '3000' })
    expect(await run(id)).toMatchObject({ error: 'payment_undecided' })
    expect(await deliveryOf(id)).toBeUndefined()
    await channel({ charged: '3000' })
    expect(await run(id)).toMatchObject({ done: true, result: { delivered: true } })
    expect((await deliveryOf(id))?.payload.event.data).toMatchObject({
      payment: { payer: payerAddress, amountRaw: '1000', transaction: null, channelId },
    })
  })

  test('behavior: a channel voucher never charged removes its callback', async () => {
    const id = await written({ type: 'channel', payer: payerAddress, channelId, ceiling: '5000', amount: '1000' })
    await channel({ charged: '4000' })
    expect(await run(id)).toMatchObject({ done: true, result: { delivered: false } })
    expect(await store.get(Callback.collection, id)).toBeUndefined()
    expect(await deliveryOf(id)).toBeUndefined()
  })

  test('behavior: a Solana payment settled names its base58 signature, and the delivery has no EVM owner', async () => {
    const key = {
      payer: `solana:${'1'.repeat(32)}:${'2'.repeat(43)}` as const,
      nonce: toHex(new Uint8Array(32).fill(7)),
    }
    await ledger.claim({
      ...key,
      amount: 1000n,
      endpoint: `POST ${taxPath}`,
      protocol: 'x402-v2',
      authorization: '{}',
      fingerprint: 'f',
      lease: 'lease',
      claimedAt: new Date(),
    })
    const id = await written({ type: 'ledger', ...key })
    expect(await run(id)).toMatchObject({ error: 'payment_undecided' })
    await ledger.apply(key, { type: 'settle', response: undefined })
    const signature = new Uint8Array(64).fill(9)
    await ledger.apply(key, { type: 'confirmed', transaction: toHex(signature) })
    expect(await run(id)).toMatchObject({ done: true, result: { delivered: true } })
    const delivery = await deliveryOf(id)
    expect(delivery?.payload.owner).toBeUndefined()
    expect(delivery?.payload.event.data).toMatchObject({
      payment: { payer: key.payer, amountRaw: '1000', transaction: signatureOf(toHex(signature)) },
    })
    expect(signatureOf(toHex(signature))).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
  })
})
