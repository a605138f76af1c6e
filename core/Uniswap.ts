import {
  type Address,
  concat,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  getCreate2Address,
  type Hex,
  hexToBigInt,
  keccak256,
  numberToHex,
  parseAbi,
} from 'viem'
import { base } from 'viem/chains'
import { UpstreamFailedError } from './Errors.js'
import * as Multicall3 from './Multicall3.js'
import type * as Rpc from './Rpc.js'

/** Where Uniswap v3 is on one chain: the contracts a quote and a swap go through. */
export type Deployment = {
  /** UniswapV3Factory (@uniswap/v3-core). */
  factory: Address
  /** QuoterV2 (@uniswap/v3-periphery). */
  quoterV2: Address
  /** SwapRouter02 (@uniswap/swap-router-contracts). */
  swapRouter02: Address
  /** NonfungiblePositionManager (@uniswap/v3-periphery). */
  positionManager: Address
  /** The wrapped native token every multi-hop route goes through. */
  weth: Address
}

/** Uniswap v3 on Base mainnet (docs.uniswap.org "Base Deployments", docs.base.org "Base Mainnet"). */
export const baseMainnet: Deployment = {
  factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
  quoterV2: '0x3d4e44Eb1374240CE5F1B871ab261CD16335B76a',
  swapRouter02: '0x2626664c2603336E57B271c5C0b26F421741e481',
  positionManager: '0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1',
  weth: '0x4200000000000000000000000000000000000006',
}

/**
 * Uniswap v3 on the embedded devnet, from the published artifacts at the addresses its Uniswap deployer's nonces give
 * them (adapters/chain/devnet.ts `contracts().uniswap`; a test keeps the two equal). WETH is the devnet's WETH
 * look-alike.
 */
export const devnet: Deployment = {
  factory: '0x6BdBb69660E6849b98e8C524d266a0005D3655F7',
  positionManager: '0x9B06D17ce54B06dF4A644900492036E3AC384517',
  quoterV2: '0x23a3CA711f4AD7593b9558ff5e03B035b97DA023',
  swapRouter02: '0x5B0dFDF48739B0Cd5cfFd5e65E002f85FA45bCd4',
  weth: '0x749d20D85555330d20862770b58a72939285c42a',
}

/**
 * The deployment on the chain of a node by its id: Base mainnet's on Base, the devnet's on any other id of the
 * settlement chain `base` (the devnet on embedded defaults), as {@link TokenList.of} chooses tokens.
 */
export function of(chainId: number): Deployment {
  return chainId === base.id ? baseMainnet : devnet
}

/** The fee tiers of Uniswap v3, in hundredths of a basis point (100 = 0.01%). */
export const feeTiers = [100, 500, 3000, 10000] as const

/** A fee tier. */
export type FeeTier = (typeof feeTiers)[number]

/** Tick spacing of each fee tier, as the factory enables them. */
export const tickSpacings: Record<FeeTier, number> = { 100: 1, 500: 10, 3000: 60, 10000: 200 }

/** Lowest tick of a pool (TickMath.MIN_TICK). */
export const minTick = -887_272

/**
 * keccak256 of UniswapV3Pool's creation code: what the periphery (`PoolAddress.POOL_INIT_CODE_HASH`) computes pool
 * addresses with. Must match the factory's bytecode, which the published artifacts guarantee and a test checks.
 */
export const poolInitCodeHash: Hex = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54'

/** The two tokens of a pair in the pool's order (token0 has the lower address). */
export function sort(parameters: sort.Parameters): sort.ReturnType {
  const { tokenA, tokenB } = parameters
  return BigInt(tokenA) < BigInt(tokenB) ? [tokenA, tokenB] : [tokenB, tokenA]
}

export declare namespace sort {
  type Parameters = {
    /** One token. */
    tokenA: Address
    /** The other. */
    tokenB: Address
  }
  type ReturnType = readonly [token0: Address, token1: Address]
}

/** The address of the pool of a pair and fee tier, computed as the factory's CREATE2 deploys it (PoolAddress.sol). */
export function poolAddress(parameters: poolAddress.Parameters): Address {
  const { factory, tokenA, tokenB, fee } = parameters
  const [token0, token1] = sort({ tokenA, tokenB })
  const salt = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [token0, token1, fee]),
  )
  return getCreate2Address({ from: factory, salt, bytecodeHash: poolInitCodeHash })
}

export declare namespace poolAddress {
  type Parameters = {
    /** UniswapV3Factory. */
    factory: Address
    /** One token. */
    tokenA: Address
    /** The other. */
    tokenB: Address
    /** Fee tier. */
    fee: number
  }
}

/** Largest integer whose square is at most `value`. */
function sqrtFloor(value: bigint): bigint {
  if (value < 2n) return value
  let x = value
  let y = (x + 1n) / 2n
  while (y < x) {
    x = y
    y = (x + value / x) / 2n
  }
  return x
}

/**
 * A pool's starting `sqrtPriceX96` for a price of token0 in token1, both in base units: floor(sqrt(amount1 / amount0)
 * × 2^96), exactly, with bigint. E.g. WETH (18 decimals) at 3,000 USDC (6 decimals): amount0 10^18, amount1 3×10^9.
 */
export function sqrtPriceX96(parameters: sqrtPriceX96.Parameters): bigint {
  const { amount0, amount1 } = parameters
  if (amount0 <= 0n || amount1 <= 0n) throw new RangeError('Both amounts of a pool price must be positive.')
  // floor(sqrt(floor(x))) = floor(sqrt(x)) for x >= 0, so dividing first loses nothing.
  return sqrtFloor((amount1 << 192n) / amount0)
}

export declare namespace sqrtPriceX96 {
  type Parameters = {
    /** Base units of token0 of the price. */
    amount0: bigint
    /** Base units of token1 they are worth. */
    amount1: bigint
  }
}

/** A swap path as QuoterV2 and SwapRouter02 read it: token, fee (uint24), token, ... packed. */
export function encodePath(parameters: encodePath.Parameters): Hex {
  const { tokens, fees } = parameters
  if (tokens.length !== fees.length + 1) throw new RangeError('A path has one fee fewer than tokens.')
  const packed = concat(
    tokens.flatMap((token, index) => (index < fees.length ? [token, numberToHex(fees[index]!, { size: 3 })] : [token])),
  )
  return packed.toLowerCase() as Hex
}

export declare namespace encodePath {
  type Parameters = {
    /** Tokens from input to output. */
    tokens: readonly Address[]
    /** Fee tier of each hop. */
    fees: readonly number[]
  }
}

/** QuoterV2's quoting functions (non-view: they simulate the swap; called with eth_call). */
export const quoterV2Abi = parseAbi([
  'struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }',
  'function quoteExactInputSingle(QuoteExactInputSingleParams params) returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)',
  'function quoteExactInput(bytes path, uint256 amountIn) returns (uint256 amountOut, uint160[] sqrtPriceX96AfterList, uint32[] initializedTicksCrossedList, uint256 gasEstimate)',
])

/** SwapRouter02's exact-input swaps and its deadline-checking multicall. */
export const swapRouter02Abi = parseAbi([
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'struct ExactInputParams { bytes path; address recipient; uint256 amountIn; uint256 amountOutMinimum; }',
  'function exactInputSingle(ExactInputSingleParams params) payable returns (uint256 amountOut)',
  'function exactInput(ExactInputParams params) payable returns (uint256 amountOut)',
  'function multicall(uint256 deadline, bytes[] data) payable returns (bytes[] results)',
])

/** One route: the tokens from input to output and the fee tier of each hop between them. */
export type Route = {
  /** Tokens from input to output: two for a direct pool, three through WETH. */
  tokens: readonly Address[]
  /** Fee tier of each hop. */
  fees: readonly number[]
}

/** The routes a quote compares: every fee tier direct, and every pair of fee tiers through `weth`. */
export function routes(parameters: routes.Parameters): Route[] {
  const { tokenIn, tokenOut, weth } = parameters
  const direct = feeTiers.map((fee) => ({ tokens: [tokenIn, tokenOut], fees: [fee] }))
  const touchesWeth = [tokenIn, tokenOut].some((token) => token.toLowerCase() === weth.toLowerCase())
  if (touchesWeth) return direct
  return [
    ...direct,
    ...feeTiers.flatMap((first) =>
      feeTiers.map((second) => ({ tokens: [tokenIn, weth, tokenOut], fees: [first, second] })),
    ),
  ]
}

export declare namespace routes {
  type Parameters = {
    /** Token sold. */
    tokenIn: Address
    /** Token bought. */
    tokenOut: Address
    /** The hop token of two-pool routes. */
    weth: Address
  }
}

/** The best quote of one route, as QuoterV2 returned it. */
export type Quoted = {
  /** The route. */
  route: Route
  /** Base units of the output token. */
  amountOut: bigint
  /** QuoterV2's gas estimate of the swap. */
  gasEstimate: bigint
}

/**
 * QuoterV2 on every route of `routes` in one Multicall3 `eth_call` of `chain`: the route with the most output, or
 * `undefined` when none quotes (no pool, no liquidity). The chain's own failure throws as {@link Multicall3.aggregate}.
 */
export async function quote(parameters: quote.Parameters): Promise<Quoted | undefined> {
  const { chain, quoter, routes, amountIn } = parameters
  const results = await Multicall3.aggregate(
    chain,
    routes.map((route) => ({ target: quoter, callData: quoteCalldata({ route, amountIn }) })),
  )
  return best(routes, results)
}

export declare namespace quote {
  type Parameters = {
    /** The chain the pools are on. */
    chain: Rpc.Endpoint
    /** QuoterV2 on that chain. */
    quoter: Address
    /** The routes compared, all from the same input to the same output token. */
    routes: readonly Route[]
    /** Base units of the input token. */
    amountIn: bigint
  }
}

/** The route of `routes` whose QuoterV2 answer (`results`, in the same order; `undefined` failed) gives the most output. */
function best(routes: readonly Route[], results: readonly (Hex | undefined)[]): Quoted | undefined {
  let winner: Quoted | undefined
  for (const [index, data] of results.entries()) {
    if (data === undefined) continue
    const route = routes[index]!
    const [amountOut, , , gasEstimate] =
      route.fees.length === 1
        ? decodeFunctionResult({ abi: quoterV2Abi, functionName: 'quoteExactInputSingle', data })
        : decodeFunctionResult({ abi: quoterV2Abi, functionName: 'quoteExactInput', data })
    if (amountOut > 0n && (!winner || amountOut > winner.amountOut)) winner = { route, amountOut, gasEstimate }
  }
  return winner
}

/** The QuoterV2 call that quotes `amountIn` along `route`: `quoteExactInputSingle` direct, `quoteExactInput` else. */
export function quoteCalldata(parameters: quoteCalldata.Parameters): Hex {
  const { route, amountIn } = parameters
  if (route.fees.length === 1)
    return encodeFunctionData({
      abi: quoterV2Abi,
      functionName: 'quoteExactInputSingle',
      args: [
        { tokenIn: route.tokens[0]!, tokenOut: route.tokens[1]!, amountIn, fee: route.fees[0]!, sqrtPriceLimitX96: 0n },
      ],
    })
  return encodeFunctionData({ abi: quoterV2Abi, functionName: 'quoteExactInput', args: [encodePath(route), amountIn] })
}

export declare namespace quoteCalldata {
  type Parameters = {
    /** The route. */
    route: Route
    /** Base units of the input token. */
    amountIn: bigint
  }
}

/**
 * The SwapRouter02 transaction data of an exact-input swap along `route`: `multicall(deadline, [exactInputSingle |
 * exactInput])`, so the router reverts once `deadline` has passed and the caller receives at least `amountOutMinimum`.
 */
export function swapCalldata(parameters: swapCalldata.Parameters): Hex {
  const { route, amountIn, amountOutMinimum, recipient, deadline } = parameters
  const swap =
    route.fees.length === 1
      ? encodeFunctionData({
          abi: swapRouter02Abi,
          functionName: 'exactInputSingle',
          args: [
            {
              tokenIn: route.tokens[0]!,
              tokenOut: route.tokens[1]!,
              fee: route.fees[0]!,
              recipient,
              amountIn,
              amountOutMinimum,
              sqrtPriceLimitX96: 0n,
            },
          ],
        })
      : encodeFunctionData({
          abi: swapRouter02Abi,
          functionName: 'exactInput',
          args: [{ path: encodePath(route), recipient, amountIn, amountOutMinimum }],
        })
  return encodeFunctionData({ abi: swapRouter02Abi, functionName: 'multicall', args: [deadline, [swap]] })
}

export declare namespace swapCalldata {
  type Parameters = {
    /** The route. */
    route: Route
    /** Base units sold. */
    amountIn: bigint
    /** Fewest base units bought, or the swap reverts. */
    amountOutMinimum: bigint
    /** Receives the bought tokens. */
    recipient: Address
    /** Seconds since the Unix epoch after which the router refuses the swap. */
    deadline: bigint
  }
}

/** The least output a swap may deliver: `amountOut` less `slippageBps`, rounded down. */
export function minimumOut(parameters: minimumOut.Parameters): bigint {
  const { amountOut, slippageBps } = parameters
  return (amountOut * (10_000n - slippageBps)) / 10_000n
}

export declare namespace minimumOut {
  type Parameters = {
    /** The quoted output, in base units. */
    amountOut: bigint
    /** Tolerated shortfall, in basis points. */
    slippageBps: bigint
  }
}

/** Fractional digits of a {@link usdPrices} price: USD per whole token × 10^18. */
export const priceDecimals = 18

/** Decimals of WETH (WETH9) on every chain. */
const wethDecimals = 18

/** Tokens priced per `eth_call` by {@link usdPrices} (eight quotes each), so that one call stays well below a node's gas cap. */
export const pricedPerCall = 20

/** One QuoterV2 quote on one pool that a price is computed from. */
export type Leg = {
  /** The pool: two tokens and a fee tier. */
  route: Route
  /** Base units of the input token quoted. */
  amountIn: bigint
  /** Base units of the output token QuoterV2 answered. */
  amountOut: bigint
}

/** The USD price of a token from pools, read in one block. */
export type UsdPrice = {
  /** USD per whole token × 10^{@link priceDecimals}, truncated. */
  usd: bigint
  /**
   * The quotes it is computed from: the token into the dollar token on one pool; or the token into WETH on one pool
   * and one WETH into the dollar token on another, the token's WETH valued at WETH's own quote.
   */
  legs: readonly Leg[]
  /** The block read. */
  blockNumber: bigint
  /** That block's time, seconds since the Unix epoch. */
  timestamp: bigint
}

/**
 * The USD price of each of `tokens` from Uniswap v3 pools: QuoterV2 on a fixed amount of the token into the dollar
 * token (USDC) at every fee tier, and into WETH at every fee tier valued at one WETH's own best quote into the dollar
 * token; the highest value wins (pool fee and price impact included, as the original gateway chooses). `undefined` for
 * a token no pool quotes. One Multicall3 `eth_call` per {@link pricedPerCall} tokens, each dated by its block; the
 * chain's own failure throws as {@link Multicall3.aggregate}.
 */
export async function usdPrices(parameters: usdPrices.Parameters): Promise<(UsdPrice | undefined)[]> {
  const { tokens, perCall = pricedPerCall } = parameters
  const batches: (typeof tokens)[number][][] = []
  for (let start = 0; start < tokens.length; start += perCall) batches.push(tokens.slice(start, start + perCall))
  return (await Promise.all(batches.map((batch) => usdBatch({ ...parameters, tokens: batch })))).flat()
}

export declare namespace usdPrices {
  type Parameters = {
    /** The chain the pools are on. */
    chain: Rpc.Endpoint
    /** Uniswap v3 on that chain. */
    deployment: Deployment
    /** The dollar token quoted into (USDC). */
    usd: { address: Address; decimals: number }
    /** The tokens priced, each with the amount quoted: `units` whole tokens. */
    tokens: readonly { address: Address; decimals: number; units: bigint }[]
    /** Tokens per `eth_call`. @default pricedPerCall */
    perCall?: number
  }
}

/** {@link usdPrices} of one batch of tokens, in one `eth_call`. */
async function usdBatch(parameters: usdPrices.Parameters): Promise<(UsdPrice | undefined)[]> {
  const { chain, deployment, usd, tokens } = parameters
  const { weth, quoterV2 } = deployment
  const direct = (tokenIn: Address, tokenOut: Address): Route[] =>
    feeTiers.map((fee) => ({ tokens: [tokenIn, tokenOut], fees: [fee] }))
  const same = (a: Address, b: Address) => a.toLowerCase() === b.toLowerCase()
  const oneWeth = 10n ** BigInt(wethDecimals)
  const wethRoutes = direct(weth, usd.address)
  const groups = tokens.map((token) => {
    const amountIn = token.units * 10n ** BigInt(token.decimals)
    const priced = !same(token.address, usd.address)
    return {
      decimals: token.decimals,
      amountIn,
      toUsd: priced ? direct(token.address, usd.address) : [],
      toWeth: priced && !same(token.address, weth) ? direct(token.address, weth) : [],
    }
  })
  const quotes = [
    ...wethRoutes.map((route) => ({ route, amountIn: oneWeth })),
    ...groups.flatMap(({ amountIn, toUsd, toWeth }) => [...toUsd, ...toWeth].map((route) => ({ route, amountIn }))),
  ]
  const blockCall = (functionName: 'getBlockNumber' | 'getCurrentBlockTimestamp') => ({
    target: Multicall3.address,
    callData: encodeFunctionData({ abi: Multicall3.abi, functionName }),
  })
  const [blockData, timeData, ...results] = await Multicall3.aggregate(chain, [
    blockCall('getBlockNumber'),
    blockCall('getCurrentBlockTimestamp'),
    ...quotes.map((quote) => ({ target: quoterV2, callData: quoteCalldata(quote) })),
  ])
  if (blockData === undefined || timeData === undefined)
    throw new UpstreamFailedError(
      'Multicall3 did not answer the block number and time of its reads; nothing is charged.',
    )
  const blockNumber = hexToBigInt(blockData)
  const timestamp = hexToBigInt(timeData)
  const wethLeg = best(wethRoutes, results.slice(0, wethRoutes.length))
  const usdScale = 10n ** BigInt(usd.decimals)
  let at = wethRoutes.length
  return groups.map(({ decimals, amountIn, toUsd, toWeth }) => {
    const toUsdBest = best(toUsd, results.slice(at, at + toUsd.length))
    at += toUsd.length
    const toWethBest = best(toWeth, results.slice(at, at + toWeth.length))
    at += toWeth.length
    // USD per whole token × 10^priceDecimals: (amountOut / 10^usdDecimals) / (amountIn / 10^decimals) × 10^18.
    const scale = 10n ** BigInt(decimals + priceDecimals)
    const candidates: Omit<UsdPrice, 'blockNumber' | 'timestamp'>[] = []
    if (toUsdBest)
      candidates.push({
        usd: (toUsdBest.amountOut * scale) / (amountIn * usdScale),
        legs: [{ route: toUsdBest.route, amountIn, amountOut: toUsdBest.amountOut }],
      })
    if (toWethBest && wethLeg)
      candidates.push({
        usd: (toWethBest.amountOut * wethLeg.amountOut * scale) / (amountIn * oneWeth * usdScale),
        legs: [
          { route: toWethBest.route, amountIn, amountOut: toWethBest.amountOut },
          { route: wethLeg.route, amountIn: oneWeth, amountOut: wethLeg.amountOut },
        ],
      })
    const winner = candidates
      .filter((candidate) => candidate.usd > 0n)
      .reduce<(typeof candidates)[number] | undefined>(
        (kept, next) => (!kept || next.usd > kept.usd ? next : kept),
        undefined,
      )
    return winner && { ...winner, blockNumber, timestamp }
  })
}
