import { type Address, checksumAddress, formatUnits, zeroAddress } from 'viem'
import * as Bridge from '../../core/Bridge.js'
import { NoRouteError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { Oracle } from '../../core/Oracle.js'
import * as Units from '../../core/Units.js'
import type * as Upstream from '../../core/Upstream.js'
import { chains as bridgeChains, type Chain, chainOf, native, nativeSymbols, type QuoteQuery } from './schema.js'

/** What the bridge family needs from outside. */
export type Deps = {
  /** The bridges asked for every quote, in the order preferred on equal quotes. */
  bridges: readonly Bridge.Bridge[]
  /** The gateway's USD prices, for the original's `fees` in USD; absent, only USDC fees are priced. */
  oracle?: Oracle | undefined
}

/**
 * What a quote answers while its transaction waits for the caller (the gateway never signs nor sends it): the
 * original gateway's `ready`.
 */
export const ready = 'ready'

/** An amount in base units and as a decimal of whole tokens (exact, no rounding). */
export type Amount = Units.Amount

/** What one bridge answered for a quote. */
export type Compared = {
  /** Id of the bridge, e.g. `across`. */
  source: string
  /** `quoted`, `no_route` (it cannot move this), or the upstream failure's reason. */
  outcome: 'quoted' | 'no_route' | Upstream.Reason
  /** Amount it would deliver, in base units of the destination token; `null` without a quote. */
  toAmount: string | null
  /** Why it gave no quote; `null` with one. */
  message: string | null
}

/** A fee of the chosen quote. */
export type Fee = {
  /** What the fee is, in the bridge's words. */
  name: string
  /** Amount, in the token's base units and formatted. */
  amount: Amount
  /** The token it is paid in. */
  token: Bridge.Token
  /** Whether it is taken out of the amount sent (`true`) or paid beside it, as origin gas is (`false`). */
  included: boolean
  /** `gas` (the network's, for the transaction sent) or `fee` (the bridge's and its relayers'). */
  kind: 'gas' | 'fee'
}

/** The answer of `GET /api/v1/bridge/quote`. */
export type QuoteAnswer = {
  /** Always `ready`: the caller signs and sends `quote.transactionRequest` (also `transaction`). */
  status: typeof ready
  /** The original gateway's route: amounts RAW, in base units, as its `amount` query parameter and LI.FI's. */
  route: {
    /** The origin side. */
    fromChain: RouteSide & {
      /** Amount sent, RAW base units. */
      amount: string
      /** The same RAW amount, under the name every answer gives a RAW amount (swap's `tokenIn.amountRaw`). */
      amountRaw: string
      /** The same amount, human decimal of the token. */
      amountFormatted: string
    }
    /** The destination side. */
    toChain: RouteSide & {
      /** Amount expected on arrival, RAW base units (the original's; swap's `tokenOut.estimatedAmount` is human). */
      estimatedAmount: string
      /** The same RAW amount, as swap's `tokenOut.estimatedAmountRaw`. */
      estimatedAmountRaw: string
      /** The same amount, human decimal of the token. */
      estimatedAmountFormatted: string
      /** Least amount that can arrive, RAW base units. */
      minimumAmount: string
      /** The same RAW amount, as swap's `tokenOut.minimumAmountRaw`. */
      minimumAmountRaw: string
      /** The same amount, human decimal of the token. */
      minimumAmountFormatted: string
    }
    /** The bridge or exchange that moves the funds. */
    bridge: string
    /** Always `bridge`. */
    bridgeType: 'bridge'
  }
  /**
   * The original's fees in USD (decimal strings, rounded up to 6 places), priced from the gateway's own sources: USDC
   * at 1, ETH at the oracle's ETH / USD feed; `quote.fees` has each fee in its token.
   */
  fees: {
    /** Gas of the transaction sent, in USD; `null` when a gas fee is in a token without a price here. */
    gasCostUSD: string | null
    /** The bridge's and its relayers' fees, in USD; `null` when one is in a token without a price here. */
    bridgeFeeUSD: string | null
    /** Their sum; `null` when either is. */
    totalFeeUSD: string | null
    /** Why a figure is `null`; `null` when every one is priced. */
    reason: string | null
  }
  /** Estimated time to arrival. */
  timing: {
    /** In seconds. */
    estimatedSeconds: number
    /** In whole minutes, rounded up. */
    estimatedMinutes: number
  }
  /** The unsigned transaction, as `quote.transactionRequest`, with the original's `gasPrice` (`null`: the wallet's). */
  transaction: QuoteAnswer['quote']['transactionRequest'] & {
    /** Gas price; `null`: the wallet chooses it. */
    gasPrice: null
  }
  /** The allowance to grant first, as `quote.approval` (RAW `amount`); `null` for the native coin. */
  approval: QuoteAnswer['quote']['approval']
  /** The better quote of the bridges asked. */
  quote: {
    /** The bridge whose quote this is, e.g. `lifi`. */
    source: string
    /** The bridge or exchange that moves the funds, in the source's words. */
    tool: string
    /** Origin chain. */
    fromChain: Chain
    /** Destination chain. */
    toChain: Chain
    /** The token sent, on the origin chain. */
    fromToken: Bridge.Token
    /** The token received, on the destination chain. */
    toToken: Bridge.Token
    /** Amount sent. */
    fromAmount: Amount
    /** Amount expected on arrival. */
    toAmount: Amount
    /** Least amount that can arrive, slippage included. */
    toAmountMin: Amount
    /** Estimated time from sending to arrival, in seconds. */
    estimatedDurationSeconds: number
    /** Costs of the transfer. */
    fees: Fee[]
    /** The allowance to grant before sending, when the token is not the native coin; `null` otherwise. */
    approval: {
      /** Contract to approve. */
      spender: Address
      /** Token to approve. */
      token: Address
      /** Least allowance needed, in base units. */
      amount: string
    } | null
    /** The unsigned transaction the caller signs and sends on the origin chain. */
    transactionRequest: {
      /** Contract called. */
      to: Address
      /** Calldata. */
      data: `0x${string}`
      /** Native coin sent, in wei, as an integer string. */
      value: string
      /** Gas limit the bridge estimated, as an integer string; `null` when it gave none. */
      gasLimit: string | null
      /** EIP-155 id of the chain to send it on. */
      chainId: number
    }
    /** What every bridge asked answered, the chosen one included. */
    compared: Compared[]
  }
}

/** One side of the original gateway's route. */
export type RouteSide = {
  /** The chain's own name, e.g. `Base`. */
  name: string
  /** EIP-155 id. */
  chainId: number
  /** Token symbol. */
  token: string
  /** Token address; the zero address for the native coin. */
  tokenAddress: Address
}

/** The answer of `GET /api/v1/bridge/chains`. */
export type ChainsAnswer = {
  /** The chains of the gateway's registry that at least one bridge serves, each with the bridges that do. */
  chains: {
    /** Name callers use, e.g. `arbitrum`: the original's `key`. */
    key: string
    /** The chain's own name, e.g. `Arbitrum One`, as the original's `name`. */
    name: string
    /** The same, under our earlier name. */
    title: string
    /** EIP-155 id. */
    chainId: number
    /** Symbol of the native coin, e.g. `ETH`. */
    nativeCurrency: string
    /** Ids of the bridges that serve the chain. */
    bridges: string[]
  }[]
  /** How many chains are listed. */
  chainCount: number
}

/**
 * Refuses, before any payment, a quote from a chain to itself (that is a swap, not a bridge) and a native coin's
 * symbol that is not the origin chain's (`BNB` from base).
 */
export function preflight(query: { fromChain?: unknown; toChain?: unknown; token?: unknown }): void {
  if (typeof query.fromChain !== 'string') return
  const from = chainOf(query.fromChain)
  if (from === undefined) return
  if (typeof query.toChain === 'string' && from.chainId === chainOf(query.toChain)?.chainId)
    throw new ValidationError({ field: 'toChain', message: 'must be another chain than fromChain' })
  if (typeof query.token === 'string') tokenOf(query.token, from)
}

/**
 * The token a quote names on its origin chain: `native` or the chain's native symbol is the zero address (the native
 * coin, as the original gateway reads them), another chain's native symbol is a 400, an address is itself, any other
 * value a listed symbol.
 */
function tokenOf(value: string, from: Chain): Bridge.TokenRef {
  if (value.startsWith('0x')) return { address: checksumAddress(value as Address) }
  const symbol = value.toUpperCase()
  const own = nativeSymbols[from.name]!
  if (symbol === native || own.includes(symbol)) return { address: zeroAddress }
  const coinOf = Object.entries(nativeSymbols).find(([, list]) => list.includes(symbol))
  if (coinOf)
    throw new ValidationError({
      field: 'token',
      message: `${symbol} is the native coin of ${coinOf[0]}, not of ${from.name} (${own.join(' or ')}); use native for ${from.name}'s own coin`,
    })
  return { symbol }
}

/**
 * Asks every bridge at once and answers the quote that delivers the most (the first bridge's on a tie). One bridge
 * failing never fails the call while another quotes. No quote at all: {@link NoRouteError} (422) when every bridge
 * said it cannot move this, else {@link UpstreamUnavailableError} (503); either way nothing is charged.
 */
export async function quote(deps: Deps, query: QuoteQuery): Promise<QuoteAnswer> {
  preflight(query)
  const fromChain = chainOf(query.fromChain)!
  const toChain = chainOf(query.toChain)!
  const request: Bridge.Request = {
    fromChainId: fromChain.chainId,
    toChainId: toChain.chainId,
    token: tokenOf(query.token, fromChain),
    amount: BigInt(query.amount),
    fromAddress: checksumAddress(query.fromAddress as Address),
  }
  const outcomes = await Promise.all(
    deps.bridges.map(async (bridge) => ({ bridge, outcome: checked(bridge, request, await bridge.quote(request)) })),
  )
  const compared: Compared[] = outcomes.map(({ bridge, outcome }) =>
    outcome.ok
      ? { source: bridge.id, outcome: 'quoted', toAmount: outcome.quote.toAmount.toString(), message: null }
      : { source: bridge.id, outcome: outcome.reason, toAmount: null, message: outcome.message },
  )
  const quotes = outcomes.flatMap(({ outcome }) => (outcome.ok ? [outcome.quote] : []))
  if (quotes.length === 0) {
    const details = { bridges: compared }
    const summary = compared.map((entry) => entry.message).join(' ')
    // Input the upstream refused is input no bridge can carry: our own validation already passed it.
    if (compared.every((entry) => entry.outcome === 'no_route' || entry.outcome === 'rejected'))
      throw new NoRouteError(`No bridge can move this token between these chains: ${summary}`, { details })
    throw new UpstreamUnavailableError(`No bridge answered with a quote: ${summary}`, { details })
  }
  const best = quotes.reduce(Bridge.better)
  const { fromToken, toToken, transaction } = best
  const transactionRequest = {
    to: transaction.to,
    data: transaction.data,
    value: transaction.value.toString(),
    gasLimit: transaction.gasLimit === null ? null : transaction.gasLimit.toString(),
    chainId: transaction.chainId,
  }
  const approval =
    best.approvalAddress === null
      ? null
      : { spender: best.approvalAddress, token: fromToken.address, amount: best.fromAmount.toString() }
  return {
    status: ready,
    route: {
      fromChain: {
        ...side(fromChain, fromToken),
        amount: best.fromAmount.toString(),
        amountRaw: best.fromAmount.toString(),
        amountFormatted: formatUnits(best.fromAmount, fromToken.decimals),
      },
      toChain: {
        ...side(toChain, toToken),
        estimatedAmount: best.toAmount.toString(),
        estimatedAmountRaw: best.toAmount.toString(),
        estimatedAmountFormatted: formatUnits(best.toAmount, toToken.decimals),
        minimumAmount: best.toAmountMin.toString(),
        minimumAmountRaw: best.toAmountMin.toString(),
        minimumAmountFormatted: formatUnits(best.toAmountMin, toToken.decimals),
      },
      bridge: best.tool,
      bridgeType: 'bridge',
    },
    fees: await usdFees(deps, best.fees),
    timing: { estimatedSeconds: best.durationSeconds, estimatedMinutes: Math.ceil(best.durationSeconds / 60) },
    transaction: { ...transactionRequest, gasPrice: null },
    approval,
    quote: {
      source: best.source,
      tool: best.tool,
      fromChain,
      toChain,
      fromToken,
      toToken,
      fromAmount: Units.toAmount(best.fromAmount, fromToken.decimals),
      toAmount: Units.toAmount(best.toAmount, toToken.decimals),
      toAmountMin: Units.toAmount(best.toAmountMin, toToken.decimals),
      estimatedDurationSeconds: best.durationSeconds,
      fees: best.fees.map((fee) => ({ ...fee, amount: Units.toAmount(fee.amount, fee.token.decimals) })),
      approval,
      transactionRequest,
      compared,
    },
  }
}

/** One side of the original's route: the chain's own name and id, the token's symbol and address. */
function side(chain: Chain, token: Bridge.Token): RouteSide {
  return { name: chain.title, chainId: chain.chainId, token: token.symbol, tokenAddress: token.address }
}

/**
 * The chains of the registry (those a quote accepts) that the bridges serve, asked of every bridge at once, with the
 * original gateway's `key` (our name), `name` (the chain's own), `nativeCurrency` and `chainCount`. One
 * bridge failing leaves its chains out; every bridge failing is {@link UpstreamUnavailableError}.
 */
export async function chains(deps: Deps): Promise<ChainsAnswer> {
  const answers = await Promise.all(deps.bridges.map(async (bridge) => ({ bridge, answer: await bridge.chains() })))
  const served = answers.flatMap(({ bridge, answer }) => (answer.ok ? [{ id: bridge.id, ids: answer.chainIds }] : []))
  if (served.length === 0)
    throw new UpstreamUnavailableError(
      `No bridge said which chains it serves: ${answers.map(({ answer }) => (answer.ok ? '' : answer.message)).join(' ')}`,
    )
  const listed = bridgeChains.flatMap((entry) => {
    const bridges = served.filter(({ ids }) => ids.includes(entry.chainId)).map(({ id }) => id)
    if (bridges.length === 0) return []
    const { name, title, chainId } = entry
    return [{ key: name, name: title, title, chainId, nativeCurrency: nativeSymbols[name]![0]!, bridges }]
  })
  return { chains: listed, chainCount: listed.length }
}

/** A bridge's quote, unless it is not for what was asked (another chain or amount): then a failure of that bridge. */
function checked(bridge: Bridge.Bridge, request: Bridge.Request, outcome: Bridge.QuoteOutcome): Bridge.QuoteOutcome {
  if (!outcome.ok) return outcome
  const { quote } = outcome
  if (
    quote.transaction.chainId === request.fromChainId &&
    quote.fromToken.chainId === request.fromChainId &&
    quote.toToken.chainId === request.toChainId &&
    quote.fromAmount === request.amount
  )
    return outcome
  return {
    ok: false,
    reason: 'failed',
    status: undefined,
    message: `${bridge.name} answered a quote for another chain or amount than asked.`,
  }
}

/** Decimals of the USD figures of the original's `fees`. */
const usdDecimals = 6

/**
 * The original gateway's `fees` in USD, from the gateway's own prices (the original copied LI.FI's): every fee of a
 * kind summed, each rounded up to {@link usdDecimals} places so that a cost is never understated. A kind with a fee in
 * a token this gateway has no price for is `null`, and `reason` says why.
 */
async function usdFees(deps: Deps, fees: readonly Bridge.Fee[]): Promise<QuoteAnswer['fees']> {
  const symbols = [...new Set(fees.map((fee) => fee.token.symbol.toUpperCase()))]
  const prices = new Map(
    await Promise.all(symbols.map(async (symbol) => [symbol, await usdPerUnit(deps, symbol)] as const)),
  )
  const total = (kind: Bridge.Fee['kind']) => {
    let sum = 0n
    for (const fee of fees.filter((one) => one.kind === kind)) {
      const price = prices.get(fee.token.symbol.toUpperCase())!
      if (!price.ok) return undefined
      // usd = amount / 10^decimals * price, the price read at 18 decimals, rounded up to usdDecimals places.
      const divisor = 10n ** BigInt(fee.token.decimals + 18 - usdDecimals)
      sum += (fee.amount * price.per18 + divisor - 1n) / divisor
    }
    return sum
  }
  const [gas, bridge] = [total('gas'), total('fee')]
  const usd = (amount: bigint | undefined) => (amount === undefined ? null : formatUnits(amount, usdDecimals))
  const reasons = [...prices.values()].flatMap((price) => (price.ok ? [] : [price.reason]))
  return {
    gasCostUSD: usd(gas),
    bridgeFeeUSD: usd(bridge),
    totalFeeUSD: usd(gas === undefined || bridge === undefined ? undefined : gas + bridge),
    reason: reasons.length === 0 ? null : reasons.join(' '),
  }
}

/**
 * USD per whole `symbol`, at 18 decimals: USDC is 1 by definition, ETH and WETH the oracle's ETH / USD price; any
 * other token has no price here, which is said.
 */
async function usdPerUnit(
  deps: Deps,
  symbol: string,
): Promise<{ ok: true; per18: bigint } | { ok: false; reason: string }> {
  if (symbol === 'USDC') return { ok: true, per18: 10n ** 18n }
  if (symbol !== 'ETH' && symbol !== 'WETH')
    return { ok: false, reason: `${symbol} has no USD price here (USDC and ETH have).` }
  if (!deps.oracle) return { ok: false, reason: 'No price oracle is configured on this gateway, so ETH is not priced.' }
  const quote = await deps.oracle.usdPrice('ETH')
  if (!quote.ok) return { ok: false, reason: quote.message }
  return { ok: true, per18: Units.fromDecimal({ value: quote.usd, decimals: 18, field: 'price' }) }
}
