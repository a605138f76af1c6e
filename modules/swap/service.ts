import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  getAddress,
  hexToBigInt,
  size,
} from 'viem'
import * as AddressFormat from '../../core/Address.js'
import { NoRouteError, UpstreamFailedError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Lending from '../../core/Lending.js'
import * as Multicall3 from '../../core/Multicall3.js'
import type { PriceFeeds, Reading } from '../../core/PriceFeeds.js'
import type * as Rpc from '../../core/Rpc.js'
import type { SwapAggregator } from '../../core/SwapAggregator.js'
import * as TokenList from '../../core/TokenList.js'
import * as Uniswap from '../../core/Uniswap.js'
import * as Units from '../../core/Units.js'
import type { ExecuteBody, PositionsQuery, QuoteQuery } from './schema.js'

/** What the swap module needs from outside. */
export type Deps = {
  /** The settlement chain's node: the devnet on embedded defaults, Base in production. */
  chain: Rpc.Endpoint
  /** USD price feeds for price impact and position values; without them those fields are `null`. */
  feeds: PriceFeeds | undefined
  /** A swap aggregator whose quote is compared with Uniswap's (0x, when its key is set). */
  aggregator: SwapAggregator | undefined
  /** Current time, epoch ms. */
  now: () => number
}

/** Default tolerated shortfall of a swap, in basis points (0.5%). */
export const defaultSlippageBps = 50

/** Default time a built swap stays valid, in seconds (20 minutes). */
export const defaultDeadlineS = 1_200

/** Latest deadline accepted, in seconds from now (a day). */
export const maxDeadlineS = 86_400

/** Status of a swap the gateway has built and the caller has still to sign and send: the original's `ready`. */
export const ready = 'ready'

/** One token a swap names: a listed symbol or an address. */
type Token = TokenList.Listed

/**
 * The tokens the router quotes by symbol: the chain's listed tokens ({@link TokenList.known}: the curated ones, then
 * Uniswap's default token list), with the Uniswap v3 contracts quotes go through. As the original gateway: `router` is
 * the router's address, with `total`, `network` and `supportedDexes`.
 */
export function tokens(deps: Deps) {
  const deployment = Uniswap.of(deps.chain.chainId)
  const { chainId } = deps.chain
  const listed = TokenList.known('base', chainId).map((token) => ({ ...token, network: 'base', chainId }))
  return {
    chainId,
    tokens: listed,
    total: listed.length,
    network: 'base',
    router: deployment.swapRouter02,
    contracts: { dex: 'uniswap-v3', quoterV2: deployment.quoterV2, swapRouter02: deployment.swapRouter02 },
    supportedDexes: ['uniswap-v3', ...(deps.aggregator ? [deps.aggregator.source] : [])],
    tokenList: TokenList.keptList,
    note: 'Any other ERC-20 may be named by address; it is quoted when Uniswap v3 has a pool of it. ETH is read as WETH.',
  }
}

/**
 * Checks the fields of a quote before payment: tokens by symbol or address, and `amountIn` as a HUMAN decimal of
 * tokenIn (as the original gateway reads it: `"100"` is 100 USDC), positive, at most tokenIn's decimals. An unlisted
 * tokenIn has its decimals read from the chain for that.
 */
export async function preflightQuote(deps: Deps, query: Partial<Record<keyof QuoteQuery, unknown>>): Promise<void> {
  const tokenIn = tokenField(deps, query.tokenIn, 'tokenIn')
  const tokenOut = tokenField(deps, query.tokenOut, 'tokenOut')
  if (tokenIn !== undefined && tokenOut !== undefined && tokenIn.toLowerCase() === tokenOut.toLowerCase())
    throw new ValidationError({ field: 'tokenOut', message: 'must differ from tokenIn' })
  if (tokenIn !== undefined && query.amountIn !== undefined)
    amountInOf(query.amountIn, await resolve(deps, query.tokenIn as string, 'tokenIn'))
}

/**
 * Checks the fields of a swap before payment: those of a quote, the recipient, the slippage (`slippageBps`, or the
 * original's MCP `slippage` in percent, not both) and the deadline.
 */
export async function preflightExecute(deps: Deps, body: unknown): Promise<void> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError({ field: 'body', message: 'must be a JSON object' })
  const fields = body as Record<string, unknown>
  if (typeof fields.recipient === 'string') evmAddress(fields.recipient, 'recipient')
  if (typeof fields.deadline === 'number') deadlineOf(deps, fields.deadline)
  slippageOf(fields)
  await preflightQuote(deps, fields)
}

/**
 * Checks the fields of a positions read before payment: an EVM address, and Base as the chain in any of its spellings
 * (`base`, the original gateway's default `base-mainnet`); another chain is a 400 naming `chain`.
 */
export function preflightPositions(query: Partial<Record<keyof PositionsQuery, unknown>>): void {
  if (typeof query.address === 'string') evmAddress(query.address, 'address')
  EvmChain.only({ value: query.chain, served: 'base' })
}

/**
 * A token field as an address or a symbol of the chain's listed tokens in any case (`usdc`, `cbBTC`, `aero`); `ETH` is
 * WETH, as the original gateway quotes it. `undefined` when the schema will refuse it.
 */
function tokenField(deps: Deps, value: unknown, field: string): Address | undefined {
  if (typeof value !== 'string') return undefined
  if (value.startsWith('0x') || value.startsWith('0X')) return evmAddress(value, field)
  const found = TokenList.find({ name: 'base', chainId: deps.chain.chainId, token: isNative(value) ? 'WETH' : value })
  if (!found)
    throw new ValidationError({
      field,
      message: `unknown symbol; use a symbol of GET /api/v1/swap/tokens (${TokenList.known('base', deps.chain.chainId).length} tokens), ETH (as WETH) or an ERC-20 address`,
    })
  return found.address
}

/** Whether a token field names native ether (`ETH`, any case). */
function isNative(value: string): boolean {
  return value.toUpperCase() === 'ETH'
}

function evmAddress(value: string, field: string): Address {
  const result = AddressFormat.validateEvm(value)
  if (!result.valid) throw new ValidationError({ field, message: result.message })
  return getAddress(value)
}

/** `amountIn`, a HUMAN decimal of `token`, in its base units; positive and below 2^256, or a 400 naming `amountIn`. */
function amountInOf(value: unknown, token: Token): bigint {
  const amount = Units.fromDecimal({ value, decimals: token.decimals, field: 'amountIn' })
  if (amount === 0n || amount >= 2n ** 256n)
    throw new ValidationError({
      field: 'amountIn',
      message: `must be a positive amount of ${token.symbol} in whole tokens (e.g. "100"), below 2^256 base units`,
    })
  return amount
}

/**
 * The tolerated shortfall in basis points: `slippageBps`, or the original MCP tool's `slippage` in percent (`0.5` is
 * 50 bps, at most two decimals, 0.01 to 50), or the default; both at once is a 400.
 */
function slippageOf(fields: { slippageBps?: unknown; slippage?: unknown }): bigint {
  const { slippageBps, slippage } = fields
  if (slippage === undefined) return BigInt(typeof slippageBps === 'number' ? slippageBps : defaultSlippageBps)
  if (slippageBps !== undefined)
    throw new ValidationError({ field: 'slippage', message: 'give slippage (percent) or slippageBps, not both' })
  const bps = Units.fromDecimal({
    value: slippage,
    decimals: 2,
    field: 'slippage',
    unitName: 'has at most 2 decimal places (0.01% is 1 basis point)',
  })
  if (bps < 1n || bps > 5_000n)
    throw new ValidationError({ field: 'slippage', message: 'must be a percent from 0.01 to 50, e.g. 0.5' })
  return bps
}

function deadlineOf(deps: Deps, deadline: number | undefined): bigint {
  const nowS = Math.floor(deps.now() / 1000)
  if (deadline === undefined) return BigInt(nowS + defaultDeadlineS)
  if (!Number.isSafeInteger(deadline) || deadline <= nowS || deadline > nowS + maxDeadlineS)
    throw new ValidationError({
      field: 'deadline',
      message: `must be seconds since the Unix epoch, after now (${nowS}) and at most ${maxDeadlineS} s ahead`,
    })
  return BigInt(deadline)
}

/** A token by the address or symbol a request named; an unlisted address has its decimals and symbol read. */
async function resolve(deps: Deps, value: string, field: string): Promise<Token> {
  const address = tokenField(deps, value, field)!
  const listed = TokenList.find({ name: 'base', chainId: deps.chain.chainId, token: address })
  if (listed) return listed
  const [decimals, symbol] = await Multicall3.aggregate(deps.chain, [
    { target: address, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) },
    { target: address, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }) },
  ])
  if (decimals === undefined || size(decimals) !== 32)
    throw new ValidationError({ field, message: 'is not an ERC-20 on this chain (decimals() failed)' })
  let name = 'UNKNOWN'
  try {
    if (symbol) name = decodeFunctionResult({ abi: erc20Abi, functionName: 'symbol', data: symbol })
  } catch {}
  return { symbol: name, address, decimals: Number(hexToBigInt(decimals)) }
}

/** The oracle's USD price of a token, for the symbol its feed has (`ETH` for WETH); `undefined` without a live feed. */
function usdPriceOf(deps: Deps, readings: readonly Reading[] | undefined, symbol: string) {
  const feedSymbol = symbol === 'WETH' ? 'ETH' : symbol
  const reading = readings?.find((candidate) => candidate.feed.symbol === feedSymbol)
  if (!reading?.ok || reading.answer <= 0n) return undefined
  if (Math.floor(deps.now() / 1000) - reading.updatedAt > reading.feed.heartbeatS) return undefined
  return { answer: reading.answer, decimals: reading.decimals, feed: reading.feed.description }
}

/** The feeds' latest rounds, or `undefined` when there are none or they cannot be read (values are then `null`). */
async function readFeeds(deps: Deps): Promise<readonly Reading[] | undefined> {
  return deps.feeds?.read().catch(() => undefined)
}

/** QuoterV2 on every route in one multicall; the route with the most output wins. Throws {@link NoRouteError}. */
async function bestRoute(deps: Deps, tokenIn: Token, tokenOut: Token, amountIn: bigint): Promise<Uniswap.Quoted> {
  const deployment = Uniswap.of(deps.chain.chainId)
  const routes = Uniswap.routes({ tokenIn: tokenIn.address, tokenOut: tokenOut.address, weth: deployment.weth })
  const best = await Uniswap.quote({ chain: deps.chain, quoter: deployment.quoterV2, routes, amountIn })
  if (!best)
    throw new NoRouteError(
      `No Uniswap v3 pool can swap ${tokenIn.symbol} for ${tokenOut.symbol} (every fee tier, direct and through WETH); nothing is charged.`,
      { details: { tokenIn: tokenIn.address, tokenOut: tokenOut.address } },
    )
  return best
}

/**
 * The best quote of `amountIn`. Uniswap v3: QuoterV2's `quoteExactInputSingle` at every fee tier and
 * `quoteExactInput` through WETH at every pair of tiers, in one `eth_call`; the route with the most output wins. With an
 * aggregator configured (0x), its quote for the caller is fetched beside it and answered instead when it delivers
 * more (`source` names the winner, `comparison` the other); an aggregator that fails or has no liquidity leaves the
 * Uniswap answer, with the reason in `comparison`. Price impact is the shortfall of the output against the oracle's
 * USD prices of both tokens (fees included), rounded toward zero to 10^-4 percent; `null` when either token has no
 * live feed.
 */
export async function quote(deps: Deps, query: QuoteQuery & { caller: Address }) {
  const { aggregator } = deps
  const [tokenIn, tokenOut] = await Promise.all([
    resolve(deps, query.tokenIn, 'tokenIn'),
    resolve(deps, query.tokenOut, 'tokenOut'),
  ])
  const amountIn = amountInOf(query.amountIn, tokenIn)
  if (!aggregator) return (await uniswapQuote(deps, tokenIn, tokenOut, amountIn)).answer
  const [uniswap, aggregated] = await Promise.all([
    uniswapQuote(deps, tokenIn, tokenOut, amountIn).catch((error: unknown) => {
      if (error instanceof NoRouteError) return error
      throw error
    }),
    aggregator.quote({
      chainId: deps.chain.chainId,
      sellToken: tokenIn.address,
      buyToken: tokenOut.address,
      sellAmount: amountIn,
      taker: query.caller,
      slippageBps: defaultSlippageBps,
    }),
  ])
  const other = aggregated.ok && aggregated.quote.liquidityAvailable ? aggregated.quote : undefined
  const uniswapAnswer = uniswap instanceof NoRouteError ? undefined : uniswap.answer
  if (!other) {
    if (!uniswapAnswer) throw uniswap
    const reason = aggregated.ok ? 'no liquidity for this pair and amount' : aggregated.message
    return { ...uniswapAnswer, comparison: { source: aggregator.source, available: false, reason } }
  }
  if (uniswapAnswer && BigInt(uniswapAnswer.amountOut) >= other.buyAmount)
    return {
      ...uniswapAnswer,
      comparison: { source: aggregator.source, available: true, amountOut: other.buyAmount.toString() },
    }
  return {
    source: aggregator.source,
    chainId: deps.chain.chainId,
    ...sides({ tokenIn, tokenOut, amountIn, amountOut: other.buyAmount }),
    amountOut: other.buyAmount.toString(),
    amountOutFormatted: formatUnits(other.buyAmount, tokenOut.decimals),
    minBuyAmount: other.minBuyAmount.toString(),
    route: other.sources.join(' + '),
    pools: [],
    ...withImpact(oracleOf(deps, await readFeeds(deps), { tokenIn, tokenOut, amountIn, amountOut: other.buyAmount }), {
      dex: aggregator.source,
      fee: undefined,
    }),
    gasEstimate: other.transaction.gas,
    allowanceSpender: other.allowanceSpender,
    transaction: { ...other.transaction, chainId: deps.chain.chainId },
    comparison: uniswapAnswer
      ? { source: uniswapAnswer.source, available: true, amountOut: uniswapAnswer.amountOut }
      : { source: 'uniswap-v3', available: false, reason: uniswap instanceof Error ? uniswap.message : '' },
  }
}

/**
 * The two sides of a trade as the original gateway answers them: `tokenIn.amount` the HUMAN decimal put in (with
 * `amountRaw` in base units), `tokenOut.estimatedAmount` the HUMAN decimal out (with `estimatedAmountRaw`), and
 * `executionPrice` as `1 IN = x OUT` in whole tokens, rounded down to 8 decimals.
 */
function sides(trade: { tokenIn: Token; tokenOut: Token; amountIn: bigint; amountOut: bigint }) {
  const { tokenIn, tokenOut, amountIn, amountOut } = trade
  const price = (amountOut * 10n ** BigInt(tokenIn.decimals + 8)) / (amountIn * 10n ** BigInt(tokenOut.decimals))
  return {
    tokenIn: { ...tokenIn, amount: Units.toDecimal(amountIn, tokenIn.decimals), amountRaw: amountIn.toString() },
    tokenOut: {
      ...tokenOut,
      estimatedAmount: Units.toDecimal(amountOut, tokenOut.decimals),
      estimatedAmountRaw: amountOut.toString(),
    },
    executionPrice: `1 ${tokenIn.symbol} = ${formatUnits(price, 8)} ${tokenOut.symbol}`,
  }
}

/**
 * The original's `dex`, `feeTier` (the first pool's, e.g. `"0.05%"`; `null` off Uniswap) and `priceImpact` (the
 * oracle's impact as `"0.12%"`; `null` without live feeds) beside ours.
 */
function withImpact<oracle extends { priceImpactPercent: string | null }>(
  oracle: oracle,
  venue: { dex: string; fee: number | undefined },
) {
  const { priceImpactPercent } = oracle
  return {
    ...oracle,
    dex: venue.dex,
    feeTier: venue.fee === undefined ? null : `${formatUnits(BigInt(venue.fee), 4)}%`,
    priceImpact: priceImpactPercent === null ? null : `${priceImpactPercent}%`,
  }
}

/** The output against the oracle's USD prices: what it would be at them, and the price impact. */
function oracleOf(
  deps: Deps,
  readings: readonly Reading[] | undefined,
  trade: { tokenIn: Token; tokenOut: Token; amountIn: bigint; amountOut: bigint },
) {
  const { tokenIn, tokenOut, amountIn, amountOut } = trade
  const priceIn = usdPriceOf(deps, readings, tokenIn.symbol)
  const priceOut = usdPriceOf(deps, readings, tokenOut.symbol)
  if (!priceIn || !priceOut) return { priceImpactPercent: null, oracle: null }
  // amountIn × (priceIn / priceOut), from tokenIn's base units to tokenOut's.
  const expected =
    (amountIn * priceIn.answer * 10n ** BigInt(priceOut.decimals) * 10n ** BigInt(tokenOut.decimals)) /
    (priceOut.answer * 10n ** BigInt(priceIn.decimals) * 10n ** BigInt(tokenIn.decimals))
  const priceImpactPercent = expected === 0n ? null : formatUnits(((expected - amountOut) * 1_000_000n) / expected, 4)
  return {
    priceImpactPercent,
    oracle: { amountOut: Units.toAmount(expected, tokenOut.decimals), feeds: [priceIn.feed, priceOut.feed] },
  }
}

/** The best Uniswap v3 quote, as {@link quote} answers it, with the winning route as QuoterV2 took it. */
async function uniswapQuote(deps: Deps, tokenIn: Token, tokenOut: Token, amountIn: bigint) {
  const [best, readings] = await Promise.all([bestRoute(deps, tokenIn, tokenOut, amountIn), readFeeds(deps)])
  const deployment = Uniswap.of(deps.chain.chainId)
  const symbols = new Map(
    [tokenIn, tokenOut, ...TokenList.known('base', deps.chain.chainId)].map((t) => [t.address, t.symbol]),
  )
  const symbolOf = (address: Address) => symbols.get(address) ?? address
  const answer = {
    source: 'uniswap-v3',
    chainId: deps.chain.chainId,
    ...sides({ tokenIn, tokenOut, amountIn, amountOut: best.amountOut }),
    amountOut: best.amountOut.toString(),
    amountOutFormatted: formatUnits(best.amountOut, tokenOut.decimals),
    route: best.route.tokens.map(symbolOf).join(' > '),
    pools: best.route.fees.map((fee, hop) => ({
      address: Uniswap.poolAddress({
        factory: deployment.factory,
        tokenA: best.route.tokens[hop]!,
        tokenB: best.route.tokens[hop + 1]!,
        fee,
      }),
      tokenIn: best.route.tokens[hop]!,
      tokenOut: best.route.tokens[hop + 1]!,
      fee,
      feePercent: formatUnits(BigInt(fee), 4),
    })),
    ...withImpact(oracleOf(deps, readings, { tokenIn, tokenOut, amountIn, amountOut: best.amountOut }), {
      dex: 'uniswap-v3',
      fee: best.route.fees[0],
    }),
    gasEstimate: best.gasEstimate.toString(),
    quoter: deployment.quoterV2,
    transaction: {
      to: deployment.swapRouter02,
      chainId: deps.chain.chainId,
      note: 'POST /api/v1/swap/execute builds the signed-ready swap through this router.',
    },
  }
  return { answer, route: best.route }
}

/**
 * Builds a swap through SwapRouter02 for the caller to sign: a fresh quote, `amountOutMinimum` = its output less
 * `slippageBps` (rounded down), `multicall(deadline, [exactInputSingle | exactInput])`, and an `approve` of exactly
 * `amountIn` to the router first when the caller's allowance is short.
 *
 * The caller (the verified payer) signs and sends both, and pays tokenIn; `recipient` receives tokenOut. The gateway
 * never holds keys, so it answers the original's `status: "ready"` and `txHash: null`: a hash exists only once the caller
 * broadcasts the transaction, and is never invented here. Beside them it answers the original's `quote` fields,
 * `transactions{approval,swap}` and `execution`. `amountIn` is a HUMAN decimal of tokenIn; `ETH` is WETH: ether is wrapped first.
 */
export async function execute(deps: Deps, parameters: ExecuteBody & { caller: Address }) {
  const { caller } = parameters
  const recipient = evmAddress(parameters.recipient, 'recipient')
  const deadline = deadlineOf(deps, parameters.deadline)
  const slippageBps = slippageOf(parameters)
  const [tokenIn, tokenOut] = await Promise.all([
    resolve(deps, parameters.tokenIn, 'tokenIn'),
    resolve(deps, parameters.tokenOut, 'tokenOut'),
  ])
  const amountIn = amountInOf(parameters.amountIn, tokenIn)
  const { answer: fresh, route } = await uniswapQuote(deps, tokenIn, tokenOut, amountIn)
  const deployment = Uniswap.of(deps.chain.chainId)
  const amountOutMinimum = Uniswap.minimumOut({ amountOut: BigInt(fresh.amountOut), slippageBps })
  const allowance = await allowanceOf(deps, { token: tokenIn, owner: caller })
  const chainId = deps.chain.chainId
  const approvalTransaction =
    allowance < amountIn
      ? {
          to: fresh.tokenIn.address,
          data: encodeFunctionData({
            abi: erc20Abi,
            functionName: 'approve',
            args: [deployment.swapRouter02, amountIn],
          }),
          value: '0',
          chainId,
        }
      : undefined
  const transaction = {
    to: deployment.swapRouter02,
    data: Uniswap.swapCalldata({ route, amountIn, amountOutMinimum, recipient, deadline }),
    value: '0',
    chainId,
  }
  const [firstFee] = route.fees
  const minimum = Units.toDecimal(amountOutMinimum, tokenOut.decimals)
  return {
    status: ready,
    txHash: null,
    signer: caller,
    recipient,
    quote: {
      ...fresh,
      tokenOut: { ...fresh.tokenOut, minimumAmount: minimum, minimumAmountRaw: amountOutMinimum.toString() },
      feeTier: firstFee,
      feeTierPercent: fresh.feeTier,
      slippageBps: Number(slippageBps),
      slippagePercent: `${formatUnits(slippageBps, 2)}%`,
    },
    amountOutMinimum: Units.toAmount(amountOutMinimum, fresh.tokenOut.decimals),
    slippageBps: Number(slippageBps),
    deadline: Number(deadline),
    ...(approvalTransaction ? { approvalTransaction } : {}),
    transaction,
    transactions: { approval: approvalTransaction ?? null, swap: transaction },
    execution: {
      router: deployment.swapRouter02,
      protocol: 'Uniswap V3',
      chain: 'base',
      chainId,
      recipient,
      deadline: Number(deadline),
      deadlineISO: new Date(Number(deadline) * 1000).toISOString(),
    },
    note:
      'Sign and send approvalTransaction (when present) and then transaction from the signer address; the swap ' +
      'reverts after the deadline or when it would deliver less than amountOutMinimum.',
  }
}

/** `owner`'s allowance of `token` to SwapRouter02, in base units. */
async function allowanceOf(deps: Deps, parameters: { token: Token; owner: Address }): Promise<bigint> {
  const { token, owner } = parameters
  const [data] = await Multicall3.aggregate(deps.chain, [
    {
      target: token.address,
      callData: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'allowance',
        args: [owner, Uniswap.of(deps.chain.chainId).swapRouter02],
      }),
    },
  ])
  if (data === undefined || size(data) !== 32)
    throw new UpstreamFailedError(`allowance() of ${token.symbol} failed on the chain; nothing is charged.`)
  return hexToBigInt(data)
}

/** One supplied or borrowed position. */
type Position = {
  /** `aave-v3` or `compound-v3`. */
  protocol: Protocol
  /** The market: Aave's pool, or the Comet's name. */
  market: string
  /** `supply` (base token lent), `collateral` or `borrow`. */
  type: 'supply' | 'collateral' | 'borrow'
  /** The asset. */
  asset: TokenList.Listed
  /** The balance, current (interest included), not scaled. */
  amount: Units.Amount
  /** USD value from the oracle, decimal string; `null` without a live feed. */
  usd: string | null
  /** The original gateway's kind: `lending` (supplied, as collateral or not) or `borrowing`. */
  category: 'lending' | 'borrowing'
  /** The chain read, `base`. */
  chain: EvmChain.Name
  /** The original's name of `asset.address`. */
  asset_address: Address
  /** The original's name of `asset.symbol`. */
  asset_symbol: string
  /** The original's name of `asset.decimals`. */
  asset_decimals: number
  /** The original's name of `amount.raw`: base units, decimal string. */
  balance_raw: string
  /** The original's name of `amount.formatted`: whole tokens, decimal string. */
  balance_human: string
}

/** The two protocols read, as the original gateway names them. */
type Protocol = 'aave-v3' | 'compound-v3'

/**
 * Supplied and borrowed positions of `address` in Aave v3 (the data provider's current balances, the Pool's account
 * data and health factor) and Compound v3 (every Comet's base balance, borrow and collateral), valued in USD from the
 * oracle. Three `eth_call`s: reserves and markets, then balances, then Comet collateral.
 */
export async function positions(deps: Deps, query: PositionsQuery) {
  const chain = EvmChain.only({ value: query.chain, served: 'base' })
  const address = evmAddress(query.address, 'address')
  const deployment = Lending.of(deps.chain.chainId)
  const { aave, comets } = deployment

  const encode = (
    abi: typeof Lending.aaveAbi | typeof Lending.cometAbi,
    functionName: string,
    args: readonly unknown[] = [],
  ) => encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0])
  const first = await Multicall3.aggregate(deps.chain, [
    { target: aave.dataProvider, callData: encode(Lending.aaveAbi, 'getAllReservesTokens') },
    { target: aave.pool, callData: encode(Lending.aaveAbi, 'getUserAccountData', [address]) },
    ...comets.flatMap((comet) => [
      { target: comet.address, callData: encode(Lending.cometAbi, 'baseToken') },
      { target: comet.address, callData: encode(Lending.cometAbi, 'numAssets') },
      { target: comet.address, callData: encode(Lending.cometAbi, 'balanceOf', [address]) },
      { target: comet.address, callData: encode(Lending.cometAbi, 'borrowBalanceOf', [address]) },
    ]),
  ])
  const failures: { protocol: Protocol; message: string }[] = []
  const fail = (protocol: Protocol, message: string) => failures.push({ protocol, message })
  if (!first[0]) fail('aave-v3', 'Aave v3: getAllReservesTokens failed')
  const reserves = first[0]
    ? decodeFunctionResult({ abi: Lending.aaveAbi, functionName: 'getAllReservesTokens', data: first[0] })
    : []
  const account = first[1]
    ? decodeFunctionResult({ abi: Lending.aaveAbi, functionName: 'getUserAccountData', data: first[1] })
    : undefined
  const markets = comets.map((comet, index) => {
    const [baseToken, numAssets, supplied, borrowed] = first.slice(2 + index * 4, 6 + index * 4)
    if (!baseToken || !numAssets || !supplied || !borrowed) {
      fail('compound-v3', `Compound v3 ${comet.name}: reads failed`)
      return undefined
    }
    return {
      ...comet,
      baseToken: decodeFunctionResult({ abi: Lending.cometAbi, functionName: 'baseToken', data: baseToken }),
      numAssets: decodeFunctionResult({ abi: Lending.cometAbi, functionName: 'numAssets', data: numAssets }),
      supplied: hexToBigInt(supplied),
      borrowed: hexToBigInt(borrowed),
    }
  })

  // Second round: Aave balances per reserve, Comet asset infos, and decimals of every asset met.
  const assetInfoCalls = markets.flatMap((market) =>
    market
      ? Array.from({ length: market.numAssets }, (_, index) => ({
          target: market.address,
          callData: encode(Lending.cometAbi, 'getAssetInfo', [index]),
        }))
      : [],
  )
  const second = await Multicall3.aggregate(deps.chain, [
    ...reserves.map((reserve) => ({
      target: aave.dataProvider,
      callData: encode(Lending.aaveAbi, 'getUserReserveData', [reserve.tokenAddress, address]),
    })),
    ...assetInfoCalls,
  ])
  const collateralAssets = second.slice(reserves.length).flatMap((data, index) => {
    const comet = assetInfoCalls[index]!.target
    if (data)
      return [
        { comet, asset: decodeFunctionResult({ abi: Lending.cometAbi, functionName: 'getAssetInfo', data }).asset },
      ]
    fail('compound-v3', `Compound v3 ${comet}: getAssetInfo(${index}) failed`)
    return []
  })

  // Third round: Comet collateral balances, and decimals and symbols of every asset.
  const assets = [
    ...new Set([
      ...reserves.map((reserve) => reserve.tokenAddress),
      ...markets.flatMap((market) => (market ? [market.baseToken] : [])),
      ...collateralAssets.map((entry) => entry.asset),
    ]),
  ]
  const third = await Multicall3.aggregate(deps.chain, [
    ...collateralAssets.map((entry) => ({
      target: entry.comet,
      callData: encode(Lending.cometAbi, 'collateralBalanceOf', [address, entry.asset]),
    })),
    ...assets.flatMap((asset) => [
      { target: asset, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) },
      { target: asset, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }) },
    ]),
  ])
  // An asset whose decimals() fails cannot be formatted or valued: its positions are left out and named.
  const metadata = new Map<Address, Token>()
  for (const [index, asset] of assets.entries()) {
    const decimals = third[collateralAssets.length + index * 2]
    const symbol = third[collateralAssets.length + index * 2 + 1]
    if (decimals === undefined || size(decimals) !== 32) {
      if (reserves.some((reserve) => reserve.tokenAddress === asset)) fail('aave-v3', `decimals() failed for ${asset}`)
      if (
        markets.some((market) => market?.baseToken === asset) ||
        collateralAssets.some((entry) => entry.asset === asset)
      )
        fail('compound-v3', `decimals() failed for ${asset}`)
      continue
    }
    let name: string = asset
    try {
      if (symbol) name = decodeFunctionResult({ abi: erc20Abi, functionName: 'symbol', data: symbol })
    } catch {}
    metadata.set(asset, { symbol: name, address: asset, decimals: Number(hexToBigInt(decimals)) })
  }

  const readings = await readFeeds(deps)
  const usdOf = (token: Token, amount: bigint) => {
    const price = usdPriceOf(deps, readings, token.symbol)
    if (!price) return null
    return formatUnits((amount * price.answer) / 10n ** BigInt(token.decimals), price.decimals)
  }
  const list: Position[] = []
  const push = (protocol: Protocol, market: string, type: Position['type'], asset: Address, amount: bigint) => {
    const token = metadata.get(asset)
    if (amount === 0n || !token) return
    const formatted = Units.toAmount(amount, token.decimals)
    list.push({
      protocol,
      market,
      type,
      asset: token,
      amount: formatted,
      usd: usdOf(token, amount),
      category: type === 'borrow' ? 'borrowing' : 'lending',
      chain,
      asset_address: token.address,
      asset_symbol: token.symbol,
      asset_decimals: token.decimals,
      balance_raw: formatted.raw,
      balance_human: formatted.formatted,
    })
  }
  for (const [index, reserve] of reserves.entries()) {
    const data = second[index]
    if (!data) {
      fail('aave-v3', `Aave v3: getUserReserveData failed for ${reserve.symbol}`)
      continue
    }
    const [aTokenBalance, stableDebt, variableDebt] = decodeFunctionResult({
      abi: Lending.aaveAbi,
      functionName: 'getUserReserveData',
      data,
    })
    push('aave-v3', aave.pool, 'supply', reserve.tokenAddress, aTokenBalance)
    push('aave-v3', aave.pool, 'borrow', reserve.tokenAddress, stableDebt + variableDebt)
  }
  for (const market of markets) {
    if (!market) continue
    push('compound-v3', market.name, 'supply', market.baseToken, market.supplied)
    push('compound-v3', market.name, 'borrow', market.baseToken, market.borrowed)
  }
  for (const [index, entry] of collateralAssets.entries()) {
    const data = third[index]
    if (!data) {
      fail('compound-v3', `Compound v3 ${entry.comet}: collateralBalanceOf failed for ${entry.asset}`)
      continue
    }
    const market = markets.find((candidate) => candidate?.address === entry.comet)!
    push('compound-v3', market.name, 'collateral', entry.asset, hexToBigInt(data))
  }

  const byProtocol: Partial<Record<Protocol, Position[]>> = {}
  for (const position of list) byProtocol[position.protocol] = [...(byProtocol[position.protocol] ?? []), position]
  return {
    address,
    chain,
    chainId: deps.chain.chainId,
    total_positions: list.length,
    protocols_with_exposure: Object.keys(byProtocol),
    positions: list,
    by_protocol: byProtocol,
    aave: account
      ? {
          pool: aave.pool,
          totalCollateralUsd: formatUnits(account[0], Lending.aaveBaseDecimals),
          totalDebtUsd: formatUnits(account[1], Lending.aaveBaseDecimals),
          availableBorrowsUsd: formatUnits(account[2], Lending.aaveBaseDecimals),
          healthFactor: account[1] === 0n ? null : formatUnits(account[5], Lending.healthFactorDecimals),
        }
      : null,
    partialErrors: [...new Set(failures.map((failure) => failure.message))],
    // As the original: absent when every protocol was read, so that its clients' `if (partial_errors)` holds.
    partial_errors: failures.length > 0 ? failures : undefined,
  }
}
