import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  erc20Abi,
  formatUnits,
  type Hex,
  type PrivateKeyAccount,
  parseAbi,
} from 'viem'
import quoterV2Artifact from '../../adapters/chain/contracts/artifacts/uniswap/QuoterV2.json' with { type: 'json' }
import factoryArtifact from '../../adapters/chain/contracts/artifacts/uniswap/UniswapV3Factory.json' with {
  type: 'json',
}
import poolArtifact from '../../adapters/chain/contracts/artifacts/uniswap/UniswapV3Pool.json' with { type: 'json' }
import { contracts } from '../../adapters/chain/devnet.js'
import * as Lending from '../../core/Lending.js'
import * as Uniswap from '../../core/Uniswap.js'
import * as Service from '../../modules/swap/service.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'
import { baseQuoter } from '../support/quoter.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway()
})
afterAll(async () => {
  await gateway.close()
})

const token = (symbol: string) => gateway.devnet.tokens[symbol]!.address

function balanceOf(asset: Address, holder: Address): Promise<bigint> {
  return gateway.devnet.publicClient.readContract({
    address: asset,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
  })
}

async function send(account: PrivateKeyAccount, transaction: { to: Address; data: Hex }) {
  const wallet = createWalletClient({ account, chain: gateway.devnet.chain, transport: gateway.devnet.transport })
  const hash = await wallet.sendTransaction({ to: transaction.to, data: transaction.data, gas: 1_000_000n })
  return gateway.devnet.publicClient.waitForTransactionReceipt({ hash })
}

const unpaid = (path: string, init?: RequestInit) => gateway.fetch(`${origin}${path}`, init)

describe('devnet deployment', () => {
  test('default: the core registries name the devnet contracts', () => {
    const deployed = contracts()
    expect(Uniswap.devnet).toEqual({ ...deployed.uniswap, weth: deployed.tokens.WETH! })
    expect(Lending.devnet).toEqual({
      aave: deployed.aave,
      comets: [{ name: 'cUSDCv3', address: deployed.comet }],
    })
  })

  test("behavior: the factory's pool is where the periphery's CREATE2 computation puts it", async () => {
    const { publicClient, uniswap } = gateway.devnet
    const created = await publicClient.readContract({
      address: uniswap.factory,
      abi: factoryArtifact.abi,
      functionName: 'getPool',
      args: [token('USDC'), token('WETH'), 500],
    })
    expect(created).toBe(
      Uniswap.poolAddress({ factory: uniswap.factory, tokenA: token('USDC'), tokenB: token('WETH'), fee: 500 }),
    )
    const { keccak256 } = await import('viem')
    expect(keccak256(poolArtifact.bytecode as Hex)).toBe(Uniswap.poolInitCodeHash)
  })
})

describe('GET /api/v1/swap/quote', () => {
  test('default: the deep direct pool, at the oracle price less its fee, with the gas QuoterV2 estimates', async () => {
    const answer = await ok(
      await gateway.paid(gateway.account(1), 'GET', '/api/v1/swap/quote?tokenIn=USDC&tokenOut=WETH&amountIn=1000'),
    )
    expect(answer).toMatchObject({
      source: 'uniswap-v3',
      route: 'USDC > WETH',
      pools: [{ fee: 500, feePercent: '0.05', tokenIn: token('USDC'), tokenOut: token('WETH') }],
      tokenIn: { symbol: 'USDC', amount: '1000', amountRaw: '1000000000' },
      tokenOut: { symbol: 'WETH', decimals: 18 },
      oracle: { amountOut: { formatted: '0.333333333333333333' } },
    })
    // 1,000 USDC at 3,000 USD per ETH, less the 0.05% fee and a little impact in a 400,000-dollar pool.
    const amountOut = BigInt(answer.amountOut)
    expect(amountOut).toBeLessThan(333_166_666_666_666_667n)
    expect(amountOut).toBeGreaterThan(332_000_000_000_000_000n)
    expect(Number(answer.priceImpactPercent)).toBeGreaterThan(0.05)
    expect(Number(answer.priceImpactPercent)).toBeLessThan(0.5)
    expect(BigInt(answer.gasEstimate)).toBeGreaterThan(50_000n)
  })

  test('behavior: the original\'s client: amountIn "2500" is 2,500 USDC, with the original\'s answer fields', async () => {
    const answer = await ok(
      await gateway.paid(gateway.account(1), 'GET', '/api/v1/swap/quote?tokenIn=USDC&tokenOut=WETH&amountIn=2500'),
    )
    expect(answer).toMatchObject({
      tokenIn: { symbol: 'USDC', address: token('USDC'), decimals: 6, amount: '2500', amountRaw: '2500000000' },
      tokenOut: { symbol: 'WETH', address: token('WETH'), decimals: 18, estimatedAmountRaw: answer.amountOut },
      dex: 'uniswap-v3',
      feeTier: '0.05%',
      priceImpact: `${answer.priceImpactPercent}%`,
      transaction: { to: gateway.devnet.uniswap.swapRouter02, chainId: gateway.devnet.chainId },
    })
    expect(answer.tokenOut.estimatedAmount).toBe(answer.amountOutFormatted)
    // 2,500 USDC at 3,000 USD per ETH, less the fee and the impact in a 400,000-dollar pool; the price to 8 decimals.
    const price = (BigInt(answer.amountOut) * 10n ** 14n) / (2_500_000_000n * 10n ** 18n)
    expect(answer.executionPrice).toBe(`1 USDC = ${formatUnits(price, 8)} WETH`)
    expect(Number(answer.tokenOut.estimatedAmount)).toBeGreaterThan(0.82)
    expect(Number(answer.tokenOut.estimatedAmount)).toBeLessThan(0.834)
  })

  test('behavior: a route through WETH beats the thin direct pool', async () => {
    const amountIn = 1_000_000_000n
    const answer = await ok(
      await gateway.paid(gateway.account(1), 'GET', '/api/v1/swap/quote?tokenIn=usdc&tokenOut=DAI&amountIn=1000'),
    )
    expect(answer.route).toBe('USDC > WETH > DAI')
    expect(answer.pools.map((pool: { fee: number }) => pool.fee)).toEqual([500, 3000])
    const { result } = await gateway.devnet.publicClient.simulateContract({
      address: gateway.devnet.uniswap.quoterV2,
      abi: quoterV2Artifact.abi,
      functionName: 'quoteExactInputSingle',
      args: [{ tokenIn: token('USDC'), tokenOut: token('DAI'), amountIn, fee: 3000, sqrtPriceLimitX96: 0n }],
    })
    const direct = (result as readonly bigint[])[0]!
    expect(direct).toBeGreaterThan(0n)
    expect(BigInt(answer.amountOut)).toBeGreaterThan(direct)
    expect(answer.priceImpactPercent).toBeNull()
  })

  test('behavior: tokens by address; an address without an ERC-20 is a 400 after the quote tries it, nothing charged', async () => {
    const payer = gateway.account(2)
    const byAddress = await ok(
      await gateway.paid(
        payer,
        'GET',
        `/api/v1/swap/quote?tokenIn=${token('USDC').toLowerCase()}&tokenOut=${token('WETH')}&amountIn=1`,
      ),
    )
    expect(byAddress).toMatchObject({ route: 'USDC > WETH', tokenIn: { symbol: 'USDC' }, tokenOut: { symbol: 'WETH' } })
    const before = await gateway.balance(payer.address)
    const missing = '0x000000000000000000000000000000000000dEaD'
    const problem = await refused(
      await gateway.paid(payer, 'GET', `/api/v1/swap/quote?tokenIn=USDC&tokenOut=${missing}&amountIn=1`),
      400,
    )
    expect(problem.detail).toContain('tokenOut')
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('error: a pair without liquidity is a 422 no_route, and nothing is charged', async () => {
    const payer = gateway.account(2)
    const before = await gateway.balance(payer.address)
    const problem = await refused(
      await gateway.paid(payer, 'GET', '/api/v1/swap/quote?tokenIn=EURC&tokenOut=USDC&amountIn=1'),
      422,
    )
    expect(problem.code).toBe('no_route')
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('error: bad input is a 400 naming the field, before any payment', async () => {
    for (const [query, field] of [
      ['tokenIn=BTC&tokenOut=USDC&amountIn=1', 'tokenIn'],
      ['tokenIn=USDC&tokenOut=0x1234&amountIn=1', 'tokenOut'],
      ['tokenIn=USDC&tokenOut=usdc&amountIn=1', 'tokenOut'],
      ['tokenIn=USDC&tokenOut=WETH&amountIn=0', 'amountIn'],
      ['tokenIn=USDC&tokenOut=WETH&amountIn=2500.0000001', 'amountIn'],
      ['tokenIn=USDC&tokenOut=WETH&amountIn=1e3', 'amountIn'],
    ] as const) {
      const problem = await refused(await unpaid(`/api/v1/swap/quote?${query}`), 400)
      expect(problem.field ?? problem.details?.field ?? problem.detail).toContain(field)
    }
    expect((await unpaid('/api/v1/swap/quote?tokenIn=USDC&tokenOut=WETH&amountIn=1')).status).toBe(402)
  })
})

describe('GET /api/v1/swap/tokens', () => {
  test('default: the devnet keeps its own tokens, with the router', async () => {
    const answer = await ok(await gateway.paid(gateway.account(1), 'GET', '/api/v1/swap/tokens'))
    expect(answer.tokens.map((listed: { symbol: string }) => listed.symbol)).toEqual([
      'USDC',
      'USDT',
      'EURC',
      'DAI',
      'WETH',
    ])
    expect(answer).toMatchObject({
      total: 5,
      network: 'base',
      router: gateway.devnet.uniswap.swapRouter02,
      supportedDexes: ['uniswap-v3'],
      contracts: {
        dex: 'uniswap-v3',
        quoterV2: gateway.devnet.uniswap.quoterV2,
        swapRouter02: gateway.devnet.uniswap.swapRouter02,
      },
      tokenList: { package: '@uniswap/default-token-list', name: 'Uniswap Labs Default' },
    })
    expect(answer.tokens[0]).toMatchObject({ symbol: 'USDC', network: 'base', chainId: gateway.devnet.chainId })
  })

  test("behavior: on Base, the curated tokens then Uniswap's default list, 100+, with the original's", () => {
    const { endpoint } = baseQuoter({ quote: () => undefined })
    const answer = Service.tokens({ chain: endpoint, feeds: undefined, aggregator: undefined, now: Date.now })
    const symbols = answer.tokens.map((listed) => listed.symbol)
    expect(answer.total).toBeGreaterThanOrEqual(100)
    expect(symbols.slice(0, 5)).toEqual(['USDC', 'USDT', 'EURC', 'DAI', 'WETH'])
    for (const symbol of ['cbBTC', 'USDbC', 'AERO', 'DEGEN', 'BRETT', 'TOSHI']) expect(symbols).toContain(symbol)
    expect(answer.router).toBe(Uniswap.baseMainnet.swapRouter02)
  })
})

describe("GET /api/v1/swap/quote on Base: the original gateway's symbols", () => {
  const cbBTC = '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf'
  const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
  const caller = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

  test('behavior: cbBTC is the list\'s contract with its 8 decimals: "1" quotes 10^8 base units of it', async () => {
    // A stand-in Base node: only the 0.05% cbBTC/USDC pool quotes, 100,000 USDC for one cbBTC.
    const { endpoint, asked } = baseQuoter({
      quote: ({ tokens, fees, amountIn }) =>
        tokens.length === 2 &&
        tokens[0]!.toLowerCase() === cbBTC.toLowerCase() &&
        tokens[1]!.toLowerCase() === usdc.toLowerCase() &&
        fees[0] === 500
          ? (amountIn * 100_000n * 10n ** 6n) / 10n ** 8n
          : undefined,
    })
    const deps = { chain: endpoint, feeds: undefined, aggregator: undefined, now: Date.now }
    await Service.preflightQuote(deps, { tokenIn: 'cbbtc', tokenOut: 'USDC', amountIn: '1' })
    expect(asked).toEqual([])
    const answer = await Service.quote(deps, { tokenIn: 'cbbtc', tokenOut: 'USDC', amountIn: '1', caller })
    expect(answer).toMatchObject({
      chainId: 8453,
      tokenIn: { symbol: 'cbBTC', address: cbBTC, decimals: 8, amount: '1', amountRaw: '100000000' },
      tokenOut: { symbol: 'USDC', address: usdc, estimatedAmountRaw: '100000000000' },
      route: 'cbBTC > USDC',
      feeTier: '0.05%',
      quoter: Uniswap.baseMainnet.quoterV2,
    })
    // One eth_call, every route from cbBTC's contract for 10^8 base units.
    expect(asked).toHaveLength(1)
    for (const quote of asked[0]!) {
      expect(quote.tokens[0]!.toLowerCase()).toBe(cbBTC.toLowerCase())
      expect(quote.amountIn).toBe(100_000_000n)
    }
  })

  test.each(['USDbC', 'AERO', 'DEGEN', 'BRETT', 'TOSHI'])(
    'behavior: %s resolves before payment, no chain read',
    async (symbol) => {
      const { endpoint, asked } = baseQuoter({ quote: () => undefined })
      const deps = { chain: endpoint, feeds: undefined, aggregator: undefined, now: Date.now }
      await Service.preflightQuote(deps, { tokenIn: symbol.toLowerCase(), tokenOut: 'WETH', amountIn: '2.5' })
      expect(asked).toEqual([])
    },
  )
})

describe('POST /api/v1/swap/execute', () => {
  test('default: the caller signs the approval and the swap; the recipient receives what the quote said', async () => {
    const trader = gateway.account(3)
    const recipient = gateway.account(4).address
    const body = { tokenIn: 'USDC', tokenOut: 'DAI', amountIn: '2500', recipient, slippageBps: 30 }
    const answer = await ok(await gateway.paid(trader, 'POST', '/api/v1/swap/execute', body))
    expect(answer).toMatchObject({
      status: 'ready',
      txHash: null,
      signer: trader.address,
      recipient,
      slippageBps: 30,
      approvalTransaction: { to: token('USDC'), value: '0', chainId: gateway.devnet.chainId },
      transaction: { to: gateway.devnet.uniswap.swapRouter02, value: '0', chainId: gateway.devnet.chainId },
    })
    const quoted = BigInt(answer.quote.amountOut)
    expect(BigInt(answer.amountOutMinimum.raw)).toBe((quoted * 9_970n) / 10_000n)
    expect(decodeFunctionData({ abi: erc20Abi, data: answer.approvalTransaction.data })).toEqual({
      functionName: 'approve',
      args: [gateway.devnet.uniswap.swapRouter02, 2_500_000_000n],
    })
    const multicall = decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data: answer.transaction.data })
    expect(multicall.functionName).toBe('multicall')
    expect(multicall.args[0]).toBe(BigInt(answer.deadline))

    const before = await balanceOf(token('DAI'), recipient)
    expect((await send(trader, answer.approvalTransaction)).status).toBe('success')
    expect((await send(trader, answer.transaction)).status).toBe('success')
    const received = (await balanceOf(token('DAI'), recipient)) - before
    expect(received).toBeGreaterThanOrEqual(BigInt(answer.amountOutMinimum.raw))
    // Nothing traded between the quote and the swap, so the pools deliver exactly what QuoterV2 simulated.
    expect(received).toBe(quoted)

    // The allowance is spent: a second swap needs a new approval; an allowance that covers it needs none.
    const again = await ok(await gateway.paid(trader, 'POST', '/api/v1/swap/execute', body))
    expect(again.approvalTransaction).toBeDefined()
    await send(trader, again.approvalTransaction)
    const covered = await ok(await gateway.paid(trader, 'POST', '/api/v1/swap/execute', body))
    expect(covered.approvalTransaction).toBeUndefined()
  })

  test('behavior: the original MCP tool\'s call: amountIn "2500" is 2,500 USDC in the calldata, slippage 1 is 100 bps', async () => {
    const trader = gateway.account(3)
    const recipient = gateway.account(4).address
    const body = { tokenIn: 'USDC', tokenOut: 'WETH', amountIn: '2500', recipient, slippage: 1 }
    const answer = await ok(await gateway.paid(trader, 'POST', '/api/v1/swap/execute', body))
    const quoted = BigInt(answer.quote.amountOut)
    const minimum = (quoted * 9_900n) / 10_000n
    expect(answer).toMatchObject({
      status: 'ready',
      slippageBps: 100,
      quote: {
        tokenIn: { symbol: 'USDC', amount: '2500', amountRaw: '2500000000' },
        tokenOut: { estimatedAmountRaw: quoted.toString(), minimumAmountRaw: minimum.toString() },
        feeTier: 500,
        feeTierPercent: '0.05%',
        slippageBps: 100,
        slippagePercent: '1%',
      },
      transactions: { approval: answer.approvalTransaction ?? null, swap: answer.transaction },
      execution: {
        router: gateway.devnet.uniswap.swapRouter02,
        protocol: 'Uniswap V3',
        chainId: gateway.devnet.chainId,
        recipient,
        deadline: answer.deadline,
        deadlineISO: new Date(answer.deadline * 1000).toISOString(),
      },
    })
    const multicall = decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data: answer.transactions.swap.data })
    const [call] = multicall.args[1] as readonly Hex[]
    const swap = decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data: call! })
    expect(swap.args[0]).toMatchObject({ amountIn: 2_500_000_000n, amountOutMinimum: minimum, recipient })
  })

  test("behavior: the original's ETH is WETH, quoted and swapped as the ERC-20", async () => {
    const answer = await ok(
      await gateway.paid(gateway.account(1), 'GET', '/api/v1/swap/quote?tokenIn=eth&tokenOut=USDC&amountIn=0.5'),
    )
    expect(answer).toMatchObject({
      tokenIn: { symbol: 'WETH', address: token('WETH'), amount: '0.5', amountRaw: '500000000000000000' },
      route: 'WETH > USDC',
    })
  })

  test('error: bad input is a 400 naming the field, before any payment', async () => {
    const valid = { tokenIn: 'USDC', tokenOut: 'WETH', amountIn: '1', recipient: gateway.account(4).address }
    for (const [patch, field] of [
      [{ recipient: '0xnot-an-address' }, 'recipient'],
      [{ tokenIn: 'XYZ' }, 'tokenIn'],
      [{ deadline: 1 }, 'deadline'],
      [{ slippageBps: 9_000 }, 'slippageBps'],
      [{ slippage: 0.5, slippageBps: 50 }, 'slippage'],
      [{ slippage: 51 }, 'slippage'],
      [{ slippage: '0.005' }, 'slippage'],
      [{ amountIn: '1.0000001' }, 'amountIn'],
    ] as const) {
      const response = await unpaid('/api/v1/swap/execute', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...valid, ...patch }),
      })
      const problem = await refused(response, 400)
      expect(JSON.stringify(problem)).toContain(field)
    }
  })
})

describe('GET /api/v1/defi/positions', () => {
  test('default: real supply and borrow on the Aave and Compound look-alikes, valued by the oracle', async () => {
    const user = gateway.account(5)
    const { aave, comet } = gateway.devnet
    const weth = token('WETH')
    const usdc = token('USDC')
    const poolAbi = parseAbi([
      'function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
      'function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)',
    ])
    const cometAbi = parseAbi([
      'function supply(address asset, uint256 amount)',
      'function withdraw(address asset, uint256 amount)',
    ])
    const { encodeFunctionData } = await import('viem')
    const approve = (spender: Address, amount: bigint) =>
      send(user, {
        to: weth,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
      })
    for (const [to, data] of [
      [weth, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [aave.pool, 10n ** 18n] })],
      [
        aave.pool,
        encodeFunctionData({ abi: poolAbi, functionName: 'supply', args: [weth, 10n ** 18n, user.address, 0] }),
      ],
      [
        aave.pool,
        encodeFunctionData({ abi: poolAbi, functionName: 'borrow', args: [usdc, 1_000_000_000n, 2n, 0, user.address] }),
      ],
    ] as const)
      expect((await send(user, { to, data })).status).toBe('success')
    await approve(comet, 2n * 10n ** 18n)
    expect(
      (
        await send(user, {
          to: comet,
          data: encodeFunctionData({ abi: cometAbi, functionName: 'supply', args: [weth, 2n * 10n ** 18n] }),
        })
      ).status,
    ).toBe('success')
    expect(
      (
        await send(user, {
          to: comet,
          data: encodeFunctionData({ abi: cometAbi, functionName: 'withdraw', args: [usdc, 3_000_000_000n] }),
        })
      ).status,
    ).toBe('success')
    // More than the collateral allows is refused on chain.
    expect(
      (
        await send(user, {
          to: comet,
          data: encodeFunctionData({ abi: cometAbi, functionName: 'withdraw', args: [usdc, 3_000_000_000n] }),
        })
      ).status,
    ).toBe('reverted')

    const answer = await ok(
      await gateway.paid(gateway.account(1), 'GET', `/api/v1/defi/positions?address=${user.address}`),
    )
    expect(answer.address).toBe(user.address)
    expect(answer.total_positions).toBe(4)
    const original = (asset: { symbol: string; address: Address; decimals: number }, raw: string, human: string) => ({
      chain: 'base',
      asset_address: asset.address,
      asset_symbol: asset.symbol,
      asset_decimals: asset.decimals,
      balance_raw: raw,
      balance_human: human,
    })
    const usdcAsset = { symbol: 'USDC', address: usdc, decimals: 6 }
    const wethAsset = { symbol: 'WETH', address: weth, decimals: 18 }
    expect(answer.positions).toEqual([
      {
        protocol: 'aave-v3',
        market: aave.pool,
        type: 'borrow',
        asset: usdcAsset,
        amount: { raw: '1000000000', formatted: '1000' },
        usd: '1000',
        category: 'borrowing',
        ...original(usdcAsset, '1000000000', '1000'),
      },
      {
        protocol: 'aave-v3',
        market: aave.pool,
        type: 'supply',
        asset: wethAsset,
        amount: { raw: '1000000000000000000', formatted: '1' },
        usd: '3000',
        category: 'lending',
        ...original(wethAsset, '1000000000000000000', '1'),
      },
      {
        protocol: 'compound-v3',
        market: 'cUSDCv3',
        type: 'borrow',
        asset: usdcAsset,
        amount: { raw: '3000000000', formatted: '3000' },
        usd: '3000',
        category: 'borrowing',
        ...original(usdcAsset, '3000000000', '3000'),
      },
      {
        protocol: 'compound-v3',
        market: 'cUSDCv3',
        type: 'collateral',
        asset: wethAsset,
        amount: { raw: '2000000000000000000', formatted: '2' },
        usd: '6000',
        category: 'lending',
        ...original(wethAsset, '2000000000000000000', '2'),
      },
    ])
    // 3,000 USD of WETH at an 83% liquidation threshold against 1,000 USD of debt.
    expect(answer.aave).toMatchObject({ totalCollateralUsd: '3000', totalDebtUsd: '1000', healthFactor: '2.49' })
    expect(answer.partialErrors).toEqual([])
  })

  test("behavior: the original gateway's call (chain=base-mainnet) answers its protocols_with_exposure and by_protocol", async () => {
    // Account 5's positions are the ones the default test opened.
    const user = gateway.account(5)
    const answer = await ok(
      await gateway.paid(
        gateway.account(1),
        'GET',
        `/api/v1/defi/positions?address=${user.address}&chain=base-mainnet`,
      ),
    )
    expect(answer.chain).toBe('base')
    expect(answer.total_positions).toBe(4)
    expect(answer.protocols_with_exposure).toEqual(['aave-v3', 'compound-v3'])
    expect(Object.keys(answer.by_protocol)).toEqual(['aave-v3', 'compound-v3'])
    expect(answer.by_protocol['aave-v3']).toEqual(answer.positions.slice(0, 2))
    expect(answer.by_protocol['compound-v3']).toEqual(answer.positions.slice(2))
    expect(answer.by_protocol['compound-v3'].map((position: { category: string }) => position.category)).toEqual([
      'borrowing',
      'lending',
    ])
    // As the original, partial_errors is absent when every protocol was read; ours stays an empty list.
    expect('partial_errors' in answer).toBe(false)
    expect(answer.partialErrors).toEqual([])
  })

  test('behavior: an address without positions has none', async () => {
    const answer = await ok(
      await gateway.paid(
        gateway.account(1),
        'GET',
        `/api/v1/defi/positions?address=${gateway.account(6).address}&chain=base`,
      ),
    )
    expect(answer).toMatchObject({
      total_positions: 0,
      positions: [],
      protocols_with_exposure: [],
      by_protocol: {},
      aave: { healthFactor: null },
    })
  })

  test('error: bad input is a 400 naming the field, before any payment', async () => {
    expect((await refused(await unpaid('/api/v1/defi/positions?address=0x12'), 400)).detail).toContain('address')
    const chain = await refused(
      await unpaid(`/api/v1/defi/positions?address=${gateway.account(6).address}&chain=ethereum`),
      400,
    )
    expect(chain.detail).toContain('chain')
    // The original's other spelling reads no protocol there (its readers are Base's): a 400 before payment, not an empty answer.
    const ethereum = await refused(
      await unpaid(`/api/v1/defi/positions?address=${gateway.account(6).address}&chain=eth-mainnet`),
      400,
    )
    expect(ethereum.detail).toContain('chain')
    expect(ethereum.detail).toContain('ethereum is not served here')
  })
})

// Last: it moves the devnet's clock past the deadline.
describe('POST /api/v1/swap/execute, past its deadline', () => {
  test('error: the router refuses a swap sent after its deadline', async () => {
    const trader = gateway.account(7)
    const deadline = Math.floor(Date.now() / 1000) + 60
    const body = { tokenIn: 'USDC', tokenOut: 'WETH', amountIn: '1000', recipient: trader.address, deadline }
    const answer = await ok(await gateway.paid(trader, 'POST', '/api/v1/swap/execute', body))
    expect(answer.deadline).toBe(deadline)
    await send(trader, answer.approvalTransaction)
    await gateway.devnet.request('evm_setNextBlockTimestamp', [`0x${(deadline + 1).toString(16)}`])
    const before = await balanceOf(token('USDC'), trader.address)
    expect((await send(trader, answer.transaction)).status).toBe('reverted')
    expect(await balanceOf(token('USDC'), trader.address)).toBe(before)
  })
})

describe('GET /api/v1/swap/quote, compared with the 0x Swap API', () => {
  /** What the stand-in answers next: a buy amount, no liquidity, or an HTTP error. */
  let next: { buyAmount: bigint } | 'none' | 429 = 'none'
  const seen: URL[] = []
  const allowanceHolder = '0x0000000000001fF3684f28c67538d4D072C22734'
  // A local stand-in speaking the 0x Swap API v2 `allowance-holder/quote` shape, with its 401 and 429 answers.
  const zeroX = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      if (request.headers.get('0x-api-key') !== 'zero-x-test-key')
        return Response.json({ name: 'UNAUTHORIZED', message: 'Invalid API key' }, { status: 401 })
      if (url.pathname !== '/swap/allowance-holder/quote' || request.headers.get('0x-version') !== 'v2')
        return Response.json({ name: 'NOT_FOUND', message: 'Not found' }, { status: 404 })
      seen.push(url)
      if (next === 429) return Response.json({ name: 'RATE_LIMITED', message: 'Too many requests' }, { status: 429 })
      if (next === 'none') return Response.json({ liquidityAvailable: false, zid: '0x111' })
      const { buyAmount } = next
      return Response.json({
        blockNumber: '12345',
        buyAmount: String(buyAmount),
        buyToken: url.searchParams.get('buyToken'),
        fees: { integratorFee: null, zeroExFee: null, gasFee: null },
        issues: {
          allowance: { actual: '0', spender: allowanceHolder },
          balance: null,
          simulationIncomplete: false,
          invalidSourcesPassed: [],
        },
        liquidityAvailable: true,
        minBuyAmount: String((buyAmount * 99n) / 100n),
        route: {
          fills: [
            {
              from: url.searchParams.get('sellToken'),
              to: url.searchParams.get('buyToken'),
              source: 'Aerodrome_V2',
              proportionBps: '6000',
            },
            {
              from: url.searchParams.get('sellToken'),
              to: url.searchParams.get('buyToken'),
              source: 'Uniswap_V3',
              proportionBps: '4000',
            },
          ],
          tokens: [],
        },
        sellAmount: url.searchParams.get('sellAmount'),
        sellToken: url.searchParams.get('sellToken'),
        tokenMetadata: {
          buyToken: { buyTaxBps: '0', sellTaxBps: '0' },
          sellToken: { buyTaxBps: '0', sellTaxBps: '0' },
        },
        totalNetworkFee: '1000000000000',
        transaction: { to: allowanceHolder, data: '0x2213bc0b00', gas: '288079', gasPrice: '4000000', value: '0' },
        zid: '0x222',
      })
    },
  })
  let compared: Awaited<ReturnType<typeof paidGateway>>
  beforeAll(async () => {
    compared = await paidGateway({
      env: { ZEROX_API_KEY: 'zero-x-test-key', ZEROX_API_URL: `http://127.0.0.1:${zeroX.port}` },
    })
  })
  afterAll(async () => {
    await compared.close()
    zeroX.stop(true)
  })
  const path = '/api/v1/swap/quote?tokenIn=USDC&tokenOut=WETH&amountIn=1000'

  test('behavior: the better 0x quote is answered, naming its source and the Uniswap one it beat', async () => {
    next = 'none'
    const uniswap = await ok(await compared.paid(compared.account(1), 'GET', path))
    expect(uniswap.source).toBe('uniswap-v3')
    expect(uniswap.comparison).toEqual({
      source: '0x',
      available: false,
      reason: 'no liquidity for this pair and amount',
    })
    const payer = compared.account(1)
    expect(seen.at(-1)!.searchParams.get('taker')).toBe(payer.address)
    expect(seen.at(-1)!.searchParams.get('sellAmount')).toBe('1000000000')

    next = { buyAmount: BigInt(uniswap.amountOut) + 1n }
    const better = await ok(await compared.paid(payer, 'GET', path))
    expect(better).toMatchObject({
      source: '0x',
      amountOut: String(BigInt(uniswap.amountOut) + 1n),
      route: 'Aerodrome_V2 + Uniswap_V3',
      allowanceSpender: allowanceHolder,
      transaction: { to: allowanceHolder, gas: '288079', value: '0', chainId: compared.devnet.chainId },
      comparison: { source: 'uniswap-v3', available: true, amountOut: uniswap.amountOut },
    })

    next = { buyAmount: BigInt(uniswap.amountOut) - 1n }
    const worse = await ok(await compared.paid(payer, 'GET', path))
    expect(worse).toMatchObject({
      source: 'uniswap-v3',
      amountOut: uniswap.amountOut,
      comparison: { source: '0x', available: true, amountOut: String(BigInt(uniswap.amountOut) - 1n) },
    })
  })

  test('behavior: a rate-limited 0x leaves the Uniswap quote, with the reason', async () => {
    next = 429
    const answer = await ok(await compared.paid(compared.account(1), 'GET', path))
    expect(answer.source).toBe('uniswap-v3')
    expect(answer.comparison.available).toBe(false)
    expect(answer.comparison.reason).toContain('Too many requests')
  })

  test('behavior: a pair without a Uniswap pool is quoted by 0x when it has liquidity', async () => {
    next = { buyAmount: 999_000n }
    const answer = await ok(
      await compared.paid(compared.account(1), 'GET', '/api/v1/swap/quote?tokenIn=EURC&tokenOut=USDC&amountIn=1'),
    )
    expect(answer).toMatchObject({
      source: '0x',
      amountOut: '999000',
      comparison: { source: 'uniswap-v3', available: false },
    })
  })
})
