import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { jupiter } from '../../../adapters/solana/jupiter.js'
import { clocked } from '../../support/vendor.js'
import { bonk, jupiterStandIn, usdc, wsol } from './stand-ins.js'

const key = 'jup-test-key-0123456789'
const server = jupiterStandIn({ key })
afterAll(() => server.stop())
beforeEach(() => {
  server.faults.length = 0
  server.received.length = 0
})

/** The adapter on the stand-in, with a clock whose sleeps are recorded, not waited. */
function aggregator(options: Partial<jupiter.Parameters> = {}) {
  const time = clocked()
  return { time, aggregator: jupiter({ url: server.url, key, now: time.now, sleep: time.sleep, ...options }) }
}

describe('jupiter: quote', () => {
  test('default: amounts as bigint, the route leg by leg, and the answer whole', async () => {
    const { aggregator: swap } = aggregator()
    const quote = await swap.quote({ inputMint: wsol, outputMint: usdc, amount: 1_000_000_000n, slippageBps: 100 })
    if (!quote.ok) throw new Error(quote.message)
    // 1 SOL less the 4 bps fee into 50,000 SOL / 7,500,000 USDC.
    const net = 1_000_000_000n - 400_000n
    const out = (net * 7_500_000_000_000n) / (50_000_000_000_000n + net)
    expect(quote.inAmount).toBe(1_000_000_000n)
    expect(quote.outAmount).toBe(out)
    expect(quote.otherAmountThreshold).toBe((out * 9_900n) / 10_000n)
    expect(quote.slippageBps).toBe(100)
    expect(quote.swapMode).toBe('ExactIn')
    expect(quote.route).toEqual([
      {
        pool: 'Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE',
        venue: 'Whirlpool',
        inputMint: wsol,
        outputMint: usdc,
        inAmount: 1_000_000_000n,
        outAmount: out,
        percent: 100,
      },
    ])
    expect(quote.quoteResponse.outAmount).toBe(out.toString())
    const sent = server.received[0]!
    expect(sent.route).toBe('GET /swap/v1/quote')
    expect(sent.headers.get('x-api-key')).toBe(key)
    expect(Object.fromEntries(sent.url.searchParams)).toEqual({
      inputMint: wsol,
      outputMint: usdc,
      amount: '1000000000',
      swapMode: 'ExactIn',
      slippageBps: '100',
    })
  })

  test("behavior: a pair with no route is the port's not_found, in Jupiter's words", async () => {
    const { aggregator: swap } = aggregator()
    expect(await swap.quote({ inputMint: wsol, outputMint: bonk, amount: 1n })).toEqual({
      ok: false,
      reason: 'not_found',
      message: 'Could not find any route (COULD_NOT_FIND_ANY_ROUTE)',
    })
    // The caller's pair says nothing about Jupiter's health.
    expect(swap.available()).toEqual({ ok: true })
  })

  test('behavior: a 429 with Retry-After is retried after the pause Jupiter asked for', async () => {
    const { aggregator: swap, time } = aggregator()
    server.faults.push({ status: 429, retryAfter: 2 })
    const quote = await swap.quote({ inputMint: wsol, outputMint: usdc, amount: 5_000n })
    expect(quote.ok).toBe(true)
    expect(time.slept).toEqual([2_000])
    expect(server.received).toHaveLength(2)
  })

  test('error: a 429 that lasts is a rate_limited failure, never a made-up quote', async () => {
    const { aggregator: swap } = aggregator({ retries: 1 })
    server.faults.push({ status: 429, retryAfter: 1 }, { status: 429, retryAfter: 1 })
    expect(await swap.quote({ inputMint: wsol, outputMint: usdc, amount: 5_000n })).toEqual({
      ok: false,
      reason: 'rate_limited',
      status: 429,
      message: 'Rate limit exceeded',
    })
  })

  test('error: a wrong key is a failure that never shows the key', async () => {
    const { aggregator: swap } = aggregator({ key: 'not-the-key', retries: 0 })
    const failure = await swap.quote({ inputMint: wsol, outputMint: usdc, amount: 5_000n })
    expect(failure).toEqual({ ok: false, reason: 'failed', status: 401, message: 'Unauthorized' })
  })

  test('error: an unreadable quote is a failure naming the field', async () => {
    const { aggregator: swap } = aggregator({
      fetch: (async () =>
        Response.json({ inputMint: wsol, outputMint: usdc, inAmount: '1.5' })) as unknown as typeof fetch,
    })
    expect(await swap.quote({ inputMint: wsol, outputMint: usdc, amount: 5_000n })).toEqual({
      ok: false,
      reason: 'failed',
      status: 200,
      message: 'Jupiter answered an unreadable inAmount.',
    })
  })
})

describe('jupiter: swap', () => {
  test('default: the transaction and its block height exactly as Jupiter answers them', async () => {
    const { aggregator: swap } = aggregator()
    const quote = await swap.quote({ inputMint: wsol, outputMint: usdc, amount: 1_000n })
    if (!quote.ok) throw new Error(quote.message)
    const user = '5tzFkiKscXHK5ZXCGbXZxdw7gTjjD1mBwuoFbhUvuAi9'
    const built = await swap.swap({ quoteResponse: quote.quoteResponse, userPublicKey: user })
    if (!built.ok) throw new Error(built.message)
    const answered = JSON.parse(server.received.at(-1)!.body)
    // The original gateway's defaults: SOL wrapped and unwrapped, Jupiter's own priority fee estimate.
    expect(answered).toEqual({
      quoteResponse: quote.quoteResponse,
      userPublicKey: user,
      wrapAndUnwrapSol: true,
      prioritizationFeeLamports: 'auto',
      dynamicComputeUnitLimit: true,
    })
    expect(built.swapTransaction).toMatch(/^[A-Za-z0-9+/]+=*$/)
    expect(built.lastValidBlockHeight).toBeGreaterThan(279_000_000)
    expect(built.prioritizationFeeLamports).toBe(5_000)
    expect(built.computeUnitLimit).toBe(180_000)
  })

  test("error: Jupiter's 400 is the caller's fault, rejected, in Jupiter's words", async () => {
    const { aggregator: swap } = aggregator()
    expect(await swap.swap({ quoteResponse: {}, userPublicKey: wsol })).toEqual({
      ok: false,
      reason: 'rejected',
      status: 400,
      message: 'Invalid quoteResponse (INVALID_QUOTE_RESPONSE)',
    })
  })
})
