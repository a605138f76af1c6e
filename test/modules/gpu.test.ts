import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { Webhook } from 'standardwebhooks'
import type { LocalAccount } from 'viem'
import type { Claim } from '../../core/Queue.js'
import type * as Webhooks from '../../core/Webhooks.js'
import { origin, paidGateway } from '../support/paid.js'
import { replicateStub, webhookSecret } from '../support/replicate.js'

const token = 'r8_gpu_token'
const replicate = replicateStub({ token })
const version = 'b'.repeat(64)
const fluxVersion = 'c'.repeat(64)
const price = 60_000n

let gateway: Awaited<ReturnType<typeof paidGateway>>
let unconfigured: Awaited<ReturnType<typeof paidGateway>>
let payer: LocalAccount

beforeAll(async () => {
  ;[gateway, unconfigured] = await Promise.all([
    paidGateway({
      env: {
        GPU_MODELS: JSON.stringify({
          sdxl: `stability-ai/sdxl:${version}`,
          'flux-dev-pinned': `black-forest-labs/flux-dev:${fluxVersion}`,
        }),
        OUTBOUND_ALLOW: '127.0.0.1',
        REPLICATE_API_TOKEN: token,
        REPLICATE_URL: replicate.url,
        REPLICATE_WEBHOOK_SECRET: webhookSecret,
        PUBLIC_URL: origin,
      },
    }),
    paidGateway(),
  ])
  payer = gateway.account(5)
})

afterAll(async () => {
  await Promise.all([gateway?.close(), unconfigured?.close()])
  replicate.stop()
})

/** Sends `method path` paid with a fresh authorization of `amount` valid for `seconds`. */
async function pay(signer: LocalAccount, method: string, path: string, amount: bigint, body?: unknown, seconds = 120) {
  const header = await gateway.presigned({
    signer,
    value: amount,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + seconds),
  })
  return gateway.fetch(`${origin}${path}`, {
    method,
    headers: { 'PAYMENT-SIGNATURE': header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

/** Starts a run; its id and Replicate's prediction id. */
async function start() {
  const response = await pay(
    payer,
    'POST',
    '/api/v1/gpu/run',
    price,
    { model: 'sdxl', input: { prompt: 'a cat' } },
    2_000,
  )
  expect(response.status).toBe(202)
  const run = await response.json()
  expect(run).toMatchObject({ status: 'queued', output: [], payment: { state: 'held', amount: '0.060000' } })
  return { id: run.id as string, prediction: [...replicate.predictions.values()].at(-1)!.id }
}

describe('gpu', () => {
  test('default: models lists the pinned versions, and the original shortcuts that reach them, free', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/gpu/models`)
    expect(await response.json()).toEqual({
      count: 2,
      models: [
        { id: 'sdxl', model: 'stability-ai/sdxl', version },
        { id: 'flux-dev-pinned', model: 'black-forest-labs/flux-dev', version: fluxVersion },
      ],
      total: 2,
      categories: {
        image: [
          {
            shortcut: 'flux-dev',
            model: 'black-forest-labs/flux-dev',
            description: 'FLUX dev model for experimentation',
          },
          { shortcut: 'sdxl', model: 'stability-ai/sdxl', description: 'Stable Diffusion XL' },
        ],
      },
    })
  })

  test('behavior: the original gateway’s call (shortcut, version, webhook) runs the pinned model and its end reaches the webhook, signed', async () => {
    const heard: { id: string; body: string; verified: boolean }[] = []
    let secret = ''
    const receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        const body = await request.text()
        let verified = true
        try {
          new Webhook(secret).verify(body, Object.fromEntries(request.headers))
        } catch {
          verified = false
        }
        heard.push({ id: request.headers.get('webhook-id') ?? '', body, verified })
        return new Response(null, { status: 204 })
      },
    })
    try {
      const response = await pay(
        payer,
        'POST',
        '/api/v1/gpu/run',
        price,
        {
          model: 'flux-dev',
          input: { prompt: 'a fox' },
          version: fluxVersion,
          webhook: `http://127.0.0.1:${receiver.port}/hook`,
        },
        2_000,
      )
      expect(response.status).toBe(202)
      const run = await response.json()
      expect(run).toMatchObject({
        status: 'queued',
        model: 'black-forest-labs/flux-dev',
        modelId: 'flux-dev-pinned',
        poll_url: `/api/v1/gpu/status/${run.id}`,
        urls: { get: `/api/v1/gpu/status/${run.id}` },
        metrics: null,
        webhook: { url: `http://127.0.0.1:${receiver.port}/hook` },
      })
      expect(Date.parse(run.created_at)).toBeGreaterThan(0)
      secret = run.webhook.secret
      const prediction = [...replicate.predictions.values()].at(-1)!
      expect(prediction).toMatchObject({ version: fluxVersion, input: { prompt: 'a fox' } })
      replicate.succeed(prediction.id, 'https://replicate.delivery/fox.png')
      const { url, init } = replicate.webhook(prediction.id)
      expect((await gateway.fetch(url, init)).status).toBe(200)
      const [claimed] = await gateway.queue.claim<Webhooks.Payload>('webhook', { leaseMs: 90_000 })
      expect(claimed!.payload.endpoint.id).toBe(run.id)
      const deliverer = gateway.workers.find((worker) => worker.queue === 'webhook')!
      expect(await deliverer.run(claimed as unknown as Claim)).toMatchObject({ done: true })
      expect(heard).toHaveLength(1)
      expect(heard[0]!.verified).toBe(true)
      expect(JSON.parse(heard[0]!.body)).toMatchObject({
        type: 'job.completed',
        data: { jobId: run.id, status: 'succeeded', result: 'https://replicate.delivery/fox.png' },
      })
      const status = await (await pay(payer, 'GET', `/api/v1/gpu/status/${run.id}`, 5_000n)).json()
      expect(status).toMatchObject({ status: 'succeeded', prediction_id: prediction.id })
      expect(Date.parse(status.completed_at)).toBeGreaterThan(0)
    } finally {
      receiver.stop(true)
    }
  })

  test('error: a version other than the pinned one, or a webhook the guard refuses, is 400 before any 402', async () => {
    for (const [body, field] of [
      [{ model: 'sdxl', input: {}, version: 'd'.repeat(64) }, 'version'],
      [{ model: 'sdxl', input: {}, webhook: 'http://10.0.0.1/hook' }, 'webhook'],
      [{ model: 'stability-ai/sdxl', input: {}, webhook: 'ftp://example.com/hook' }, 'webhook'],
    ] as const) {
      const response = await gateway.fetch(`${origin}/api/v1/gpu/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(400)
      expect(JSON.stringify(await response.json())).toContain(field)
    }
  })

  test('error: a shortcut of a model not pinned here is 400 before any 402', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/gpu/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'flux-pro', input: {} }),
    })
    expect(response.status).toBe(400)
  })

  test('behavior: unconfigured, run answers 503 before payment and discovery says why; models answers empty', async () => {
    const response = await unconfigured.fetch(`${origin}/api/v1/gpu/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sdxl', input: {} }),
    })
    expect(response.status).toBe(503)
    expect((await response.json()).detail).toContain('REPLICATE_API_TOKEN')
    expect(await (await unconfigured.fetch(`${origin}/api/v1/gpu/models`)).json()).toEqual({
      count: 0,
      models: [],
      total: 0,
      categories: {},
    })
  })

  test('error: a model not allowed is 400 before any 402', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/gpu/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'flux', input: {} }),
    })
    expect(response.status).toBe(400)
  })

  test('behavior: the 402 asks 0.06 with a window past the run timeout', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/gpu/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sdxl', input: {} }),
    })
    const accepted = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).accepts[0]!
    expect(BigInt(accepted.amount)).toBe(price)
    expect(accepted.maxTimeoutSeconds).toBe(2400)
  })

  test('behavior: a succeeded run settles 0.06 on its webhook; status shows the output as an array', async () => {
    const before = await gateway.balance(payer.address)
    const { id, prediction } = await start()
    expect(replicate.predictions.get(prediction)).toMatchObject({ version, input: { prompt: 'a cat' } })
    expect(await gateway.balance(payer.address)).toBe(before)
    replicate.succeed(prediction, 'https://replicate.delivery/out.png')
    const { url, init } = replicate.webhook(prediction)
    expect((await gateway.fetch(url, init)).status).toBe(200)
    expect(await gateway.balance(payer.address)).toBe(before - price)
    const status = await (await pay(payer, 'GET', `/api/v1/gpu/status/${id}`, 5_000n)).json()
    expect(status).toMatchObject({ id, status: 'succeeded', output: ['https://replicate.delivery/out.png'] })
  })

  test('behavior: a failed run leaves the balance unchanged', async () => {
    const before = await gateway.balance(payer.address)
    const { id, prediction } = await start()
    replicate.fail(prediction, 'bad input')
    const worker = gateway.workers.find((candidate) => candidate.queue === 'gpu-jobs')!
    expect(await worker.run({ queue: 'gpu-jobs', id, payload: { id } } as unknown as Claim)).toEqual({ done: true })
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('security: another payer’s run is 404', async () => {
    const { id } = await start()
    expect((await pay(gateway.account(6), 'GET', `/api/v1/gpu/status/${id}`, 5_000n)).status).toBe(404)
  })
})
