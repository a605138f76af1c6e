import { describe, expect, test } from 'bun:test'
import { recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import * as GpuDirect from '../../core/GpuDirect.js'

const operatorKey = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')

/** An operator record with `fields` over plain defaults. */
function operator(fields: Partial<GpuDirect.Operator>): GpuDirect.Operator {
  return {
    id: 'op_000000000000000000000000',
    wallet: operatorKey.address,
    proxyUrl: 'https://gpu.example',
    gpuModel: 'RTX 4090',
    vramGb: 24,
    models: ['llama-3.1-8b'],
    engine: 'vllm',
    authToken: 'sd_token',
    status: 'online',
    lastHealthCheck: '2026-01-01T00:00:00.000Z',
    totalJobs: 0,
    avgResponseMs: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  }
}

describe('GpuDirect.share', () => {
  test.each([
    [30_000n, 10_000n, 30_000n, 0n],
    [30_000n, 8_000n, 24_000n, 6_000n],
    [30_000n, 0n, 0n, 30_000n],
    [1n, 5_000n, 0n, 1n],
    [33_333n, 3_333n, 11_109n, 22_224n],
  ])('behavior: %p at %p bps is %p to the operator and %p kept', (amount, shareBps, owed, kept) => {
    expect(GpuDirect.share({ amount, shareBps })).toEqual({ operator: owed, gateway: kept })
  })

  test('error: a share outside 0-10000 bps', () => {
    expect(() => GpuDirect.share({ amount: 1n, shareBps: 10_001n })).toThrow(RangeError)
    expect(() => GpuDirect.share({ amount: 1n, shareBps: -1n })).toThrow(RangeError)
  })
})

describe('GpuDirect.route', () => {
  test('behavior: an online operator serving the model, fastest first, then fewer runs, then the earliest', () => {
    const operators = [
      operator({ id: 'offline', status: 'offline', avgResponseMs: 1 }),
      operator({ id: 'other-model', models: ['mistral-7b'], avgResponseMs: 1 }),
      operator({ id: 'slow', avgResponseMs: 900 }),
      operator({ id: 'busy', avgResponseMs: 200, totalJobs: 9 }),
      operator({ id: 'later', avgResponseMs: 200, totalJobs: 3, createdAt: '2026-02-01T00:00:00.000Z' }),
      operator({ id: 'earlier', avgResponseMs: 200, totalJobs: 3 }),
    ]
    expect(GpuDirect.route({ operators, model: 'llama-3.1-8b' })?.id).toBe('earlier')
    expect(GpuDirect.route({ operators, model: 'mistral-7b' })?.id).toBe('other-model')
    expect(GpuDirect.route({ operators, model: 'gpt-4o' })).toBeUndefined()
  })
})

describe('GpuDirect.served', () => {
  test('behavior: the run count and the running mean in whole ms', () => {
    expect(GpuDirect.served(operator({}), 1_234)).toEqual({ totalJobs: 1, avgResponseMs: 1_234 })
    expect(GpuDirect.served(operator({ totalJobs: 2, avgResponseMs: 100 }), 401)).toEqual({
      totalJobs: 3,
      avgResponseMs: 200,
    })
  })
})

describe('GpuDirect.typedData', () => {
  test('behavior: signs every registration field; another field value recovers another address', async () => {
    const registration: GpuDirect.Signed = {
      wallet_address: operatorKey.address,
      proxy_url: 'https://gpu.example',
      gpu_model: 'RTX 4090',
      vram_gb: 24,
      supported_models: ['llama-3.1-8b'],
      inference_engine: 'vllm',
      nonce: '7',
      expiry: 1_800_000_000,
    }
    const typed = GpuDirect.typedData({ chainId: 8453, registration })
    expect(typed.domain).toEqual({ name: 'x402 Gateway GPU Direct', version: '1', chainId: 8453 })
    const signature = await operatorKey.signTypedData(typed)
    expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(operatorKey.address)
    for (const changed of [
      { proxy_url: 'https://elsewhere.example' },
      { supported_models: ['llama-3.1-70b'] },
      { vram_gb: 80 },
      { nonce: '8' },
    ]) {
      const other = GpuDirect.typedData({ chainId: 8453, registration: { ...registration, ...changed } })
      expect(await recoverTypedDataAddress({ ...other, signature })).not.toBe(operatorKey.address)
    }
    const otherChain = GpuDirect.typedData({ chainId: 1, registration })
    expect(await recoverTypedDataAddress({ ...otherChain, signature })).not.toBe(operatorKey.address)
  })
})
