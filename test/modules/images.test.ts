import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { LocalAccount } from 'viem'
import { parse } from '../../app/config.js'
import { ConfigError } from '../../core/Errors.js'
import * as Price from '../../core/Price.js'
import type { Claim } from '../../core/Queue.js'
import { manifest } from '../../modules/images/index.js'
import * as Service from '../../modules/images/service.js'
import { refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'
import { replicateStub, webhookSecret } from '../support/replicate.js'

const openaiKey = 'sk-images-stand-in'
const replicateToken = 'r8_images_token'
const replicate = replicateStub({ token: replicateToken })

/** A PNG's first bytes (its signature and an IHDR header): what the image host serves. */
const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1])

/** What the images stand-in received: the path, the JSON body or the multipart form's fields. */
const received: { path: string; authorization: string | null; json?: any; form?: Record<string, unknown> }[] = []

/**
 * An OpenAI images API stand-in, as its reference documents it: `POST /v1/images/generations` (JSON) and
 * `POST /v1/images/edits` (multipart), answering `{ created, data: [...] }` (URLs with `revised_prompt` for DALL-E,
 * `b64_json` with `usage` for GPT Image); a prompt with `refuse` gets the safety system's 400, one with `crash` a 500.
 */
const images = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname
    const authorization = request.headers.get('authorization')
    let prompt = ''
    let model = ''
    let n = 1
    if (path === '/v1/images/generations') {
      const json = await request.json()
      received.push({ path, authorization, json })
      ;({ prompt, model } = json)
      n = json.n ?? 1
    } else if (path === '/v1/images/edits') {
      const form = await request.formData()
      const fields: Record<string, unknown> = {}
      for (const [name, value] of form.entries()) {
        const file = value as unknown as File
        fields[name] =
          typeof value === 'string'
            ? value
            : { name: file.name, type: file.type, bytes: [...new Uint8Array(await file.arrayBuffer())] }
      }
      received.push({ path, authorization, form: fields })
      prompt = String(fields.prompt)
      model = String(fields.model)
      n = Number(fields.n)
    } else return Response.json({ error: { message: 'Not found', type: 'invalid_request_error' } }, { status: 404 })
    if (authorization !== `Bearer ${openaiKey}`)
      return Response.json(
        { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } },
        { status: 401 },
      )
    if (prompt.includes('refuse'))
      return Response.json(
        {
          error: {
            code: 'content_policy_violation',
            message: 'Your request was rejected as a result of our safety system.',
            param: null,
            type: 'invalid_request_error',
          },
        },
        { status: 400 },
      )
    if (prompt.includes('crash'))
      return Response.json({ error: { message: 'The server had an error.', type: 'server_error' } }, { status: 500 })
    const data = Array.from({ length: n }, (_, index) =>
      model.startsWith('gpt-image')
        ? { b64_json: btoa(`image ${index}`) }
        : { url: `https://images.example/${index}.png`, revised_prompt: `${prompt}, refined` },
    )
    return Response.json({
      created: 1_713_833_628,
      data,
      ...(model.startsWith('gpt-image') ? { usage: { input_tokens: 50, output_tokens: 50, total_tokens: 100 } } : {}),
    })
  },
})

/** The host of the images to edit: a PNG, a JPEG, and nothing at any other path. */
const host = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname
    if (path === '/cat.png' || path === '/mask.png')
      return new Response(png, { headers: { 'content-type': 'image/png' } })
    if (path === '/cat.jpg') return new Response(png, { headers: { 'content-type': 'image/jpeg' } })
    return new Response('not found', { status: 404 })
  },
})
const hosted = (path: string) => `http://127.0.0.1:${host.port}${path}`

let gateway: Awaited<ReturnType<typeof paidGateway>>
let unconfigured: Awaited<ReturnType<typeof paidGateway>>
let payer: LocalAccount

beforeAll(async () => {
  ;[gateway, unconfigured] = await Promise.all([
    paidGateway({
      env: {
        IMAGES_UPSTREAM_URL: `http://127.0.0.1:${images.port}/v1`,
        IMAGES_UPSTREAM_KEY: openaiKey,
        REPLICATE_API_TOKEN: replicateToken,
        REPLICATE_URL: replicate.url,
        REPLICATE_WEBHOOK_SECRET: webhookSecret,
        PUBLIC_URL: origin,
        OUTBOUND_ALLOW: '127.0.0.1',
      },
    }),
    // OpenAI's own URL without a key: unconfigured (the test harness points every public URL at a closed port).
    paidGateway({ env: { IMAGES_UPSTREAM_URL: 'https://api.openai.com/v1' } }),
  ])
  payer = gateway.account(6)
})
afterAll(async () => {
  await Promise.all([gateway?.close(), unconfigured?.close()])
  replicate.stop()
  images.stop(true)
  host.stop(true)
})

const status = (id: string, signer = payer) => gateway.paid(signer, 'GET', `/api/v1/image/status/${id}`)
const unpaid = (target: Awaited<ReturnType<typeof paidGateway>>, path: string, body: unknown) =>
  target.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/** The amount the 402 of an unpaid call asks for `body`, in atomic USDC. */
async function quoted(path: string, body: unknown): Promise<bigint> {
  const response = await unpaid(gateway, path, body)
  expect(response.status).toBe(402)
  return BigInt(decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).accepts[0]!.amount)
}

/** `POST path` paid the amount its 402 quotes, with an authorization valid `seconds` (a job's window). */
async function paidAtQuote(signer: LocalAccount, path: string, body: unknown, seconds = 120) {
  const header = await gateway.presigned({
    signer,
    value: await quoted(path, body),
    validBefore: BigInt(Math.floor(Date.now() / 1000) + seconds),
  })
  return gateway.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'PAYMENT-SIGNATURE': header, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** A generation paid its quote with an authorization valid through its window (a FLUX or SDXL job's). */
const generate = (body: unknown, signer = payer) => paidAtQuote(signer, '/api/v1/image/generate', body, 2_000)
const edit = (body: unknown, signer = payer) => paidAtQuote(signer, '/api/v1/image/edit', body)

/** The stand-in's answer of one image drawn by `model` from `prompt`, as the family answers it. */
const drawnOnce = (model: string, prompt: string) => ({
  source: 'openai',
  model,
  status: 'succeeded',
  created: 1_713_833_628,
  images: [{ url: 'https://images.example/0.png', revised_prompt: `${prompt}, refined` }],
})

/** Each body of `cases`, sent unpaid to `path`, is a 400 naming its field: judged before any payment. */
async function namesField(path: string, cases: readonly (readonly [unknown, string])[]) {
  for (const [body, field] of cases) {
    const problem = await refused(await unpaid(gateway, path, body), 400)
    expect([body, problem.field]).toEqual([body, field])
  }
}

describe('POST /api/v1/image/generate', () => {
  test('default: unpaid, 402 at the original gateway’s 0.06, its offer valid past a job’s timeout', async () => {
    const response = await unpaid(gateway, '/api/v1/image/generate', { prompt: 'a lake' })
    expect(response.status).toBe(402)
    const accepted = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).accepts[0]!
    expect(accepted.amount).toBe('60000')
    expect(accepted.maxTimeoutSeconds).toBe(2400)
  })

  test('behavior: DALL-E 3 by default, with the original gateway’s defaults, answered at once for 0.06', async () => {
    const before = await gateway.balance(payer.address)
    const response = await generate({ prompt: 'a serene mountain lake at sunset' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(drawnOnce('dall-e-3', 'a serene mountain lake at sunset'))
    expect(received.at(-1)).toEqual({
      path: '/v1/images/generations',
      authorization: `Bearer ${openaiKey}`,
      json: {
        model: 'dall-e-3',
        prompt: 'a serene mountain lake at sunset',
        n: 1,
        size: '1024x1024',
        quality: 'standard',
        style: 'vivid',
      },
    })
    expect(before - (await gateway.balance(payer.address))).toBe(60_000n)
  })

  test('behavior: GPT Image draws several, answered in base64, without a style, charged exactly its quote', async () => {
    const before = await gateway.balance(payer.address)
    const response = await generate({
      prompt: 'two foxes',
      model: 'gpt-image-1',
      n: 2,
      quality: 'high',
      size: '1536x1024',
    })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.images).toEqual([
      { url: null, b64_json: btoa('image 0'), revised_prompt: null },
      { url: null, b64_json: btoa('image 1'), revised_prompt: null },
    ])
    expect(received.at(-1)!.json).toEqual({
      model: 'gpt-image-1',
      prompt: 'two foxes',
      n: 2,
      size: '1536x1024',
      quality: 'high',
    })
    // Two images at 0.25 and 9 prompt bytes at 5 units, plus 50%.
    expect(before - (await gateway.balance(payer.address))).toBe(750_068n)
  })

  test('error: what a model does not take is a 400 naming the field, before any payment', async () => {
    await namesField('/api/v1/image/generate', [
      [{ prompt: 'x', model: 'midjourney' }, 'model'],
      [{ prompt: 'x', n: 2 }, 'n'],
      [{ prompt: 'x', size: '512x512' }, 'size'],
      [{ prompt: 'x', quality: 'low' }, 'quality'],
      [{ prompt: 'x', model: 'gpt-image-1', style: 'vivid' }, 'style'],
      [{ prompt: 'x'.repeat(1001), model: 'dall-e-2' }, 'prompt'],
      [{ prompt: 'x', model: 'flux-schnell', size: '1000x1000' }, 'size'],
      [{ prompt: 'x', n: 5 }, 'n'],
      [{ model: 'dall-e-3' }, 'prompt'],
    ])
  })

  test('error: the upstream’s refusal or failure charges nothing', async () => {
    const before = await gateway.balance(payer.address)
    const rejected = await refused(await generate({ prompt: 'please refuse this' }), 400)
    expect(rejected.code).toBe('upstream_rejected')
    expect(rejected.detail).toContain('safety system')
    expect((await refused(await generate({ prompt: 'crash now' }), 502)).code).toBe('upstream_failed')
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('behavior: unconfigured, 503 before payment naming what to set', async () => {
    const problem = await refused(await unpaid(unconfigured, '/api/v1/image/generate', { prompt: 'a lake' }), 503)
    expect(problem.detail).toContain('IMAGES_UPSTREAM_KEY')
    const edited = await refused(
      await unpaid(unconfigured, '/api/v1/image/edit', { prompt: 'x', image_url: hosted('/cat.png') }),
      503,
    )
    expect(edited.detail).toContain('IMAGES_UPSTREAM_KEY')
  })
})

describe('prices', () => {
  test('behavior: generate asks one image’s price (OpenAI’s plus 50%) times n, plus GPT Image’s prompt', async () => {
    const cases: (readonly [Record<string, unknown>, bigint])[] = [
      // dall-e-3, standard, 1024x1024: 0.04 and 50%, the original's 0.06.
      [{ prompt: 'a lake' }, 60_000n],
      [{ prompt: 'a lake', quality: 'hd', size: '1792x1024' }, 180_000n],
      [{ prompt: 'a lake', quality: 'hd' }, 120_000n],
      [{ prompt: 'a lake', size: '1024x1792', style: 'natural' }, 120_000n],
      [{ prompt: 'a lake', model: 'dall-e-2', n: 4 }, 120_000n],
      // 0.024, held at the original's 0.06.
      [{ prompt: 'a lake', model: 'dall-e-2', size: '256x256' }, 60_000n],
      // Quality `auto` is priced as `high`: (0.167 and 6 prompt bytes at 5 units) and 50%.
      [{ prompt: 'a lake', model: 'gpt-image-1' }, 250_545n],
      [{ prompt: 'a lake', model: 'gpt-image-1', quality: 'medium', size: '1024x1536', n: 4 }, 378_045n],
      [{ prompt: 'a lake', model: 'gpt-image-1', quality: 'low', size: 'auto' }, 60_000n],
      // 20,000 prompt bytes at 5 units each: the prompt is paid for.
      [{ prompt: 'é'.repeat(10_000), model: 'gpt-image-1', quality: 'low' }, 166_500n],
      [{ prompt: 'a lake', model: 'gpt-image-2', quality: 'high', size: '1536x1024' }, 316_545n],
      [{ prompt: 'a lake', model: 'gpt-image-2', quality: 'low', n: 4 }, 60_000n],
      // FLUX and SDXL keep the original's 0.06 a call.
      [{ prompt: 'a lake', model: 'flux-schnell', n: 4 }, 60_000n],
      [{ prompt: 'a lake', model: 'sdxl', size: '768x768', n: 4 }, 60_000n],
    ]
    for (const [body, amount] of cases)
      expect([body, await quoted('/api/v1/image/generate', body)]).toEqual([body, amount])
  })

  test('behavior: edit asks the same, with GPT Image’s input images, at the upstream’s defaults', async () => {
    const image_url = hosted('/cat.png')
    const mask_url = hosted('/mask.png')
    const cases: (readonly [Record<string, unknown>, bigint])[] = [
      // dall-e-2, 1024x1024: 0.03, held at the original's 0.05.
      [{ image_url, prompt: 'x' }, 50_000n],
      [{ image_url, prompt: 'x', n: 4 }, 120_000n],
      // GPT Image's quality and size `auto` (sent as none) at their dearest, and one input image.
      [{ image_url, prompt: 'add a hat', model: 'gpt-image-1' }, 390_068n],
      [{ image_url, mask_url, prompt: 'x', model: 'gpt-image-1', quality: 'medium', size: '1024x1024' }, 93_008n],
      [{ image_url, prompt: 'x', model: 'gpt-image-2', quality: 'low', size: '1536x1024' }, 81_008n],
    ]
    for (const [body, amount] of cases) expect([body, await quoted('/api/v1/image/edit', body)]).toEqual([body, amount])
  })

  test('error: an option the table has no price for is a 400 naming it, before any payment', async () => {
    // GPT Image 2 at size `auto` may draw up to 3840 px; an edit that names no size is drawn at `auto`.
    await namesField('/api/v1/image/generate', [[{ prompt: 'x', model: 'gpt-image-2', size: 'auto' }, 'size']])
    await namesField('/api/v1/image/edit', [
      [{ image_url: hosted('/cat.png'), prompt: 'x', model: 'gpt-image-2' }, 'size'],
    ])
  })

  test('security: the default’s 0.06 does not pay for an hd image; nothing is charged', async () => {
    const before = await gateway.balance(payer.address)
    const header = await gateway.presigned({ signer: payer, value: 60_000n })
    const response = await gateway.fetch(`${origin}/api/v1/image/generate`, {
      method: 'POST',
      headers: { 'PAYMENT-SIGNATURE': header, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a lake', quality: 'hd', size: '1792x1024' }),
    })
    expect(response.status).toBe(402)
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('behavior: discovery states the rule and its bounds', async () => {
    const manifest = await (await gateway.fetch(`${origin}/.well-known/x402.json`)).json()
    const price = (path: string) => manifest.resources.find((resource: any) => resource.path === path).price
    // The dearest: four gpt-image-1 images at 0.25 with 96,000 prompt bytes at 5 units (and an edit's two images).
    expect(price('/api/v1/image/generate')).toMatchObject({
      mode: 'varies',
      minAmount: '0.060000',
      maxAmount: '2.220000',
      currency: 'USD',
    })
    expect(price('/api/v1/image/generate').rule).toContain('OpenAI')
    expect(price('/api/v1/image/edit')).toMatchObject({ mode: 'varies', minAmount: '0.050000', maxAmount: '2.250000' })
  })
})

describe('IMAGES_PRICES and IMAGES_MARGIN_PERCENT', () => {
  const defaults = { IMAGES_MARGIN_PERCENT: 50, IMAGES_JOB_TIMEOUT_SECONDS: 1800 }
  /** The amount the family's rule asks for `body` with `env`. */
  function amount(env: Record<string, unknown>, key: string, body: Record<string, unknown>): bigint {
    const rules = (manifest.prices as (env: unknown) => Price.Rules)({ ...defaults, ...env })
    return Price.quote({ price: { type: 'varies' }, rule: rules[key], input: { body, query: {}, params: {} } })
  }

  test('behavior: entries over the table and the margin change the price, never below the original’s', () => {
    const env = {
      IMAGES_PRICES: 'gpt-image-2:high:auto=400000, dall-e-3:hd:1792x1024=100000',
      IMAGES_MARGIN_PERCENT: 20,
    }
    const generate = Service.keys.generate
    expect(amount(env, generate, { prompt: 'a lake', model: 'gpt-image-2', quality: 'high', size: 'auto' })).toBe(
      480_036n,
    )
    expect(amount(env, generate, { prompt: 'a lake', quality: 'hd', size: '1792x1024' })).toBe(120_000n)
    // 0.04 and 20% is 0.048: the original's 0.06 stands.
    expect(amount(env, generate, { prompt: 'a lake' })).toBe(60_000n)
    expect(amount({}, generate, { prompt: 'a lake', quality: 'hd', size: '1792x1024' })).toBe(180_000n)
  })

  test('error: a malformed entry, or one for what the images API models do not take, is refused at boot', () => {
    for (const text of [
      'dall-e-3=1',
      'dall-e-3:hd:1024x1024=-1',
      'dall-e-3:hd:1024x1024=0.1',
      'dall-e-3:ultra:1024x1024=1',
      'dall-e-3:hd:512x512=1',
      'flux-schnell::1024x1024=1',
      'flux-schnell:standard:1024x1024=1',
      'midjourney:hd:1024x1024=1',
    ])
      expect(() => amount({ IMAGES_PRICES: text }, Service.keys.generate, { prompt: 'x' })).toThrow(ConfigError)
    for (const margin of ['-1', 'half', '1001'])
      expect(() => parse({ IMAGES_MARGIN_PERCENT: margin })).toThrow(ConfigError)
  })
})

describe('asynchronous generations (FLUX, SDXL on Replicate)', () => {
  /** Starts a generation; its job and Replicate's prediction. */
  async function start(body: unknown) {
    const response = await generate(body)
    expect(response.status).toBe(202)
    const job = await response.json()
    return { job, prediction: [...replicate.predictions.values()].at(-1)! }
  }

  test('behavior: FLUX is held until it succeeds, then settles 0.06; its payer reads the images', async () => {
    const before = await gateway.balance(payer.address)
    const { job, prediction } = await start({ prompt: 'a city', model: 'flux-schnell', size: '1344x768', n: 2 })
    expect(job).toMatchObject({
      source: 'replicate',
      status: 'queued',
      model: 'flux-schnell',
      images: [],
      statusUrl: `/api/v1/image/status/${job.id}`,
      prediction_id: prediction.id,
      payment: { state: 'held', amount: '0.060000' },
    })
    expect(prediction).toMatchObject({
      model: 'black-forest-labs/flux-schnell',
      input: { prompt: 'a city', num_outputs: 2, aspect_ratio: '16:9' },
    })
    expect(await gateway.balance(payer.address)).toBe(before)
    const outputs = ['https://replicate.delivery/a.webp', 'https://replicate.delivery/b.webp']
    replicate.succeed(prediction.id, outputs)
    const { url, init } = replicate.webhook(prediction.id)
    expect(url).toBe(`${origin}/callbacks/images/${job.id}`)
    expect((await gateway.fetch(url, init)).status).toBe(200)
    expect(await gateway.balance(payer.address)).toBe(before - 60_000n)
    const read = await (await status(job.id)).json()
    expect(read).toMatchObject({ id: job.id, status: 'succeeded', images: outputs, payment: { state: 'settled' } })
  })

  test('behavior: a failed SDXL generation releases its payment: the balance is unchanged', async () => {
    const before = await gateway.balance(payer.address)
    const { job, prediction } = await start({ prompt: 'a dog', model: 'sdxl', size: '768x768' })
    expect(prediction).toMatchObject({
      version: '39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b',
      input: { prompt: 'a dog', num_outputs: 1, width: 768, height: 768 },
    })
    replicate.fail(prediction.id, 'NSFW content detected')
    const worker = gateway.workers.find((candidate) => candidate.queue === 'image-jobs')!
    const id = job.id as string
    expect(await worker.run({ queue: 'image-jobs', id, payload: { id } } as unknown as Claim)).toEqual({ done: true })
    expect(await gateway.balance(payer.address)).toBe(before)
    const read = await (await status(id)).json()
    expect(read).toMatchObject({ status: 'failed', images: [], payment: { state: 'released' } })
  })

  test('security: another payer’s generation is 404, and none that is not a job id', async () => {
    const { job } = await start({ prompt: 'a cat', model: 'flux-schnell' })
    expect((await status(job.id, gateway.account(7))).status).toBe(404)
    expect((await gateway.paid(payer, 'GET', '/api/v1/image/status/123')).status).toBe(400)
  })
})

describe('POST /api/v1/image/edit', () => {
  test('behavior: the image and mask fetched through the guard, edited by dall-e-2 by default, for 0.05', async () => {
    const before = await gateway.balance(payer.address)
    const response = await edit({
      image_url: hosted('/cat.png'),
      mask_url: hosted('/mask.png'),
      prompt: 'make it watercolor',
      size: '512x512',
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(drawnOnce('dall-e-2', 'make it watercolor'))
    expect(received.at(-1)).toEqual({
      path: '/v1/images/edits',
      authorization: `Bearer ${openaiKey}`,
      form: {
        image: { name: 'image.png', type: 'image/png', bytes: [...png] },
        mask: { name: 'mask.png', type: 'image/png', bytes: [...png] },
        prompt: 'make it watercolor',
        model: 'dall-e-2',
        n: '1',
        size: '512x512',
      },
    })
    expect(before - (await gateway.balance(payer.address))).toBe(50_000n)
  })

  test('behavior: GPT Image edits a JPEG, charged exactly its quote', async () => {
    const before = await gateway.balance(payer.address)
    const response = await edit({ image_url: hosted('/cat.jpg'), prompt: 'add a hat', model: 'gpt-image-1' })
    expect(response.status).toBe(200)
    expect(received.at(-1)!.form).toMatchObject({ image: { name: 'image.jpeg', type: 'image/jpeg' } })
    expect(received.at(-1)!.form).not.toHaveProperty('quality')
    expect(before - (await gateway.balance(payer.address))).toBe(390_068n)
  })

  test('behavior: a quality asked for is sent, and priced', async () => {
    const before = await gateway.balance(payer.address)
    const body = { image_url: hosted('/cat.png'), prompt: 'x', model: 'gpt-image-1', quality: 'low', size: '1024x1024' }
    expect((await edit(body)).status).toBe(200)
    expect(received.at(-1)!.form).toMatchObject({ quality: 'low', size: '1024x1024', model: 'gpt-image-1' })
    // 0.011 and one input image at 0.01, and 50%: 0.0315, held at the original's 0.05.
    expect(before - (await gateway.balance(payer.address))).toBe(50_000n)
  })

  test('error: a URL the guard refuses, or a model that does not edit, is a 400 before any payment', async () => {
    await namesField('/api/v1/image/edit', [
      [{ image_url: 'http://10.0.0.1/cat.png', prompt: 'x' }, 'image_url'],
      [{ image_url: hosted('/cat.png'), mask_url: 'ftp://example.com/m.png', prompt: 'x' }, 'mask_url'],
      [{ image_url: hosted('/cat.png'), prompt: 'x', model: 'dall-e-3' }, 'model'],
      [{ image_url: hosted('/cat.png'), prompt: 'x', quality: 'hd' }, 'quality'],
    ])
  })

  test('error: an image that is missing or of a type the model does not edit is a 400 that charges nothing', async () => {
    const before = await gateway.balance(payer.address)
    const missing = await refused(await edit({ image_url: hosted('/nothing.png'), prompt: 'x' }), 400)
    expect(missing).toMatchObject({ field: 'image_url' })
    expect(missing.detail).toContain('HTTP 404')
    const jpeg = await refused(await edit({ image_url: hosted('/cat.jpg'), prompt: 'x' }), 400)
    expect(jpeg.detail).toContain('image/png')
    expect(await gateway.balance(payer.address)).toBe(before)
  })
})
