import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { zeroAddress } from 'viem'
import { lifi } from '../../../adapters/bridge/lifi.js'
import { clocked } from '../../support/vendor.js'
import { calldataOf, lifiDiamond, startLifi, tokens } from './bridge-fixture.js'

const server = startLifi()
afterAll(() => server.stop())
afterEach(() => {
  server.state.mode = 'quote'
  server.state.fee = 1_000n
})

const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const [baseUsdc, arbitrumUsdc] = tokens
const request = { fromChainId: 8453, toChainId: 42161, amount: 1_000_000n, fromAddress: sender } as const

describe('lifi: quote', () => {
  test('default: the step mapped to our quote, its transaction unsigned and exactly as LI.FI built it', async () => {
    const bridge = lifi({ url: server.url, retries: 0 })
    const outcome = await bridge.quote({ ...request, token: { symbol: 'USDC' } })
    expect(outcome).toEqual({
      ok: true,
      quote: {
        source: 'lifi',
        tool: 'stargateV2',
        fromToken: baseUsdc!,
        toToken: arbitrumUsdc!,
        fromAmount: 1_000_000n,
        toAmount: 999_000n,
        toAmountMin: 994_005n,
        durationSeconds: 53,
        approvalAddress: lifiDiamond,
        fees: [
          { name: 'LP Fee', amount: 1_000n, token: baseUsdc!, included: true, kind: 'fee' },
          { name: 'gas (SEND)', amount: 2_000_000_000_000n, token: tokens[3]!, included: false, kind: 'gas' },
        ],
        transaction: {
          to: lifiDiamond,
          data: calldataOf(baseUsdc!.address, 1_000_000n, 42161, sender),
          value: 0n,
          gasLimit: 260_000n,
          chainId: 8453,
        },
      },
    })
    const asked = server.state.seen.at(-1)!
    expect(asked.pathname).toBe('/v1/quote')
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      fromChain: '8453',
      toChain: '42161',
      fromToken: 'USDC',
      toToken: 'USDC',
      fromAmount: '1000000',
      fromAddress: sender,
    })
  })

  test('behavior: a token given by address is asked for by LI.FI symbol on the destination chain', async () => {
    const bridge = lifi({ url: server.url, retries: 0 })
    const outcome = await bridge.quote({ ...request, token: { address: baseUsdc!.address } })
    expect(outcome.ok && outcome.quote.toToken).toEqual(arbitrumUsdc!)
    const [token, quote] = server.state.seen.slice(-2)
    expect(token!.pathname).toBe('/v1/token')
    expect(quote!.searchParams.get('fromToken')).toBe(baseUsdc!.address)
    expect(quote!.searchParams.get('toToken')).toBe('USDC')
  })

  test('behavior: the native coin needs no approval and is sent as value', async () => {
    const bridge = lifi({ url: server.url, retries: 0 })
    const outcome = await bridge.quote({ ...request, amount: 10n ** 16n, token: { address: zeroAddress } })
    if (!outcome.ok) throw new Error(outcome.message)
    expect(outcome.quote.approvalAddress).toBeNull()
    expect(outcome.quote.transaction.value).toBe(10n ** 16n)
  })

  test('behavior: the key goes in x-lifi-api-key, and none without it', async () => {
    await lifi({ url: server.url, key: 'lifi-secret', retries: 0 }).quote({ ...request, token: { symbol: 'USDC' } })
    expect(server.state.keys.at(-1)).toBe('lifi-secret')
    await lifi({ url: server.url, retries: 0 }).quote({ ...request, token: { symbol: 'USDC' } })
    expect(server.state.keys.at(-1)).toBeNull()
  })

  test('error: LI.FI 404 "No available quotes" is no_route, in its words', async () => {
    server.state.mode = 'no_route'
    expect(await lifi({ url: server.url, retries: 0 }).quote({ ...request, token: { symbol: 'USDC' } })).toEqual({
      ok: false,
      reason: 'no_route',
      message: 'LI.FI found no route: No available quotes for the requested transfer.',
    })
  })

  test('error: an unknown token address is no_route', async () => {
    const outcome = await lifi({ url: server.url, retries: 0 }).quote({
      ...request,
      token: { address: '0x000000000000000000000000000000000000dEaD' },
    })
    expect(outcome).toMatchObject({ ok: false, reason: 'no_route' })
  })

  test('error: 429 with a Retry-After longer than a caller waits is rate_limited, not retried', async () => {
    server.state.mode = 'rate_limited'
    const before = server.state.seen.length
    const { now, sleep } = clocked()
    const outcome = await lifi({ url: server.url, now, sleep }).quote({ ...request, token: { symbol: 'USDC' } })
    expect(outcome).toMatchObject({ ok: false, reason: 'rate_limited', status: 429 })
    expect(server.state.seen.length - before).toBe(1)
  })

  test('error: a 5xx is retried once, then failed', async () => {
    server.state.mode = 'server_error'
    const before = server.state.seen.length
    const { now, sleep } = clocked()
    const outcome = await lifi({ url: server.url, now, sleep }).quote({ ...request, token: { symbol: 'USDC' } })
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', status: 500 })
    expect(server.state.seen.length - before).toBe(2)
  })

  test('error: no answer within the time limit is a timeout', async () => {
    server.state.mode = 'hang'
    const outcome = await lifi({ url: server.url, timeoutMs: 50, retries: 0 }).quote({
      ...request,
      token: { symbol: 'USDC' },
    })
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' })
  })

  test('error: a step without its transaction is an unreadable answer, not a quote', async () => {
    const broken = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => Response.json({ tool: 'x', action: {}, estimate: {} }),
    })
    try {
      const outcome = await lifi({ url: `http://127.0.0.1:${broken.port}/v1`, retries: 0 }).quote({
        ...request,
        token: { symbol: 'USDC' },
      })
      expect(outcome).toMatchObject({ ok: false, reason: 'failed' })
    } finally {
      broken.stop(true)
    }
  })
})

describe('lifi: chains', () => {
  test('default: the EVM chain ids of /chains', async () => {
    expect(await lifi({ url: server.url, retries: 0 }).chains()).toEqual({
      ok: true,
      chainIds: [8453, 42161, 10, 1, 130],
    })
    expect(server.state.seen.at(-1)!.searchParams.get('chainTypes')).toBe('EVM')
  })
})
