import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as GpuDirect from '../../core/GpuDirect.js'
import * as Service from '../../modules/gpudirect/service.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'

/**
 * A Spraay Direct proxy stand-in, as the original gateway calls one: `GET /health` answers its GPU, VRAM, models and
 * engine while `healthy`; `POST /inference` takes `{ model, input }` with the operator's token in `X-Spraay-Auth` and
 * answers `{ status, output }`, or `failing` (an HTTP status) instead.
 */
function proxy(name: string, models: readonly string[] = ['llama-3.1-8b']) {
  const state = { healthy: true, failing: undefined as number | undefined, token: '' }
  const runs: { headers: Headers; body: { model: string; input: Record<string, unknown> } }[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname
      if (request.method === 'GET' && path === '/health')
        return state.healthy
          ? Response.json({ status: 'ok', gpu: `RTX 4090 (${name})`, vram: 24, models, engine: 'vllm' })
          : Response.json({ status: 'down' }, { status: 503 })
      if (request.method === 'POST' && path === '/inference') {
        if (request.headers.get('x-spraay-auth') !== state.token)
          return Response.json({ error: 'unauthorized' }, { status: 401 })
        const body = (await request.json()) as (typeof runs)[number]['body']
        runs.push({ headers: request.headers, body })
        if (state.failing !== undefined)
          return Response.json({ error: 'CUDA out of memory' }, { status: state.failing })
        return Response.json({ status: 'succeeded', output: `${name}: ${String(body.input.prompt)}` })
      }
      return new Response('not found', { status: 404 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, state, runs, stop: () => server.stop(true) }
}

const model = 'llama-3.1-8b'
const price = 30_000n
const fast = proxy('A')
const slow = proxy('B')
const spare = proxy('C', ['mistral-7b'])
let gateway: Awaited<ReturnType<typeof paidGateway>>
let chainId: number
let payer: LocalAccount
/** Operators' wallets: they sign, and need no funds. */
const wallet = () => privateKeyToAccount(generatePrivateKey())
const operatorB = wallet()
const operatorA = wallet()

beforeAll(async () => {
  // The operator's share is 80% here, so that the share recorded is not simply the price.
  gateway = await paidGateway({ env: { OUTBOUND_ALLOW: '127.0.0.1', GPU_DIRECT_OPERATOR_SHARE_BPS: '8000' } })
  chainId = Number(gateway.terms.network.split(':')[1])
  payer = gateway.account(5)
})

afterAll(async () => {
  await gateway?.close()
  fast.stop()
  slow.stop()
  spare.stop()
})

/** POSTs a JSON body, unpaid. */
const post = (path: string, body: unknown) =>
  gateway.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/** Asks for the typed data of `fields`, signs it with `signer`, and sends the registration back signed. */
async function register(fields: Record<string, unknown>, signer: LocalAccount) {
  const unsigned = await ok(await post('/api/v1/gpu-direct/register', fields))
  expect(unsigned.status).toBe('signature_required')
  const { typedData } = unsigned
  const signature = await signer.signTypedData({
    ...typedData,
    message: { ...typedData.message, nonce: BigInt(typedData.message.nonce), expiry: BigInt(typedData.message.expiry) },
  })
  return {
    response: await post('/api/v1/gpu-direct/register', { ...unsigned.request, signature }),
    unsigned,
    signature,
  }
}

/** The health job, one round. */
const checkHealth = () => gateway.jobs.find((job) => job.name === 'gpu-direct-health')!.run()

describe('gpu-direct: registration', () => {
  test('default: unsigned, the answer is the EIP-712 typed data over the original fields, and nothing is registered', async () => {
    const operator = operatorB
    const body = await ok(
      await post('/api/v1/gpu-direct/register', { wallet_address: operator.address, proxy_url: slow.url }),
    )
    expect(body).toMatchObject({
      status: 'signature_required',
      typedData: {
        domain: { name: 'x402 Gateway GPU Direct', version: '1', chainId },
        primaryType: 'OperatorRegistration',
        message: {
          wallet_address: operator.address,
          proxy_url: slow.url,
          gpu_model: '',
          vram_gb: 0,
          supported_models: [],
          inference_engine: '',
        },
      },
      request: { wallet_address: operator.address, proxy_url: slow.url },
    })
    expect(body.request.nonce).toBe(body.typedData.message.nonce)
    expect((await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/operators`))).total_online).toBe(0)
  })

  test('behavior: two operators signed by their wallets, the blanks filled from each proxy’s /health', async () => {
    // The slower-to-register proxy first: with equal records the earlier one is routed to, until its health fails.
    const [first, second] = [operatorB, operatorA]
    const b = await ok((await register({ wallet_address: first.address, proxy_url: `${slow.url}/` }, first)).response)
    expect(b).toMatchObject({
      status: 'registered',
      wallet: first.address,
      gpu: 'RTX 4090 (B)',
      vram_gb: 24,
      engine: 'vllm',
      models: [model],
      share_bps: 8000,
    })
    expect(b.operator_id).toMatch(/^op_[0-9a-f]{24}$/)
    expect(b.auth_token).toMatch(/^sd_[0-9a-f]{48}$/)
    slow.state.token = b.auth_token
    const a = await ok(
      (await register({ wallet_address: second.address, proxy_url: fast.url, gpu_model: 'H100', vram_gb: 80 }, second))
        .response,
    )
    expect(a).toMatchObject({ gpu: 'H100', vram_gb: 80, models: [model] })
    fast.state.token = a.auth_token
    const listed = await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/operators`))
    expect(listed.total_online).toBe(2)
    expect(listed.operators.map((operator: { gpu: string }) => operator.gpu).sort()).toEqual(['H100', 'RTX 4090 (B)'])
    expect(JSON.stringify(listed)).not.toContain('sd_')
  })

  test('security: a registration signed by another wallet is refused, 403, and registers nothing', async () => {
    const claimed = wallet()
    const { response } = await register({ wallet_address: claimed.address, proxy_url: spare.url }, wallet())
    expect((await refused(response, 403)).code).toBe('forbidden')
    expect(await gateway.store.get(Service.operatorsCollection, claimed.address)).toBeUndefined()
  })

  test('security: a signed registration sent again is a replay, 409', async () => {
    const operator = wallet()
    const { response, unsigned, signature } = await register(
      { wallet_address: operator.address, proxy_url: spare.url },
      operator,
    )
    expect((await ok(response)).models).toEqual(['mistral-7b'])
    const again = await refused(await post('/api/v1/gpu-direct/register', { ...unsigned.request, signature }), 409)
    expect(again).toMatchObject({ code: 'conflict', field: 'nonce', reason: 'replayed' })
  })

  test('error: a signature past its expiry is a 400 naming expiry', async () => {
    const operator = wallet()
    const registration = {
      wallet_address: operator.address,
      proxy_url: spare.url,
      gpu_model: '',
      vram_gb: 0,
      supported_models: [],
      inference_engine: '',
      nonce: '1',
      expiry: Math.floor(Date.now() / 1000) - 1,
    }
    const signature = await operator.signTypedData(GpuDirect.typedData({ chainId, registration }))
    const { gpu_model, vram_gb, supported_models, inference_engine, ...sent } = registration
    const expired = await refused(await post('/api/v1/gpu-direct/register', { ...sent, signature }), 400)
    expect(expired).toMatchObject({ code: 'validation_failed', field: 'expiry' })
  })

  test('error: a proxy the outbound guard refuses, or one whose /health fails, is a 400 naming proxy_url', async () => {
    const operator = wallet()
    const guarded = await refused(
      await post('/api/v1/gpu-direct/register', {
        wallet_address: operator.address,
        proxy_url: 'http://10.0.0.7:8000',
      }),
      400,
    )
    expect(guarded.field).toBe('proxy_url')
    slow.state.healthy = false
    const down = await refused(
      (await register({ wallet_address: operator.address, proxy_url: slow.url }, operator)).response,
      400,
    )
    slow.state.healthy = true
    expect(down).toMatchObject({ field: 'proxy_url', reason: 'unhealthy' })
    expect(await gateway.store.get(Service.operatorsCollection, operator.address)).toBeUndefined()
  })
})

describe('gpu-direct: runs', () => {
  /** Runs `prompt` paid by the payer; the answer and how much the payer's balance fell. */
  async function paidRun(prompt: string, runModel = model) {
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'POST', '/api/v1/gpu-direct/run', { model: runModel, input: { prompt } })
    return { response, charged: before - (await gateway.balance(payer.address)) }
  }

  test('error: a model no online operator serves is 503 before payment; a run without input is 400', async () => {
    const none = await refused(await post('/api/v1/gpu-direct/run', { model: 'gpt-4o', input: { prompt: 'hi' } }), 503)
    expect(none).toMatchObject({ code: 'upstream_unavailable', model: 'gpt-4o', fallback: '/api/v1/gpu/run' })
    expect((await refused(await post('/api/v1/gpu-direct/run', { model }), 400)).code).toBe('validation_failed')
    expect((await post('/api/v1/gpu-direct/run', { model, input: { prompt: 'hi' } })).status).toBe(402)
    const quote = await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/quote?model=gpt-4o`))
    expect(quote).toEqual({
      available: false,
      model: 'gpt-4o',
      message: 'No operator online serves gpt-4o. Use /api/v1/gpu/run for pinned Replicate models.',
      fallback: '/api/v1/gpu/run',
    })
  })

  test('behavior: the health job takes an operator whose /health fails offline; operators and quote leave it out', async () => {
    slow.state.healthy = false
    expect(await checkHealth()).toEqual({ checked: 3, online: 2, offline: 1 })
    const listed = await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/operators`))
    expect(listed.total_online).toBe(2)
    expect(listed.operators.map((operator: { gpu: string }) => operator.gpu).sort()).toEqual(['H100', 'RTX 4090 (C)'])
    const quote = await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/quote?model=${model}`))
    expect(quote).toMatchObject({
      available: true,
      model,
      operator: { gpu: 'H100', vram_gb: 80, engine: 'vllm' },
      payment: {
        price: '$0.03',
        currency: 'USDC',
        network: `eip155:${chainId}`,
        amount: '0.03',
        amountRaw: '30000',
        operator: { wallet: operatorA.address, amount: '0.024', amountRaw: '24000', shareBps: 8000 },
      },
    })
  })

  test('behavior: a paid run goes to the healthy operator, 0.03 USDC, and its share is recorded for payout', async () => {
    const { response, charged } = await paidRun('Hello')
    const body = await ok(response)
    expect(charged).toBe(price)
    expect(body).toMatchObject({
      status: 'succeeded',
      output: 'A: Hello',
      model,
      operator: { gpu: 'H100', engine: 'vllm' },
      settlement: {
        currency: 'USDC',
        network: `eip155:${chainId}`,
        amount: '0.03',
        amountRaw: '30000',
        operator: { wallet: operatorA.address, amount: '0.024', amountRaw: '24000', shareBps: 8000 },
        payout: 'recorded',
      },
    })
    expect(slow.runs).toHaveLength(0)
    const forwarded = fast.runs.at(-1)!
    expect(forwarded.body).toEqual({ model, input: { prompt: 'Hello' } })
    expect(forwarded.headers.get('x-spraay-payer')).toBe(payer.address)
    expect(forwarded.headers.get('x-spraay-amount')).toBe('0.024')
    expect(forwarded.headers.get('x-spraay-run-id')).toBe(body.run_id)
    const record = await gateway.store.get<GpuDirect.Run>(Service.runsCollection, body.run_id)
    expect(record?.owners).toEqual([operatorA.address, payer.address])
    expect(record?.value).toMatchObject({
      wallet: operatorA.address,
      model,
      payer: payer.address,
      amountRaw: '30000',
      shareRaw: '24000',
      shareBps: 8000,
      payout: 'owed',
    })
    const listed = await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/operators`))
    expect(listed.operators[0]).toMatchObject({ gpu: 'H100', total_jobs: 1 })
  })

  test('behavior: a run the operator fails is a 502, not charged, and records no share', async () => {
    fast.state.failing = 500
    const { response, charged } = await paidRun('Fail')
    fast.state.failing = undefined
    expect((await refused(response, 502)).code).toBe('upstream_failed')
    expect(charged).toBe(0n)
    expect(fast.runs.at(-1)!.body.input).toEqual({ prompt: 'Fail' })
    const owed = await gateway.store.list<GpuDirect.Run>(Service.runsCollection, { owner: operatorA.address })
    expect(owed).toHaveLength(1)
    const listed = await ok(await gateway.fetch(`${origin}/api/v1/gpu-direct/operators`))
    expect(listed.operators.find((operator: { gpu: string }) => operator.gpu === 'H100').total_jobs).toBe(1)
  })

  test('behavior: an operator that cannot be reached is taken offline by the failed run (not charged); runs go back to one whose health passes', async () => {
    fast.stop()
    const { response, charged } = await paidRun('Anyone?')
    expect((await refused(response, 502)).code).toBe('upstream_failed')
    expect(charged).toBe(0n)
    const operator = await gateway.store.get<GpuDirect.Operator>(Service.operatorsCollection, operatorA.address)
    expect(operator?.value.status).toBe('offline')
    expect((await post('/api/v1/gpu-direct/run', { model, input: { prompt: 'hi' } })).status).toBe(503)
    slow.state.healthy = true
    expect(await checkHealth()).toEqual({ checked: 3, online: 2, offline: 1 })
    const again = await paidRun('Back')
    expect(again.charged).toBe(price)
    expect((await ok(again.response)).output).toBe('B: Back')
  })
})
