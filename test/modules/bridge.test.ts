import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { type Hex, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type * as Bridge from '../../core/Bridge.js'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import { manifest } from '../../modules/bridge/index.js'
import {
  acrossSpender,
  calldataOf,
  lifiDiamond,
  startAcross,
  startLifi,
  tokens,
} from '../adapters/bridge/bridge-fixture.js'
import { moduleGateway } from '../support/gateway.js'
import { refused } from '../support/module.js'
import { paidGateway } from '../support/paid.js'

const lifi = startLifi()
const across = startAcross()
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({ env: { LIFI_API_URL: lifi.url, ACROSS_API_URL: across.url } })
})
afterAll(async () => {
  await gateway.close()
  lifi.stop()
  across.stop()
})
afterEach(() => {
  lifi.state.mode = 'quote'
  lifi.state.fee = 1_000n
  across.state.mode = 'quote'
  across.state.fee = 500n
})

const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const [baseUsdc, arbitrumUsdc] = tokens
const quotePath = `/api/v1/bridge/quote?fromChain=base&toChain=42161&token=USDC&amount=1000000&fromAddress=${sender}`
const priceOf = (path: string) => Price.quote({ price: Catalog.entries.find((entry) => entry.path === path)!.price })

/** Calls `path` paid by a fresh authorization of devnet account 3; what it cost and what the ledger says of it. */
async function paidCall(path: string) {
  const payer = gateway.account(3)
  const before = await gateway.balance(payer.address)
  const header = await gateway.presigned({ signer: payer, value: priceOf(new URL(path, 'http://x').pathname) })
  const response = await gateway.fetch(`http://gateway.test${path}`, { headers: { 'PAYMENT-SIGNATURE': header } })
  const nonce = JSON.parse(atob(header)).payload.authorization.nonce as Hex
  const entry = await gateway.ledger.get({ payer: payer.address, nonce })
  return { response, charged: before - (await gateway.balance(payer.address)), ledger: entry?.state }
}

describe('GET /api/v1/bridge/quote', () => {
  test('error: without payment it is a 402 and asks no bridge', async () => {
    const seen = lifi.state.seen.length + across.state.seen.length
    const response = await gateway.fetch(`http://gateway.test${quotePath}`)
    expect(response.status).toBe(402)
    expect(lifi.state.seen.length + across.state.seen.length).toBe(seen)
  })

  test('default: paid through the real flow, it charges 0.05 USDC and answers the better quote (Across here) with its unsigned transaction', async () => {
    const { response, charged, ledger } = await paidCall(quotePath)
    expect(response.status).toBe(200)
    expect(charged).toBe(50_000n)
    expect(ledger).toBe('settled')
    const body = (await response.json()) as any
    expect(body.status).toBe('ready')
    expect(body.quote).toEqual({
      source: 'across',
      tool: 'across',
      fromChain: { name: 'base', title: 'Base', chainId: 8453 },
      toChain: { name: 'arbitrum', title: 'Arbitrum One', chainId: 42161 },
      fromToken: baseUsdc,
      toToken: arbitrumUsdc,
      fromAmount: { raw: '1000000', formatted: '1' },
      toAmount: { raw: '999500', formatted: '0.9995' },
      toAmountMin: { raw: '999500', formatted: '0.9995' },
      estimatedDurationSeconds: 4,
      fees: [
        { name: 'LP fee', amount: { raw: '100', formatted: '0.0001' }, token: baseUsdc, included: true, kind: 'fee' },
        {
          name: 'relayer capital fee',
          amount: { raw: '150', formatted: '0.00015' },
          token: baseUsdc,
          included: true,
          kind: 'fee',
        },
        {
          name: 'destination gas fee',
          amount: { raw: '250', formatted: '0.00025' },
          token: baseUsdc,
          included: true,
          kind: 'fee',
        },
        {
          name: 'gas (origin)',
          amount: { raw: '1500000000000', formatted: '0.0000015' },
          token: tokens[3],
          included: false,
          kind: 'gas',
        },
      ],
      approval: { spender: acrossSpender, token: baseUsdc!.address, amount: '1000000' },
      transactionRequest: {
        to: acrossSpender,
        data: calldataOf(baseUsdc!.address, 1_000_000n, 42161, sender),
        value: '0',
        gasLimit: '150000',
        chainId: 8453,
      },
      compared: [
        { source: 'lifi', outcome: 'quoted', toAmount: '999000', message: null },
        { source: 'across', outcome: 'quoted', toAmount: '999500', message: null },
      ],
    })
  })

  test('behavior: the bridge that delivers more wins; LI.FI when its fee is the lower', async () => {
    lifi.state.fee = 100n
    const { response } = await paidCall(quotePath)
    const { quote } = (await response.json()) as any
    expect(quote.source).toBe('lifi')
    expect(quote.tool).toBe('stargateV2')
    expect(quote.toAmount).toEqual({ raw: '999900', formatted: '0.9999' })
    expect(quote.transactionRequest).toMatchObject({ to: lifiDiamond, chainId: 8453, gasLimit: '260000' })
    expect(quote.approval.spender).toBe(lifiDiamond)
  })

  test('behavior: LI.FI rate-limited (429, Retry-After) never fails the call while Across quotes', async () => {
    lifi.state.mode = 'rate_limited'
    const { response, charged } = await paidCall(quotePath)
    expect(response.status).toBe(200)
    expect(charged).toBe(50_000n)
    const { quote } = (await response.json()) as any
    expect(quote.source).toBe('across')
    expect(quote.compared[0]).toMatchObject({ source: 'lifi', outcome: 'rate_limited', toAmount: null })
  })

  test('behavior: Across failing (5xx) never fails the call while LI.FI quotes', async () => {
    across.state.mode = 'server_error'
    const { response } = await paidCall(quotePath)
    expect(response.status).toBe(200)
    const { quote } = (await response.json()) as any
    expect(quote.source).toBe('lifi')
    expect(quote.compared[1]).toMatchObject({ source: 'across', outcome: 'failed' })
  })

  test('error: both bridges failing is a 503 and charges nothing', async () => {
    lifi.state.mode = 'server_error'
    across.state.mode = 'rate_limited'
    const { response, charged, ledger } = await paidCall(quotePath)
    const problem = await refused(response, 503)
    expect(problem.code).toBe('upstream_unavailable')
    expect(problem.bridges.map((entry: any) => entry.outcome)).toEqual(['failed', 'rate_limited'])
    expect(charged).toBe(0n)
    expect(ledger).toBe('released')
    expect(response.headers.get('payment-response')).toBeNull()
  })

  test('error: no route on either bridge is a 422 no_route in their words and charges nothing', async () => {
    lifi.state.mode = 'no_route'
    across.state.mode = 'no_route'
    const { response, charged, ledger } = await paidCall(quotePath)
    const problem = await refused(response, 422)
    expect(problem.code).toBe('no_route')
    expect(problem.detail).toContain('No available quotes for the requested transfer')
    expect(problem.detail).toContain('Route is not enabled')
    expect(charged).toBe(0n)
    expect(ledger).toBe('released')
  })

  test('error: one bridge without a route and the other down is a 503, not a no_route', async () => {
    lifi.state.mode = 'no_route'
    across.state.mode = 'server_error'
    const { response, charged } = await paidCall(quotePath)
    expect((await refused(response, 503)).code).toBe('upstream_unavailable')
    expect(charged).toBe(0n)
  })

  const mixed = '0x70997970c51812dc3A010C7d01b50e0d17dc79C8'
  test.each([
    ['fromChain', `fromChain=solana&toChain=arbitrum&token=USDC&amount=1&fromAddress=${sender}`],
    ['fromChain', `toChain=arbitrum&token=USDC&amount=1&fromAddress=${sender}`],
    ['toChain', `fromChain=base&toChain=999&token=USDC&amount=1&fromAddress=${sender}`],
    ['toChain', `fromChain=base&toChain=8453&token=USDC&amount=1&fromAddress=${sender}`],
    ['token', `fromChain=base&toChain=arbitrum&token=DOGE&amount=1&fromAddress=${sender}`],
    ['token', `fromChain=base&toChain=arbitrum&token=${mixed}&amount=1&fromAddress=${sender}`],
    ['amount', `fromChain=base&toChain=arbitrum&token=USDC&amount=0&fromAddress=${sender}`],
    ['amount', `fromChain=base&toChain=arbitrum&token=USDC&amount=1.5&fromAddress=${sender}`],
    ['amount', `fromChain=base&toChain=arbitrum&token=USDC&amount=-1&fromAddress=${sender}`],
    ['fromAddress', `fromChain=base&toChain=arbitrum&token=USDC&amount=1&fromAddress=${mixed}`],
    ['fromAddress', 'fromChain=base&toChain=arbitrum&token=USDC&amount=1&fromAddress=0x1234'],
  ])('error: a bad %s is a 400 naming it, before payment and before any bridge (%s)', async (field, query) => {
    const seen = lifi.state.seen.length + across.state.seen.length
    const response = await gateway.fetch(`http://gateway.test/api/v1/bridge/quote?${query}`)
    expect((await refused(response, 400)).field).toBe(field)
    expect(lifi.state.seen.length + across.state.seen.length).toBe(seen)
  })

  test("behavior: the original's client: its route, fees, timing, transaction and approval, amounts RAW as it reads them", async () => {
    const { response } = await paidCall(quotePath)
    const body = (await response.json()) as any
    expect(body).toMatchObject({
      status: 'ready',
      route: {
        fromChain: {
          name: 'Base',
          chainId: 8453,
          token: 'USDC',
          tokenAddress: baseUsdc!.address,
          amount: '1000000',
          amountRaw: '1000000',
          amountFormatted: '1',
        },
        // estimatedAmount is RAW, as the original's; the same value is also under the name every RAW amount has here.
        toChain: {
          name: 'Arbitrum One',
          chainId: 42161,
          token: 'USDC',
          tokenAddress: arbitrumUsdc!.address,
          estimatedAmount: '999500',
          estimatedAmountRaw: '999500',
          estimatedAmountFormatted: '0.9995',
          minimumAmount: '999500',
          minimumAmountRaw: '999500',
          minimumAmountFormatted: '0.9995',
        },
        bridge: 'across',
        bridgeType: 'bridge',
      },
      // USD from the gateway's own prices: the USDC fees at 1 (0.0005), the origin gas at the devnet's ETH / USD
      // feed, 3,000 (0.0000015 ETH is 0.0045).
      fees: { gasCostUSD: '0.0045', bridgeFeeUSD: '0.0005', totalFeeUSD: '0.005', reason: null },
      timing: { estimatedSeconds: 4, estimatedMinutes: 1 },
      transaction: { ...body.quote.transactionRequest, gasPrice: null },
      approval: { spender: acrossSpender, token: baseUsdc!.address, amount: '1000000' },
    })
  })

  test("behavior: the original's chain spellings and token native: bnb is bsc, native is the zero address", async () => {
    const seen = lifi.state.seen.length
    const query = `fromChain=arb&toChain=Base&token=native&amount=1000000000000000&fromAddress=${sender}`
    const { response } = await paidCall(`/api/v1/bridge/quote?${query}`)
    expect(response.status).toBe(200)
    const asked = lifi.state.seen.slice(seen).find((url) => url.pathname.endsWith('/quote'))!
    expect(asked.searchParams.get('fromChain')).toBe('42161')
    expect(asked.searchParams.get('toChain')).toBe('8453')
    expect(asked.searchParams.get('fromToken')).toBe(zeroAddress)
    const body = (await response.json()) as any
    expect(body.route.fromChain).toMatchObject({ token: 'ETH', tokenAddress: zeroAddress, amount: '1000000000000000' })
    expect(body.approval).toBeNull()
    const bsc = await gateway.fetch(
      `http://gateway.test/api/v1/bridge/quote?fromChain=bnb&toChain=base&token=BNB&amount=1&fromAddress=${sender}`,
    )
    expect(bsc.status).toBe(402)
  })

  test('behavior: unichain (130), as the original served it, by name, by its uni and by id', async () => {
    const unichainUsdc = tokens.find((token) => token.chainId === 130 && token.symbol === 'USDC')!
    for (const spelling of ['unichain', 'UNI', '130']) {
      const seen = lifi.state.seen.length
      const query = `fromChain=${spelling}&toChain=base&token=USDC&amount=1000000&fromAddress=${sender}`
      const { response } = await paidCall(`/api/v1/bridge/quote?${query}`)
      expect(response.status).toBe(200)
      const asked = lifi.state.seen.slice(seen).find((url) => url.pathname.endsWith('/quote'))!
      expect([asked.searchParams.get('fromChain'), asked.searchParams.get('toChain')]).toEqual(['130', '8453'])
      const body = (await response.json()) as any
      expect(body.route.fromChain).toMatchObject({ name: 'Unichain', chainId: 130, tokenAddress: unichainUsdc.address })
      expect(body.quote.fromChain).toEqual({ name: 'unichain', title: 'Unichain', chainId: 130 })
    }
    const native = `fromChain=base&toChain=unichain&token=ETH&amount=1000&fromAddress=${sender}`
    expect((await gateway.fetch(`http://gateway.test/api/v1/bridge/quote?${native}`)).status).toBe(402)
  })

  test('behavior: a fee in a token without a price here leaves its kind and the total null, and says why', async () => {
    const pol = { chainId: 137, address: zeroAddress, symbol: 'POL', decimals: 18 }
    const usdc = { chainId: 137, address: baseUsdc!.address, symbol: 'USDC', decimals: 6 }
    const quoting = (fees: Bridge.Fee[]): Bridge.Bridge => ({
      id: 'stub',
      name: 'Stub',
      available: () => ({ ok: true }),
      chains: async () => ({ ok: true, chainIds: [137, 8453] }),
      quote: async (request) => ({
        ok: true,
        quote: {
          source: 'stub',
          tool: 'stub',
          fromToken: usdc,
          toToken: { ...baseUsdc!, chainId: 8453 },
          fromAmount: request.amount,
          toAmount: request.amount - 1_234n,
          toAmountMin: request.amount - 1_234n,
          durationSeconds: 60,
          approvalAddress: acrossSpender,
          fees,
          transaction: { to: acrossSpender, data: '0x', value: 0n, gasLimit: null, chainId: 137 },
        },
      }),
    })
    const fees: Bridge.Fee[] = [
      { name: 'gas', amount: 10n ** 16n, token: pol, included: false, kind: 'gas' },
      { name: 'relayer fee', amount: 1_234n, token: usdc, included: true, kind: 'fee' },
    ]
    const payer = privateKeyToAccount(generatePrivateKey())
    const path = `/api/v1/bridge/quote?fromChain=polygon&toChain=base&token=USDC&amount=1000000&fromAddress=${sender}`
    const polygon = moduleGateway(manifest, { ports: { bridges: () => [quoting(fees)] } })
    const unpriced = (await (await polygon.get(path, payer)).json()) as any
    expect(unpriced.fees).toEqual({
      gasCostUSD: null,
      bridgeFeeUSD: '0.001234',
      totalFeeUSD: null,
      reason: 'POL has no USD price here (USDC and ETH have).',
    })
    // ETH without an oracle: not priced either, and said so.
    const eth = { ...pol, symbol: 'ETH' }
    const noOracle = moduleGateway(manifest, {
      ports: { bridges: () => [quoting([{ ...fees[0]!, token: eth }, fees[1]!])] },
    })
    const { fees: noPrice } = (await (await noOracle.get(path, payer)).json()) as any
    expect(noPrice).toMatchObject({ gasCostUSD: null, bridgeFeeUSD: '0.001234', totalFeeUSD: null })
    expect(noPrice.reason).toContain('No price oracle')
  })

  test("error: another chain's native coin is a 400 naming token, before payment", async () => {
    const query = `fromChain=base&toChain=arbitrum&token=MATIC&amount=1&fromAddress=${sender}`
    const problem = await refused(await gateway.fetch(`http://gateway.test/api/v1/bridge/quote?${query}`), 400)
    expect(problem).toMatchObject({ field: 'token', detail: expect.stringContaining('native coin of polygon') })
  })

  test('behavior: chains by id, a token by lowercase address, are accepted', async () => {
    const query = `fromChain=8453&toChain=arbitrum&token=${baseUsdc!.address.toLowerCase()}&amount=2000000&fromAddress=${sender.toLowerCase()}`
    const { response } = await paidCall(`/api/v1/bridge/quote?${query}`)
    expect(response.status).toBe(200)
    const { quote } = (await response.json()) as any
    expect(quote.fromAmount.raw).toBe('2000000')
    expect(quote.transactionRequest.data).toBe(calldataOf(baseUsdc!.address, 2_000_000n, 42161, sender))
  })
})

describe('GET /api/v1/bridge/chains', () => {
  test('default: paid, the registry chains some bridge serves, each with the bridges that do', async () => {
    const { response, charged } = await paidCall('/api/v1/bridge/chains')
    expect(response.status).toBe(200)
    expect(charged).toBe(2_000n)
    const chain = (key: string, name: string, chainId: number, bridges: string[]) => ({
      key,
      name,
      title: name,
      chainId,
      nativeCurrency: 'ETH',
      bridges,
    })
    expect(await response.json()).toEqual({
      chains: [
        chain('base', 'Base', 8453, ['lifi', 'across']),
        chain('ethereum', 'Ethereum', 1, ['lifi']),
        chain('arbitrum', 'Arbitrum One', 42161, ['lifi', 'across']),
        chain('optimism', 'OP Mainnet', 10, ['lifi', 'across']),
        chain('unichain', 'Unichain', 130, ['lifi']),
      ],
      chainCount: 5,
    })
  })
})

describe('readiness', () => {
  /** A bridge that takes no calls (its breaker open), answering nothing. */
  const closed = (id: string): Bridge.Bridge => ({
    id,
    name: id,
    quote: async () => ({ ok: false, reason: 'unavailable', status: undefined, message: `${id} is resting.` }),
    chains: async () => ({ ok: false, reason: 'unavailable', status: undefined, message: `${id} is resting.` }),
    available: () => ({ ok: false, reason: `${id} failed 5 calls in a row.` }),
  })

  test('error: while no bridge takes calls, both endpoints are a 503 before any payment is asked for', async () => {
    const opened: Bridge.Settings[] = []
    const gateway = moduleGateway(manifest, {
      ports: {
        bridges: (settings) => {
          opened.push(settings)
          return [closed('lifi'), closed('across')]
        },
      },
      env: { LIFI_API_KEY: 'lifi-secret' },
    })
    for (const path of [quotePath, '/api/v1/bridge/chains']) {
      const problem = await refused(await gateway.handle(new Request(`http://gateway.test${path}`)), 503)
      expect(problem.detail).toContain('lifi failed 5 calls in a row. across failed 5 calls in a row.')
    }
    // Opened once, from the family's environment, and the breakers read are those the calls move.
    expect(opened).toEqual([
      { lifi: { url: 'https://li.quest/v1', key: 'lifi-secret' }, across: { url: 'https://app.across.to/api' } },
    ])
  })

  test('behavior: one bridge taking calls is enough to ask for payment', async () => {
    const gateway = moduleGateway(manifest, {
      ports: { bridges: () => [closed('lifi'), { ...closed('across'), available: () => ({ ok: true }) }] },
    })
    expect((await gateway.handle(new Request(`http://gateway.test${quotePath}`))).status).toBe(402)
  })
})
