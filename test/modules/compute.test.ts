import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import type { LocalAccount } from 'viem'
import * as Compute from '../../core/Compute.js'
import { outboxQueue } from '../../core/Events.js'
import type { Claim } from '../../core/Queue.js'
import { computeModels as models } from '../support/compute.js'
import { openaiStub } from '../support/openai.js'
import { origin, paidGateway } from '../support/paid.js'
import { replicateStub, webhookSecret } from '../support/replicate.js'

const token = 'r8_test_token'
const openai = openaiStub()
const replicate = replicateStub({ token })

let gateway: Awaited<ReturnType<typeof paidGateway>>
let payer: LocalAccount
let other: LocalAccount

beforeAll(async () => {
  gateway = await paidGateway({
    env: {
      COMPUTE_MODELS: JSON.stringify(models),
      COMPUTE_UPSTREAM_URL: openai.url,
      REPLICATE_API_TOKEN: token,
      REPLICATE_URL: replicate.url,
      REPLICATE_WEBHOOK_SECRET: webhookSecret,
      PUBLIC_URL: origin,
      OUTBOUND_ALLOW: '127.0.0.1',
    },
  })
  payer = gateway.account(3)
  other = gateway.account(4)
})

afterAll(async () => {
  await gateway?.close()
  openai.stop()
  replicate.stop()
})

/** The 402 of a call: its status and the amount its x402 offer asks. */
async function offer(path: string, body: unknown) {
  const response = await gateway.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const header = response.headers.get('PAYMENT-REQUIRED')
  const required = header ? decodePaymentRequiredHeader(header) : undefined
  return {
    status: response.status,
    amount: required ? BigInt(required.accepts[0]!.amount) : undefined,
    window: required?.accepts[0]?.maxTimeoutSeconds,
    body: await response.json(),
  }
}

/** Pays `amount` for `method path` with a fresh authorization valid for `seconds`. */
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

/** Runs the compute worker once on a job, as the queue would. */
async function poll(id: string) {
  const worker = gateway.workers.find((candidate) => candidate.queue === 'compute-jobs')!
  return worker.run({ queue: 'compute-jobs', id, payload: { id } } as unknown as Claim)
}

describe('compute: catalog', () => {
  test('default: models lists the operator’s catalog with prices, free', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/compute/models?kind=image`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      count: 1,
      models: [
        {
          id: 'flux',
          kind: 'image',
          prices: { '1024x1024': '0.040000', '512x512': '0.020000' },
          defaultSize: '1024x1024',
        },
      ],
    })
  })

  test('behavior: estimate states what the 402 asks, for a cheap and an expensive model, and a batch', async () => {
    for (const [model, expected] of [
      ['cheap-chat', 3_000n],
      ['big-chat', 100_000n],
    ] as const) {
      const estimate = await (
        await gateway.fetch(`${origin}/api/v1/compute/estimate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model }),
        })
      ).json()
      expect(BigInt(estimate.amount)).toBe(expected)
      const required = await offer('/api/v1/compute/text-inference', { model, prompt: 'Hi' })
      expect(required.status).toBe(402)
      expect(required.amount).toBe(expected)
    }
    const batch = { jobs: [{ model: 'cheap-chat' }, { model: 'big-chat' }, { model: 'flux', size: '512x512' }] }
    const estimate = await (
      await gateway.fetch(`${origin}/api/v1/compute/estimate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      })
    ).json()
    // 0.003 + 0.10 + 0.02 = 0.123, less 10%: 0.1107.
    expect(estimate).toMatchObject({ sum: '0.123000', discount: '0.012300', price: '0.110700', amount: '110700' })
    expect(estimate).toMatchObject({
      subtotal_usdc: '0.123000',
      batch_discount_usdc: '0.012300',
      total_usdc: '0.110700',
    })
  })

  test("behavior: estimate of jobs by the original's type alone (its MCP server's spraay_compute_estimate) prices each type's default model", async () => {
    const estimate = async (jobs: unknown) =>
      gateway.fetch(`${origin}/api/v1/compute/estimate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jobs }),
      })
    const typed = await (await estimate([{ type: 'text-inference' }, { type: 'embeddings', model: 'auto' }])).json()
    // cheap-chat 0.003 and embed 0.005, less 10%.
    expect(typed).toMatchObject({ sum: '0.008000', total_usdc: '0.007200' })
    const neither = await estimate([{ type: 'text-inference' }, { size: '512x512' }])
    expect(neither.status).toBe(400)
    expect((await neither.json()).field).toBe('jobs.1.model')
  })

  test('error: an unknown model, a model of another kind, a size not priced, too many tokens: 400 before any 402', async () => {
    for (const [path, body, field] of [
      ['/api/v1/compute/text-inference', { model: 'nope', prompt: 'Hi' }, 'model'],
      ['/api/v1/compute/text-inference', { model: 'embed', prompt: 'Hi' }, 'model'],
      ['/api/v1/compute/image-generation', { model: 'flux', prompt: 'a cat', size: '640x480' }, 'size'],
      ['/api/v1/compute/text-inference', { model: 'cheap-chat', prompt: 'Hi', max_tokens: 2048 }, 'max_tokens'],
    ] as const) {
      const refused = await offer(path, body)
      expect(refused.status).toBe(400)
      expect(refused.body.field).toBe(field)
    }
  })

  test('error: a batch of 51 jobs is 400 before payment', async () => {
    const jobs = Array.from({ length: 51 }, () => ({
      endpoint: 'text-inference',
      body: { model: 'cheap-chat', prompt: 'Hi' },
    }))
    expect((await offer('/api/v1/compute/batch', { jobs })).status).toBe(400)
  })
})

describe('compute: answered at once', () => {
  test('behavior: a cheap and an expensive model, from 402 to receipt, each moving exactly its price', async () => {
    for (const [model, amount] of [
      ['cheap-chat', 3_000n],
      ['big-chat', 100_000n],
    ] as const) {
      const before = await gateway.balance(payer.address)
      const response = await pay(payer, 'POST', '/api/v1/compute/text-inference', amount, { model, prompt: 'Hi' })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ model, kind: 'text', text: 'Hello there.', finishReason: 'stop' })
      const receipt = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
      expect(receipt.success).toBe(true)
      expect(await gateway.balance(payer.address)).toBe(before - amount)
      expect(openai.last().body.model).toBe(model === 'cheap-chat' ? 'small-model' : 'large-model')
    }
  })

  test('behavior: embeddings, speech and transcription in the family’s shapes', async () => {
    const embedded = await pay(payer, 'POST', '/api/v1/compute/embeddings', 5_000n, { model: 'embed', input: 'Hi' })
    expect(await embedded.json()).toMatchObject({
      embeddings: [[0.25, -0.5, 0.125]],
      // The original gateway's `data`, as the OpenAI API lists embeddings.
      data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 0.125] }],
    })
    const spoken = await pay(payer, 'POST', '/api/v1/compute/text-to-speech', 30_000n, {
      model: 'speak',
      input: 'Hi',
      voice: 'alloy',
      format: 'wav',
    })
    const audio = await spoken.json()
    expect(audio.contentType).toBe('audio/wav')
    expect(atob(audio.audio).slice(0, 4)).toBe('RIFF')
    const heard = await pay(payer, 'POST', '/api/v1/compute/speech-to-text', 20_000n, {
      model: 'listen',
      audio: audio.audio,
      filename: 'hi.wav',
    })
    expect(await heard.json()).toMatchObject({ text: 'heard 44 bytes of hi.wav' })
  })

  test('behavior: a batch pays the discounted sum once', async () => {
    const body = {
      jobs: [
        { endpoint: 'text-inference', body: { model: 'cheap-chat', prompt: 'Hi' } },
        { endpoint: 'embeddings', body: { model: 'embed', input: ['a', 'b'] } },
      ],
    }
    openai.state.answer = (request) =>
      request.path === '/v1/embeddings'
        ? Response.json({
            object: 'list',
            data: [
              { object: 'embedding', index: 1, embedding: [2] },
              { object: 'embedding', index: 0, embedding: [1] },
            ],
          })
        : undefined
    const required = await offer('/api/v1/compute/batch', body)
    expect(required.amount).toBe(7_200n)
    const before = await gateway.balance(payer.address)
    const response = await pay(payer, 'POST', '/api/v1/compute/batch', 7_200n, body)
    openai.reset()
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      count: 2,
      results: [{ text: 'Hello there.' }, { embeddings: [[1], [2]] }],
    })
    expect(await gateway.balance(payer.address)).toBe(before - 7_200n)
  })

  test('error: an upstream failure is never charged', async () => {
    openai.state.answer = () => Response.json({ error: { message: 'overloaded' } }, { status: 503 })
    const before = await gateway.balance(payer.address)
    const response = await pay(payer, 'POST', '/api/v1/compute/text-inference', 3_000n, {
      model: 'cheap-chat',
      prompt: 'Hi',
    })
    openai.reset()
    expect(response.status).toBeGreaterThanOrEqual(500)
    expect(await gateway.balance(payer.address)).toBe(before)
  })
})

describe('compute: asynchronous jobs', () => {
  /** Starts an image job paid by `signer`: its id and Replicate's prediction id. */
  async function startImage(signer: LocalAccount, size = '1024x1024') {
    const amount = size === '1024x1024' ? 40_000n : 20_000n
    const response = await pay(
      signer,
      'POST',
      '/api/v1/compute/image-generation',
      amount,
      { model: 'flux', prompt: 'a cat', size },
      2_000,
    )
    expect(response.status).toBe(202)
    expect(response.headers.get('PAYMENT-RESPONSE')).toBeNull()
    const job = await response.json()
    expect(job).toMatchObject({ status: 'queued', payment: { state: 'held' }, output: null })
    const prediction = [...replicate.predictions.values()].at(-1)!
    return { id: job.id as string, prediction: prediction.id, amount }
  }

  test('behavior: the offer of an asynchronous endpoint stays valid past the job timeout', async () => {
    const required = await offer('/api/v1/compute/image-generation', { model: 'flux', prompt: 'a cat' })
    expect(required.window).toBe(1800 + 600)
  })

  test('behavior: a succeeded job, told by a signed webhook, settles exactly its price; status shows the receipt', async () => {
    const before = await gateway.balance(payer.address)
    const { id, prediction, amount } = await startImage(payer, '512x512')
    expect(replicate.predictions.get(prediction)).toMatchObject({
      model: 'black-forest-labs/flux-schnell',
      input: { prompt: 'a cat', width: 512, height: 512 },
      webhook: `${origin}/callbacks/compute/${id}`,
    })
    expect(await gateway.balance(payer.address)).toBe(before)
    replicate.succeed(prediction, ['https://replicate.delivery/cat.png'])
    const { url, init } = replicate.webhook(prediction)
    const delivered = await gateway.fetch(url, init)
    expect(delivered.status).toBe(200)
    expect(await gateway.balance(payer.address)).toBe(before - amount)
    const status = await pay(payer, 'GET', `/api/v1/compute/status/${id}`, 1_000n)
    const view = await status.json()
    expect(view).toMatchObject({
      status: 'succeeded',
      output: ['https://replicate.delivery/cat.png'],
      payment: { state: 'settled', amount: '0.020000' },
    })
    expect(decodePaymentResponseHeader(view.payment.receipt['PAYMENT-RESPONSE']).transaction).toBe(
      view.payment.transaction,
    )
    expect((await gateway.queue.get(outboxQueue, `job:compute:${id}`))?.payload).toMatchObject({
      type: 'job.completed',
      owner: payer.address,
      data: {
        jobId: id,
        kind: 'compute',
        status: 'succeeded',
        result: ['https://replicate.delivery/cat.png'],
        payment: { state: 'settled', transaction: view.payment.transaction },
      },
    })
  })

  test('behavior: a failed job (found by polling) leaves the payer’s balance unchanged', async () => {
    const before = await gateway.balance(payer.address)
    const { id, prediction } = await startImage(payer)
    replicate.process(prediction)
    expect(await poll(id)).toMatchObject({ retryAt: expect.any(Date) })
    replicate.fail(prediction, 'CUDA out of memory')
    expect(await poll(id)).toEqual({ done: true })
    expect(await gateway.balance(payer.address)).toBe(before)
    const view = await (await pay(payer, 'GET', `/api/v1/compute/status/${id}`, 1_000n)).json()
    expect(view).toMatchObject({
      status: 'failed',
      error: 'CUDA out of memory',
      output: null,
      payment: { state: 'released' },
    })
    expect((await gateway.queue.get(outboxQueue, `job:compute:${id}`))?.payload).toMatchObject({
      type: 'job.failed',
      data: {
        jobId: id,
        kind: 'compute',
        status: 'failed',
        error: 'CUDA out of memory',
        payment: { state: 'released' },
      },
    })
  })

  test('behavior: a job past its deadline is canceled upstream and its payment released', async () => {
    const before = await gateway.balance(payer.address)
    const { id, prediction } = await startImage(payer)
    // Time passes: the job's deadline is behind it.
    await gateway.store.update<Compute.JobRecord>(Compute.jobs, id, ({ value }) => ({
      ...value,
      deadline: new Date(Date.now() - 1_000).toISOString(),
    }))
    expect(await poll(id)).toEqual({ done: true })
    expect(replicate.predictions.get(prediction)!.status).toBe('canceled')
    expect(await gateway.balance(payer.address)).toBe(before)
    const record = await gateway.store.get<Compute.JobRecord>(Compute.jobs, id)
    expect(record!.value).toMatchObject({ state: 'failed', payment: { state: 'released' } })
  })

  test('security: a webhook with a bad signature changes nothing; another payer’s job is 404', async () => {
    const { id, prediction } = await startImage(payer)
    replicate.succeed(prediction, ['x'])
    const { url, init } = replicate.webhook(prediction, { secret: `whsec_${btoa('some-other-secret-of-32-bytes!!!')}` })
    expect((await gateway.fetch(url, init)).status).toBe(403)
    expect((await gateway.store.get<Compute.JobRecord>(Compute.jobs, id))!.value.payment.state).toBe('held')
    const stranger = await pay(other, 'GET', `/api/v1/compute/status/${id}`, 1_000n)
    expect(stranger.status).toBe(404)
  })

  test('security: the same authorization cannot start a second job', async () => {
    const header = await gateway.presigned({
      signer: payer,
      value: 20_000n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 2_000),
    })
    const send = (prompt: string) =>
      gateway.fetch(`${origin}/api/v1/compute/image-generation`, {
        method: 'POST',
        headers: { 'PAYMENT-SIGNATURE': header, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'flux', prompt, size: '512x512' }),
      })
    expect((await send('one')).status).toBe(202)
    expect((await send('two')).status).toBe(402)
  })
})

describe('compute: the original gateway’s calls', () => {
  test('behavior: text-inference without a model runs the kind’s default at its price, with the original’s answer fields', async () => {
    const body = { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100, temperature: 0.7, stream: false }
    expect((await offer('/api/v1/compute/text-inference', body)).amount).toBe(3_000n)
    const before = await gateway.balance(payer.address)
    const response = await pay(payer, 'POST', '/api/v1/compute/text-inference', 3_000n, body)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      provider: 'openai',
      model: 'cheap-chat',
      model_label: 'cheap-chat',
      price_usdc: '0.003000',
      choices: [{ message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' }],
    })
    expect(await gateway.balance(payer.address)).toBe(before - 3_000n)
    expect(openai.last().body.model).toBe('small-model')
  })

  test('behavior: image-generation with width and height prices as the size it names and starts that size', async () => {
    const original = { prompt: 'a cat', width: 512, height: 512, num_outputs: 1 }
    expect((await offer('/api/v1/compute/image-generation', original)).amount).toBe(20_000n)
    expect(
      (await offer('/api/v1/compute/image-generation', { model: 'flux', prompt: 'a cat', size: '512x512' })).amount,
    ).toBe(20_000n)
    const response = await pay(payer, 'POST', '/api/v1/compute/image-generation', 20_000n, original, 2_000)
    expect(response.status).toBe(202)
    const job = await response.json()
    const prediction = [...replicate.predictions.values()].at(-1)!
    expect(prediction.input).toMatchObject({ prompt: 'a cat', width: 512, height: 512 })
    expect(job).toMatchObject({
      provider: 'replicate',
      model_label: 'flux',
      price_usdc: '0.020000',
      prediction_id: prediction.id,
      poll_url: `/api/v1/compute/status/${job.id}`,
      images: [],
    })
  })

  test('behavior: text-to-speech takes text, speech-to-text fetches audio_url through the guard', async () => {
    const spoken = await pay(payer, 'POST', '/api/v1/compute/text-to-speech', 30_000n, { text: 'Hi', language: 'en' })
    expect(spoken.status).toBe(200)
    const speech = await spoken.json()
    expect(speech).toMatchObject({ provider: 'openai', price_usdc: '0.030000' })
    expect(speech.audio_url).toStartWith('data:audio/')
    const bytes = Uint8Array.from(atob(speech.audio), (char) => char.charCodeAt(0))
    const files = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(bytes) })
    try {
      const heard = await pay(payer, 'POST', '/api/v1/compute/speech-to-text', 20_000n, {
        audio_url: `http://127.0.0.1:${files.port}/clips/hi.wav`,
      })
      expect(heard.status).toBe(200)
      expect(await heard.json()).toMatchObject({
        transcription: `heard ${bytes.byteLength} bytes of hi.wav`,
        model_label: 'listen',
      })
    } finally {
      files.stop(true)
    }
  })

  test('behavior: estimate of type and count, and a batch of typed jobs paying the same discounted sum', async () => {
    const estimate = await (
      await gateway.fetch(`${origin}/api/v1/compute/estimate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'text-inference', count: 10 }),
      })
    ).json()
    expect(estimate).toMatchObject({
      type: 'text-inference',
      model: { id: 'cheap-chat', provider: 'openai' },
      unit_price_usdc: '0.003000',
      quantity: 10,
      subtotal_usdc: '0.030000',
      batch_discount_usdc: '0.003000',
      total_usdc: '0.027000',
    })
    const body = {
      jobs: [
        { type: 'text-inference', messages: [{ role: 'user', content: 'Hi' }] },
        { type: 'embeddings', model: 'embed', input: 'Hi' },
      ],
    }
    expect((await offer('/api/v1/compute/batch', body)).amount).toBe(7_200n)
    const response = await pay(payer, 'POST', '/api/v1/compute/batch', 7_200n, body)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      jobs_submitted: 2,
      jobs_completed: 2,
      jobs_failed: 0,
      subtotal_usdc: '0.008000',
      discount_percent: '10%',
      total_cost_usdc: '0.007200',
      batch_id: expect.stringMatching(/^batch_/),
      results: [
        { job_index: 0, type: 'text-inference', status: 'completed' },
        { job_index: 1, type: 'embeddings', status: 'completed' },
      ],
    })
  })

  test('behavior: models names each type’s default model', async () => {
    const listed = await (await gateway.fetch(`${origin}/api/v1/compute/models`)).json()
    expect(listed).toMatchObject({
      categories: {
        'text-inference': { default_model: 'cheap-chat' },
        'image-generation': { default_model: 'flux', models: [{ id: 'flux', price_usdc: '0.040000' }] },
      },
      total_models: 7,
      max_batch_size: 50,
      batch_discount: '10%',
    })
  })

  test('error: both names of one thing, half a size, a refused audio_url: 400 before any 402', async () => {
    for (const [path, body, field] of [
      ['/api/v1/compute/text-to-speech', { text: 'Hi', input: 'Hi' }, 'text'],
      ['/api/v1/compute/image-generation', { prompt: 'a cat', width: 512 }, 'height'],
      ['/api/v1/compute/image-generation', { prompt: 'a cat', width: 512, height: 512, size: '512x512' }, 'width'],
      ['/api/v1/compute/speech-to-text', { audio_url: 'http://10.0.0.1/a.wav' }, 'audio_url'],
    ] as const) {
      const refused = await offer(path, body)
      expect(refused.status).toBe(400)
      expect(JSON.stringify(refused.body)).toContain(field)
    }
  })
})
