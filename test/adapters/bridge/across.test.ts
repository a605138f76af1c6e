import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { across } from '../../../adapters/bridge/across.js'
import { clocked } from '../../support/vendor.js'
import { acrossSpender, calldataOf, startAcross, tokens } from './bridge-fixture.js'

const server = startAcross()
afterAll(() => server.stop())
afterEach(() => {
  server.state.mode = 'quote'
  server.state.fee = 500n
})

const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const [baseUsdc, arbitrumUsdc] = tokens
const request = { fromChainId: 8453, toChainId: 42161, amount: 1_000_000n, fromAddress: sender } as const

describe('across: quote', () => {
  test('default: the destination token from the route, then /swap/approval mapped to our quote', async () => {
    const bridge = across({ url: server.url, retries: 0 })
    const outcome = await bridge.quote({ ...request, token: { symbol: 'USDC' } })
    expect(outcome).toEqual({
      ok: true,
      quote: {
        source: 'across',
        tool: 'across',
        fromToken: baseUsdc!,
        toToken: arbitrumUsdc!,
        fromAmount: 1_000_000n,
        toAmount: 999_500n,
        toAmountMin: 999_500n,
        durationSeconds: 4,
        approvalAddress: acrossSpender,
        fees: [
          { name: 'LP fee', amount: 100n, token: baseUsdc!, included: true, kind: 'fee' },
          { name: 'relayer capital fee', amount: 150n, token: baseUsdc!, included: true, kind: 'fee' },
          { name: 'destination gas fee', amount: 250n, token: baseUsdc!, included: true, kind: 'fee' },
          { name: 'gas (origin)', amount: 1_500_000_000_000n, token: tokens[3]!, included: false, kind: 'gas' },
        ],
        transaction: {
          to: acrossSpender,
          data: calldataOf(baseUsdc!.address, 1_000_000n, 42161, sender),
          value: 0n,
          gasLimit: 150_000n,
          chainId: 8453,
        },
      },
    })
    const asked = server.state.seen.at(-1)!
    expect(asked.pathname).toBe('/api/swap/approval')
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      tradeType: 'exactInput',
      amount: '1000000',
      inputToken: baseUsdc!.address,
      outputToken: arbitrumUsdc!.address,
      originChainId: '8453',
      destinationChainId: '42161',
      depositor: sender,
    })
  })

  test('behavior: a token given by address is looked up by address in the routes', async () => {
    const outcome = await across({ url: server.url, retries: 0 }).quote({
      ...request,
      token: { address: baseUsdc!.address },
    })
    expect(outcome.ok && outcome.quote.toToken).toEqual(arbitrumUsdc!)
    expect(server.state.seen.at(-2)!.searchParams.get('originToken')).toBe(baseUsdc!.address)
  })

  test('error: a token with no route is no_route, without asking for a quote', async () => {
    const before = server.state.seen.length
    const outcome = await across({ url: server.url, retries: 0 }).quote({ ...request, token: { symbol: 'DAI' } })
    expect(outcome).toEqual({
      ok: false,
      reason: 'no_route',
      message: 'Across has no route for DAI from chain 8453 to chain 42161.',
    })
    expect(server.state.seen.slice(before).map((url) => url.pathname)).toEqual(['/api/available-routes'])
  })

  test('error: the 400 AcrossApiError ROUTE_NOT_ENABLED is no_route, in its words', async () => {
    server.state.mode = 'no_route'
    expect(await across({ url: server.url, retries: 0 }).quote({ ...request, token: { symbol: 'USDC' } })).toEqual({
      ok: false,
      reason: 'no_route',
      message: 'Across cannot quote this transfer: Route is not enabled.',
    })
  })

  test('error: 429 with a long Retry-After is rate_limited, not retried', async () => {
    server.state.mode = 'rate_limited'
    const { now, sleep } = clocked()
    const before = server.state.seen.length
    const outcome = await across({ url: server.url, now, sleep }).quote({ ...request, token: { symbol: 'USDC' } })
    expect(outcome).toMatchObject({ ok: false, reason: 'rate_limited', status: 429 })
    expect(server.state.seen.slice(before).filter((url) => url.pathname === '/api/swap/approval')).toHaveLength(1)
  })

  test('error: a 5xx is failed', async () => {
    server.state.mode = 'server_error'
    const outcome = await across({ url: server.url, retries: 0 }).quote({ ...request, token: { symbol: 'USDC' } })
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', status: 500 })
  })

  test('error: no answer within the time limit is a timeout', async () => {
    server.state.mode = 'hang'
    const outcome = await across({ url: server.url, timeoutMs: 50, retries: 0 }).quote({
      ...request,
      token: { symbol: 'USDC' },
    })
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' })
  })
})

describe('across: chains', () => {
  test('default: the chain ids of /swap/chains', async () => {
    expect(await across({ url: server.url, retries: 0 }).chains()).toEqual({
      ok: true,
      chainIds: [8453, 42161, 10, 59144],
    })
  })
})
