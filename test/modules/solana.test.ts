import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import {
  generateKeyPairSigner,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
} from '@solana/kit'
import { formatUnits } from 'viem'
import * as Module from '../../core/Module.js'
import { assetsManifest, prices, pricesManifest, swapManifest } from '../../modules/solana/index.js'
import { feePayerOf } from '../../modules/solana/service.js'
import {
  bonk,
  btcUsd,
  dasAsset,
  solanaStandIns,
  solUsd,
  swapTransaction,
  usdc,
  wsol,
} from '../adapters/solana/stand-ins.js'
import { moduleGateway, testGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'
import { paidGateway } from '../support/paid.js'

const standIns = solanaStandIns()
const { keys, jupiterServer, dasServer, hermesServer, rpcServer, owner, nft } = standIns
afterAll(() => standIns.stop())
beforeEach(() => {
  for (const server of [jupiterServer, dasServer, hermesServer, rpcServer]) {
    server.faults.length = 0
    server.received.length = 0
  }
  jupiterServer.state.feePayer = undefined
  jupiterServer.state.legacy = false
  jupiterServer.state.swapTransaction = undefined
})

/** When the price endpoints' clock says it is, epoch ms: 30 s after the SOL/USD price was published. */
const now = 1_763_900_030_000

/** Every Solana family in the gateway on the stand-ins (the node at `rpcUrl`), paid by alice; retries off. */
function gatewayOf(rpcUrl = rpcServer.url) {
  const ports = standIns.ports(rpcUrl)
  const pricesAt = Module.define({
    ...pricesManifest,
    routes: () => prices({ service: ports.solanaPrices, now: () => now }),
  })
  return {
    swap: moduleGateway(swapManifest, { ports, payer: payers.alice }),
    assets: moduleGateway(assetsManifest, { ports, payer: payers.alice }),
    prices: moduleGateway(pricesAt, { ports, payer: payers.alice }),
  }
}

/** The fee payer of a base64 transaction, decoded with @solana/kit independently of the module. */
function decodedFeePayer(base64: string): string {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64))
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
  expect(message.version).toBe(0)
  return message.staticAccounts[0]!
}

const quotePath = (query: string) => `/api/v1/solana/aggregator/quote?${query}`

describe('GET /api/v1/solana/aggregator/quote', () => {
  test('default: raw base-unit amounts, the route and the quote to pass back, paid once', async () => {
    const { swap } = gatewayOf()
    const body = await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=2000000000`)))
    const net = 2_000_000_000n - 800_000n
    const out = (net * 7_500_000_000_000n) / (50_000_000_000_000n + net)
    expect(body).toMatchObject({
      aggregator: 'Jupiter',
      inputMint: wsol,
      outputMint: usdc,
      inAmount: '2000000000',
      outAmount: out.toString(),
      otherAmountThreshold: ((out * 9_950n) / 10_000n).toString(),
      swapMode: 'ExactIn',
      slippageBps: 50,
      route: [{ venue: 'Whirlpool', inputMint: wsol, outputMint: usdc, inAmount: '2000000000', percent: 100 }],
    })
    // Against the pool's spot price: the 4 bps fee and the move of the price along the curve.
    const spot = (2_000_000_000n * 7_500_000_000_000n) / 50_000_000_000_000n
    expect(body.priceImpactPct).toBe(formatUnits(((spot - out) * 10n ** 18n) / spot, 18))
    expect(body.quoteResponse.outAmount).toBe(out.toString())
    expect(swap.settled).toHaveLength(1)
  })

  test("behavior: the original gateway's symbols stand for their mints; routeHops and raw as it answers them", async () => {
    const { swap } = gatewayOf()
    const body = await ok(await swap.get(quotePath('inputMint=SOL&outputMint=usdc&amount=2000000000&slippageBps=100')))
    expect(body).toMatchObject({ inputMint: wsol, outputMint: usdc, inAmount: '2000000000', slippageBps: 100 })
    expect(body.routeHops).toBe(1)
    expect(body.raw).toEqual(body.quoteResponse)
    const sent = jupiterServer.received.find((request) => request.route.endsWith('/quote'))!
    expect(sent.url.searchParams.get('inputMint')).toBe(wsol)
    expect(sent.url.searchParams.get('outputMint')).toBe(usdc)
  })

  test('error: a symbol the original gateway does not know is a 400 naming the field before any payment', async () => {
    const { swap } = gatewayOf()
    const problem = await refused(await swap.get(quotePath('inputMint=DOGE&outputMint=USDC&amount=1'), undefined), 400)
    expect(problem.field).toBe('inputMint')
  })

  test("default: each amount formatted beside it, exactly, with the mints' decimals from the node", async () => {
    const { swap } = gatewayOf()
    const body = await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=1234567891`)))
    // 1234567891 less the 4 bps fee (493827) through the 50000 SOL / 7500000 USDC pool: 185106540 USDC base units;
    // formatUnits drops the trailing zero.
    expect(body).toMatchObject({
      inAmount: '1234567891',
      inAmountFormatted: '1.234567891',
      outAmount: '185106540',
      outAmountFormatted: '185.10654',
      otherAmountThreshold: '184181007',
      otherAmountThresholdFormatted: '184.181007',
      route: [
        {
          inAmount: '1234567891',
          inAmountFormatted: '1.234567891',
          outAmount: '185106540',
          outAmountFormatted: '185.10654',
        },
      ],
      decimals: { [wsol]: 9, [usdc]: 6 },
      formatting: { available: true, reason: null },
    })
    expect(swap.settled).toHaveLength(1)
  })

  test('behavior: the decimals are read once per mint; a second quote reads none', async () => {
    const { swap } = gatewayOf()
    await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=1000000000`)))
    const asked = rpcServer.received.map((request) => JSON.parse(request.body).params[0]).sort()
    expect(asked).toEqual([wsol, usdc].sort())
    const second = await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=3000000000`)))
    expect(second.inAmountFormatted).toBe('3')
    expect(rpcServer.received).toHaveLength(2)
  })

  test('behavior: a node that does not answer leaves the raw amounts unformatted, says why, and is paid', async () => {
    const { swap } = gatewayOf('http://127.0.0.1:9/')
    const body = await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=2000000000`)))
    expect(body).toMatchObject({
      inAmount: '2000000000',
      inAmountFormatted: null,
      outAmountFormatted: null,
      otherAmountThresholdFormatted: null,
      route: [{ inAmount: '2000000000', inAmountFormatted: null, outAmountFormatted: null }],
      decimals: null,
      formatting: { available: false },
    })
    expect(body.outAmount).toMatch(/^[1-9][0-9]*$/)
    expect(body.formatting.reason).toMatch(
      /^The decimals of \S+ could not be read: The Solana node could not be reached\.$/,
    )
    expect(swap.settled).toHaveLength(1)
  })

  test('behavior: an account the node says is no mint leaves the quote unformatted, naming it', async () => {
    const { swap } = gatewayOf()
    const known = rpcServer.mints.get(usdc)!
    rpcServer.mints.delete(usdc)
    try {
      const body = await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=2000000000`)))
      expect(body.inAmountFormatted).toBeNull()
      expect(body.decimals).toBeNull()
      expect(body.formatting).toEqual({
        available: false,
        reason: `The decimals of ${usdc} could not be read: Invalid param: not a Token mint (JSON-RPC -32602)`,
      })
    } finally {
      rpcServer.mints.set(usdc, known)
    }
  })

  test('behavior: a pair with no route is a 422 no_route naming it, and nothing is charged', async () => {
    const { swap } = gatewayOf()
    const problem = await refused(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${bonk}&amount=1000`)), 422)
    expect(problem.code).toBe('no_route')
    expect(problem.detail).toContain(`Jupiter has no route from ${wsol} to ${bonk} for 1000`)
    expect(problem.detail).toContain('COULD_NOT_FIND_ANY_ROUTE')
    expect(swap.settled).toHaveLength(0)
  })

  test.each([
    ['inputMint', `inputMint=0x1234&outputMint=${usdc}&amount=1`],
    ['outputMint', `inputMint=${wsol}&outputMint=${usdc}0&amount=1`],
    ['amount', `inputMint=${wsol}&outputMint=${usdc}&amount=0`],
    ['amount', `inputMint=${wsol}&outputMint=${usdc}&amount=1.5`],
    ['amount', `inputMint=${wsol}&outputMint=${usdc}&amount=18446744073709551616`],
    ['slippageBps', `inputMint=${wsol}&outputMint=${usdc}&amount=1&slippageBps=10001`],
  ])('error: a bad %s is a 400 naming it before any payment (%s)', async (field, query) => {
    const { swap } = gatewayOf()
    // Unpaid: a 400, not a 402, so the caller is never asked to pay for bad input.
    const problem = await refused(await swap.get(quotePath(query), undefined), 400)
    expect(problem.field).toBe(field)
    expect(jupiterServer.received).toHaveLength(0)
  })

  test('error: a rate-limited Jupiter is a 503, and nothing is charged', async () => {
    const { swap } = gatewayOf()
    jupiterServer.faults.push({ status: 429, retryAfter: 1 })
    const problem = await refused(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=10`)), 503)
    expect(problem.code).toBe('upstream_unavailable')
    expect(swap.settled).toHaveLength(0)
  })
})

describe('POST /api/v1/solana/aggregator/swap-tx', () => {
  /** A quote from the gateway, and a new wallet to swap with. */
  async function quoted(swap: ReturnType<typeof gatewayOf>['swap']) {
    const body = await ok(await swap.get(quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=1000000`)))
    const user = (await generateKeyPairSigner()).address
    return { quoteResponse: body.quoteResponse, userPublicKey: user }
  }

  test("default: Jupiter's versioned transaction exactly as it answered it, its fee payer the user's key", async () => {
    const { swap } = gatewayOf()
    const request = await quoted(swap)
    const body = await ok(await swap.post('/api/v1/solana/aggregator/swap-tx', request))
    expect(body.swapTransaction).toBe(jupiterServer.transactions.at(-1)!)
    expect(decodedFeePayer(body.swapTransaction)).toBe(request.userPublicKey)
    expect(body).toMatchObject({
      feePayer: request.userPublicKey,
      prioritizationFeeLamports: 5_000,
      computeUnitLimit: 180_000,
    })
    expect(body.lastValidBlockHeight).toBeGreaterThan(279_000_000)
    expect(JSON.parse(jupiterServer.received.at(-1)!.body).quoteResponse).toEqual(request.quoteResponse)
    // The quote and the swap transaction.
    expect(swap.settled).toHaveLength(2)
  })

  test("behavior: the original gateway's wrapAndUnwrapSol and prioritizationFeeLamports reach Jupiter", async () => {
    const { swap } = gatewayOf()
    const request = await quoted(swap)
    const body = { ...request, wrapAndUnwrapSol: false, prioritizationFeeLamports: 10_000 }
    await ok(await swap.post('/api/v1/solana/aggregator/swap-tx', body))
    const sent = JSON.parse(jupiterServer.received.at(-1)!.body)
    expect(sent).toMatchObject({ wrapAndUnwrapSol: false, prioritizationFeeLamports: 10_000 })
    const problem = await refused(
      await swap.post(
        '/api/v1/solana/aggregator/swap-tx',
        { ...request, prioritizationFeeLamports: 'high' },
        undefined,
      ),
      400,
    )
    expect(problem.field).toBe('prioritizationFeeLamports')
  })

  test('security: a transaction whose fee payer is anyone else is refused (502), and nothing is charged', async () => {
    const { swap } = gatewayOf()
    const request = await quoted(swap)
    const stranger = (await generateKeyPairSigner()).address
    jupiterServer.state.feePayer = stranger
    const problem = await refused(await swap.post('/api/v1/solana/aggregator/swap-tx', request), 502)
    expect(problem.code).toBe('upstream_failed')
    expect(problem.detail).toContain(`fee payer is ${stranger}, not userPublicKey ${request.userPublicKey}`)
    expect(swap.settled).toHaveLength(1)
  })

  test.each([
    ['a legacy transaction', { legacy: true }, 'is a legacy transaction, not a versioned one'],
    ['text that is not base64', { swapTransaction: 'not base64!' }, 'is not base64'],
    ['bytes that are no transaction', { swapTransaction: 'AAAA' }, 'does not decode as a Solana transaction'],
  ])('error: %s is refused (502), and nothing is charged', async (_, state, reason) => {
    const { swap } = gatewayOf()
    const request = await quoted(swap)
    Object.assign(jupiterServer.state, state)
    const problem = await refused(await swap.post('/api/v1/solana/aggregator/swap-tx', request), 502)
    expect(problem.detail).toBe(`Jupiter answered a swap transaction that ${reason}.`)
    expect(swap.settled).toHaveLength(1)
  })

  test.each([
    ['userPublicKey', (request: any) => ({ ...request, userPublicKey: 'not-a-key' })],
    ['quoteResponse', (request: any) => ({ userPublicKey: request.userPublicKey })],
    [
      'quoteResponse.inputMint',
      (request: any) => ({ ...request, quoteResponse: { ...request.quoteResponse, inputMint: 'x' } }),
    ],
    [
      'quoteResponse.routePlan',
      (request: any) => ({ ...request, quoteResponse: { ...request.quoteResponse, routePlan: [] } }),
    ],
  ])('error: a bad %s is a 400 naming it before any payment', async (field, change) => {
    const { swap } = gatewayOf()
    const request = change(await quoted(swap))
    const problem = await refused(await swap.post('/api/v1/solana/aggregator/swap-tx', request, undefined), 400)
    expect(problem.field).toBe(field)
  })
})

describe('feePayerOf', () => {
  test('default: the first static account of a versioned transaction', async () => {
    const payer = (await generateKeyPairSigner()).address
    const transaction = swapTransaction({ feePayer: payer, user: payer, mints: [], lastValidBlockHeight: 1n })
    expect(feePayerOf(transaction)).toEqual({ ok: true, feePayer: payer })
  })

  test('error: bytes after the transaction are refused', async () => {
    const payer = (await generateKeyPairSigner()).address
    const bytes = getBase64Encoder().encode(
      swapTransaction({ feePayer: payer, user: payer, mints: [], lastValidBlockHeight: 1n }),
    )
    const padded = Buffer.concat([Buffer.from(bytes), Buffer.from([0, 0])]).toString('base64')
    expect(feePayerOf(padded)).toEqual({ ok: false, reason: 'has 2 bytes after the transaction' })
  })
})

describe('GET /api/v1/solana/assetindex/*', () => {
  test('default: one page of the owner, 100 per page unless asked, paid once', async () => {
    const { assets } = gatewayOf()
    const body = await ok(await assets.get(`/api/v1/solana/assetindex/assets-by-owner?owner=${owner}`))
    expect(body).toEqual({
      owner,
      total: 1,
      page: 1,
      limit: 100,
      itemCount: 1,
      nativeBalance: { lamports: 0 },
      items: [nft],
    })
    expect(JSON.parse(dasServer.received[0]!.body).params).toEqual({
      ownerAddress: owner,
      page: 1,
      limit: 100,
      displayOptions: { showFungible: true, showNativeBalance: true },
    })
    expect(dasServer.received[0]!.url.searchParams.get('api-key')).toBe(keys.helius)
    expect(assets.settled).toHaveLength(1)
  })

  test("behavior: the original gateway's showFungible and showNativeBalance: tokens and SOL unless asked not to", async () => {
    const { assets } = gatewayOf()
    const token = dasAsset(usdc, owner, 'USD Coin', 'FungibleToken')
    dasServer.assets.set(token.id, token)
    dasServer.lamportsOf.set(owner, 2_500_000_000)
    const all = await ok(await assets.get(`/api/v1/solana/assetindex/assets-by-owner?owner=${owner}`))
    expect(all).toMatchObject({ itemCount: 2, nativeBalance: { lamports: 2_500_000_000 } })
    const nftsOnly = await ok(
      await assets.get(
        `/api/v1/solana/assetindex/assets-by-owner?owner=${owner}&showFungible=false&showNativeBalance=false`,
      ),
    )
    expect(nftsOnly).toMatchObject({ itemCount: 1, nativeBalance: null, items: [nft] })
    dasServer.assets.delete(token.id)
    dasServer.lamportsOf.delete(owner)
  })

  test('default: one asset by id', async () => {
    const { assets } = gatewayOf()
    expect(await ok(await assets.get(`/api/v1/solana/assetindex/asset?id=${nft.id}`))).toEqual({
      id: nft.id,
      asset: nft,
    })
  })

  test('behavior: an asset the index does not know is a 404, and nothing is charged', async () => {
    const { assets } = gatewayOf()
    const problem = await refused(await assets.get(`/api/v1/solana/assetindex/asset?id=${usdc}`), 404)
    expect(problem.detail).toBe(`No asset ${usdc}: Database Error: RecordNotFound Error: Asset Not Found`)
    expect(assets.settled).toHaveLength(0)
  })

  test('error: a failing provider is a 502 that never shows its key, and nothing is charged', async () => {
    const { assets } = gatewayOf()
    dasServer.faults.push({ status: 500 })
    const response = await assets.get(`/api/v1/solana/assetindex/assets-by-owner?owner=${owner}&page=2&limit=10`)
    const text = await response.clone().text()
    expect((await refused(response, 502)).code).toBe('upstream_failed')
    expect(text).not.toContain(keys.helius)
    expect(assets.settled).toHaveLength(0)
  })

  test.each([
    ['owner', '/api/v1/solana/assetindex/assets-by-owner?owner=abc'],
    ['page', `/api/v1/solana/assetindex/assets-by-owner?owner=${owner}&page=0`],
    ['limit', `/api/v1/solana/assetindex/assets-by-owner?owner=${owner}&limit=1001`],
    ['id', '/api/v1/solana/assetindex/asset?id=0xdeadbeef'],
    ['showFungible', `/api/v1/solana/assetindex/assets-by-owner?owner=${owner}&showFungible=no`],
  ])('error: a bad %s is a 400 naming it before any payment', async (field, path) => {
    const { assets } = gatewayOf()
    expect((await refused(await assets.get(path, undefined), 400)).field).toBe(field)
  })
})

describe('GET /api/v1/solana/pricefeed/*', () => {
  test("default: the original gateway's fields (numbers, raw, expo, unix publishTime, emaPrice) beside ours, exact", async () => {
    const { prices: api } = gatewayOf()
    expect(await ok(await api.get(`/api/v1/solana/pricefeed/price?feedId=${solUsd}`))).toEqual({
      symbol: solUsd.toUpperCase(),
      feedId: solUsd,
      feedSymbol: 'Crypto.SOL/USD',
      price: 148.360123,
      confidence: 0.07012345,
      raw: '14836012300',
      expo: -8,
      publishTime: 1_763_900_000,
      publishTimeIso: '2025-11-23T12:13:20.000Z',
      emaPrice: 148.360123,
      priceDecimal: '148.360123',
      confidenceDecimal: '0.07012345',
      exponent: -8,
      ageSeconds: 30,
    })
    expect(api.settled).toHaveLength(1)
  })

  test("behavior: the original gateway's client asks by symbol (any case) or by hex without 0x", async () => {
    const { prices: api } = gatewayOf()
    const bySymbol = await ok(await api.get('/api/v1/solana/pricefeed/price?feedId=btc'))
    expect(bySymbol).toMatchObject({ symbol: 'BTC', feedId: btcUsd, price: 98765.43210987, emaPrice: 98700 })
    const byHex = await ok(await api.get(`/api/v1/solana/pricefeed/price?feedId=${solUsd.slice(2)}`))
    expect(byHex).toMatchObject({ feedId: solUsd, priceDecimal: '148.360123' })
    expect(hermesServer.received.filter((request) => request.route === 'GET /v2/updates/price/latest')).toHaveLength(2)
  })

  test('behavior: prices keyed by the symbol asked for; entries that are no feed are listed in invalid, not fatal', async () => {
    const { prices: api } = gatewayOf()
    const body = await ok(await api.get('/api/v1/solana/pricefeed/prices?feedIds=sol, BTC,DOGE,0x1234,,'))
    expect(body.count).toBe(2)
    expect(body.invalid).toEqual(['DOGE', '0x1234'])
    expect(Object.keys(body.prices)).toEqual(['SOL', 'BTC'])
    expect(body.prices.SOL).toMatchObject({ feedId: solUsd, price: 148.360123, expo: -8, publishTime: 1_763_900_000 })
    expect(body.prices.BTC).toMatchObject({ feedId: btcUsd, priceDecimal: '98765.43210987' })
    expect(api.settled).toHaveLength(1)
  })

  test('behavior: big, negative and positively scaled prices stay exact', async () => {
    const { prices: api } = gatewayOf()
    const big = `0x${'01'.repeat(32)}`
    const scaled = `0x${'02'.repeat(32)}`
    hermesServer.feeds.set(big.slice(2), {
      symbol: 'Crypto.BIG/USD',
      price: '-9223372036854775807',
      conf: '1',
      expo: -18,
      publishTime: 1_763_900_000,
    })
    hermesServer.feeds.set(scaled.slice(2), {
      symbol: 'FX.SCALED/USD',
      price: '123',
      conf: '4',
      expo: 3,
      publishTime: 1_763_900_000,
    })
    const body = await ok(await api.get(`/api/v1/solana/pricefeed/prices?feedIds=${big},${scaled}`))
    expect(body.prices[big]).toMatchObject({
      priceDecimal: '-9.223372036854775807',
      confidenceDecimal: '0.000000000000000001',
      raw: '-9223372036854775807',
    })
    expect(body.prices[scaled]).toMatchObject({ priceDecimal: '123000', confidenceDecimal: '4000', exponent: 3 })
    expect(body.prices[scaled]).toMatchObject({ price: 123000, confidence: 4000, expo: 3 })
    hermesServer.feeds.delete(big.slice(2))
    hermesServer.feeds.delete(scaled.slice(2))
  })

  test('default: several feeds in one call, by feed id', async () => {
    const { prices: api } = gatewayOf()
    const body = await ok(
      await api.get(`/api/v1/solana/pricefeed/prices?feedIds=${solUsd},${btcUsd.toUpperCase().replace('0X', '0x')}`),
    )
    expect(body.count).toBe(2)
    expect(Object.keys(body.prices)).toEqual([solUsd, btcUsd])
    expect(body.invalid).toEqual([])
    expect(body.prices[btcUsd]).toMatchObject({
      feedSymbol: 'Crypto.BTC/USD',
      priceDecimal: '98765.43210987',
      ageSeconds: 40,
    })
    expect(api.settled).toHaveLength(1)
  })

  test('error: 51 feeds are a 400 before any payment; 50 are served', async () => {
    const { prices: api } = gatewayOf()
    const ids = Array.from({ length: 51 }, (_, index) => `0x${index.toString(16).padStart(64, '0')}`)
    const problem = await refused(
      await api.get(`/api/v1/solana/pricefeed/prices?feedIds=${ids.join(',')}`, undefined),
      400,
    )
    expect(problem.field).toBe('feedIds')
    expect(problem.detail).toBe('feedIds: names 51 feeds; at most 50 per call (in query)')
    for (const id of ids.slice(0, 50))
      hermesServer.feeds.set(id.slice(2), { symbol: 'Crypto.X/USD', price: '1', conf: '0', expo: 0, publishTime: 1 })
    const body = await ok(await api.get(`/api/v1/solana/pricefeed/prices?feedIds=${ids.slice(0, 50).join(',')}`))
    expect(body.count).toBe(50)
    for (const id of ids) hermesServer.feeds.delete(id.slice(2))
    expect(hermesServer.received.filter((request) => request.route === 'GET /v2/updates/price/latest')).toHaveLength(1)
  })

  test.each([
    [
      'a list with no feed in it',
      'feedIds=DOGE,0x1234',
      'names no feed: a symbol (SOL, BTC, ETH, ...) or 64 hex digits, with or without 0x (in query)',
    ],
    [
      'a list of empty entries',
      'feedIds=,,',
      'names no feed: a symbol (SOL, BTC, ETH, ...) or 64 hex digits, with or without 0x (in query)',
    ],
    ['a feed by symbol and by id', `feedIds=SOL,${solUsd.slice(2)}`, 'names a feed more than once (in query)'],
    [
      'a feed twice',
      `feedIds=${solUsd},${solUsd.toUpperCase().replace('0X', '0x')}`,
      'names a feed more than once (in query)',
    ],
  ])('error: %s is a 400 before any payment', async (_, query, message) => {
    const { prices: api } = gatewayOf()
    const problem = await refused(await api.get(`/api/v1/solana/pricefeed/prices?${query}`, undefined), 400)
    expect(problem.detail).toBe(`feedIds: ${message}`)
  })

  test('error: a malformed feedId is a 400 naming it before any payment', async () => {
    const { prices: api } = gatewayOf()
    expect((await refused(await api.get('/api/v1/solana/pricefeed/price?feedId=DOGE', undefined), 400)).field).toBe(
      'feedId',
    )
  })

  test('behavior: a feed Hermes does not know is a 404, and nothing is charged', async () => {
    const { prices: api } = gatewayOf()
    const unknown = `0x${'ab'.repeat(32)}`
    const problem = await refused(await api.get(`/api/v1/solana/pricefeed/prices?feedIds=${solUsd},${unknown}`), 404)
    expect(problem.detail).toBe(`Unknown price feed: Pyth Hermes has no price feed ${unknown}.`)
    expect(api.settled).toHaveLength(0)
  })

  test('error: a rate-limited Hermes is a 503, and nothing is charged', async () => {
    const { prices: api } = gatewayOf()
    hermesServer.faults.push({ status: 429, retryAfter: 1 }, { status: 429, retryAfter: 1 })
    expect((await refused(await api.get(`/api/v1/solana/pricefeed/price?feedId=${solUsd}`), 503)).code).toBe(
      'upstream_unavailable',
    )
    expect(api.settled).toHaveLength(0)
  })
})

describe('unconfigured vendors', () => {
  test.each([
    ['/api/v1/solana/aggregator/quote', 'JUPITER_API_KEY'],
    ['/api/v1/solana/assetindex/asset', 'DAS_URL or HELIUS_API_KEY'],
    ['/api/v1/solana/pricefeed/price', 'PYTH_API_KEY'],
  ])('error: %s is a 503 naming %s, before any payment', async (path, setting) => {
    const gateway = testGateway({ families: [swapManifest, assetsManifest, pricesManifest] })
    const problem = await refused(await gateway.fetch(path), 503)
    expect(problem.code).toBe('upstream_unavailable')
    expect(problem.detail).toContain(setting)
    const manifest = (await (await gateway.fetch('/.well-known/x402.json')).json()) as any
    const resource = manifest.resources.find((candidate: any) => candidate.path === path)
    expect(resource.available).toBe(false)
    expect(resource.unavailable.reason).toContain(setting)
  })
})

describe('paid through the normal flow', () => {
  let gateway: Awaited<ReturnType<typeof paidGateway>>
  beforeAll(async () => {
    gateway = await paidGateway({
      env: {
        JUPITER_URL: jupiterServer.url,
        JUPITER_API_KEY: keys.jupiter,
        DAS_URL: dasServer.url,
        HELIUS_API_KEY: keys.helius,
        HERMES_URL: hermesServer.url,
        PYTH_API_KEY: keys.pyth,
        SOLANA_RPC_URL: rpcServer.url,
      },
    })
  })
  afterAll(() => gateway.close())

  test('default: a quote costs 0.005 USDC on the devnet; a failed upstream call costs nothing', async () => {
    const payer = gateway.account(1)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=1000`))
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ inAmount: '1000', inAmountFormatted: '0.000001' })
    expect(before - (await gateway.balance(payer.address))).toBe(5_000n)
    jupiterServer.faults.push({ status: 500 }, { status: 500 }, { status: 500 })
    const failed = await gateway.paid(payer, 'GET', quotePath(`inputMint=${wsol}&outputMint=${usdc}&amount=1000`))
    expect(failed.status).toBe(502)
    expect(before - (await gateway.balance(payer.address))).toBe(5_000n)
  })

  test('default: every Solana endpoint is available in discovery, and no key appears in it', async () => {
    const text = await (await gateway.fetch('http://gateway.test/.well-known/x402.json')).text()
    for (const secret of Object.values(keys)) expect(text).not.toContain(secret)
    const solana = JSON.parse(text).resources.filter((resource: any) => resource.category === 'solana')
    expect(solana.map((resource: any) => [resource.path, resource.available])).toEqual([
      ['/api/v1/solana/aggregator/quote', true],
      ['/api/v1/solana/aggregator/swap-tx', true],
      ['/api/v1/solana/assetindex/assets-by-owner', true],
      ['/api/v1/solana/assetindex/asset', true],
      ['/api/v1/solana/pricefeed/price', true],
      ['/api/v1/solana/pricefeed/prices', true],
    ])
  })
})
