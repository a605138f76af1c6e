import { describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import * as Compute from '../../core/Compute.js'
import { ConfigError, InvalidTransitionError, ValidationError } from '../../core/Errors.js'

const models = Compute.fromJson(
  JSON.stringify({
    small: { kind: 'text', upstream: 'openai', upstreamModel: 'm', price: '0.003' },
    large: { kind: 'text', upstream: 'openai', upstreamModel: 'm', price: '0.1' },
    draw: {
      kind: 'image',
      upstream: 'replicate',
      upstreamModel: 'o/n',
      prices: { '512x512': '0.02', '1024x1024': 0.08 },
    },
  }),
)

describe('fromJson', () => {
  test('default: no catalog is an empty one', () => {
    expect(Compute.fromJson(undefined).size).toBe(0)
    expect(Compute.fromJson('  ').size).toBe(0)
  })

  test('behavior: prices become atomic units, sizes keep their order, limits their defaults', () => {
    expect(models.get('draw')!.prices).toEqual(
      new Map([
        ['512x512', 20_000n],
        ['1024x1024', 80_000n],
      ]),
    )
    expect(models.get('small')!.limits).toEqual(Compute.defaultLimits)
  })

  test.each([
    [
      'a price outside its endpoint’s range',
      { kind: 'text', upstream: 'openai', upstreamModel: 'm', price: '0.2' },
      'outside',
    ],
    [
      'a fixed-price kind at another price',
      { kind: 'stt', upstream: 'openai', upstreamModel: 'm', price: '0.03' },
      'outside',
    ],
    [
      'a video on the OpenAI upstream',
      { kind: 'video', upstream: 'openai', upstreamModel: 'm', price: '0.45' },
      'Replicate',
    ],
    [
      'a truncated version',
      { kind: 'video', upstream: 'replicate', upstreamModel: 'o/n:4d50797d', price: '0.45' },
      '64 hex',
    ],
    ['no price', { kind: 'text', upstream: 'openai', upstreamModel: 'm' }, 'price'],
    [
      'an unknown limit',
      { kind: 'text', upstream: 'openai', upstreamModel: 'm', price: '0.01', limits: { x: 1 } },
      'limit',
    ],
  ])('error: %s', (_, model, message) => {
    expect(() => Compute.fromJson(JSON.stringify({ bad: model }))).toThrow(ConfigError)
    expect(() => Compute.fromJson(JSON.stringify({ bad: model }))).toThrow(message)
  })
})

describe('priceOf', () => {
  test('behavior: by model and size; the first size by default', () => {
    expect(Compute.priceOf({ models, request: { model: 'large' }, kind: 'text' })).toBe(100_000n)
    expect(Compute.priceOf({ models, request: { model: 'draw' } })).toBe(20_000n)
    expect(Compute.priceOf({ models, request: { model: 'draw', size: '1024x1024' } })).toBe(80_000n)
  })

  test('error: an unknown model, another kind, an unpriced size', () => {
    expect(() => Compute.priceOf({ models, request: { model: 'nope' } })).toThrow(ValidationError)
    expect(() => Compute.priceOf({ models, request: { model: 'draw' }, kind: 'text' })).toThrow('not a text model')
    expect(() => Compute.priceOf({ models, request: { model: 'draw', size: '1x1' } })).toThrow('not a size')
  })
})

describe('batchPriceOf', () => {
  test.each([
    [['small', 'large'], 103_000n, 92_700n],
    // 0.003 x 3 = 9_000; 90% is exact. 0.003 + 0.1 + 0.02 = 123_000 -> 110_700.
    [['small', 'small', 'small'], 9_000n, 8_100n],
    [['small', 'large', 'draw'], 123_000n, 110_700n],
  ])('behavior: %p sums %p and costs %p', (ids, sum, total) => {
    const priced = Compute.batchPriceOf({ models, jobs: ids.map((model) => ({ model })) })
    expect(priced.sum).toBe(sum)
    expect(priced.total).toBe(total)
    expect(priced.discount).toBe(sum - total)
  })

  test('behavior: a sum not divisible by ten rounds the total down, never above 90%', () => {
    const odd = Compute.fromJson(
      JSON.stringify({ odd: { kind: 'text', upstream: 'openai', upstreamModel: 'm', price: '0.003001' } }),
    )
    expect(Compute.batchPriceOf({ models: odd, jobs: [{ model: 'odd' }] }).total).toBe(2_700n)
  })

  test('error: empty, or more than 50 jobs', () => {
    expect(() => Compute.batchPriceOf({ models, jobs: [] })).toThrow(ValidationError)
    expect(() =>
      Compute.batchPriceOf({ models, jobs: Array.from({ length: 51 }, () => ({ model: 'small' })) }),
    ).toThrow('at most 50')
  })

  test('behavior: the batch bounds span one cheapest job to fifty dearest, discounted', () => {
    expect(Compute.batchBounds()).toEqual({ min: 2_700n, max: 22_500_000n })
  })
})

describe('transition', () => {
  test('behavior: queued -> running -> succeeded; a prediction moves a job through the states it skipped', () => {
    expect(Compute.transition({ state: 'queued' }, { type: 'start' })).toEqual({ state: 'running' })
    expect(Compute.advance({ state: 'queued' }, { id: 'p', status: 'succeeded', output: ['x'] })).toEqual({
      state: 'succeeded',
      output: ['x'],
    })
    expect(Compute.advance({ state: 'running' }, { id: 'p', status: 'processing' })).toEqual({ state: 'running' })
  })

  test('error: a final state takes no event', () => {
    expect(() => Compute.transition({ state: 'failed', error: 'x' }, { type: 'start' })).toThrow(InvalidTransitionError)
  })
})

describe('verifyWebhook', () => {
  const secret = `whsec_${btoa('a-secret-of-thirty-two-bytes-!!!')}`
  const body = JSON.stringify({ id: 'p1', status: 'succeeded', output: 'x' })
  const sign = (key: string, at: Date) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign('msg_1', at, body),
  })

  test('behavior: a signed prediction is read', () => {
    expect(Compute.verifyWebhook({ secret, body, headers: sign(secret, new Date()) })).toMatchObject({ id: 'p1' })
  })

  test('error: another key, an old timestamp, a changed body', () => {
    const other = `whsec_${btoa('another-secret-of-32-bytes-!!!!!')}`
    expect(Compute.verifyWebhook({ secret, body, headers: sign(other, new Date()) })).toBeUndefined()
    expect(
      Compute.verifyWebhook({ secret, body, headers: sign(secret, new Date(Date.now() - 3_600_000)) }),
    ).toBeUndefined()
    expect(Compute.verifyWebhook({ secret, body: `${body} `, headers: sign(secret, new Date()) })).toBeUndefined()
  })
})
