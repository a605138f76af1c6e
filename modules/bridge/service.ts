import { type Address, checksumAddress, formatUnits } from 'viem'
import * as Bridge from '../../core/Bridge.js'
import { NoRouteError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import type * as Upstream from '../../core/Upstream.js'
import { chainOf, type QuoteQuery } from './schema.js'

/** What the bridge family needs from outside. */
export type Deps = {
  /** The bridges asked for every quote, in the order preferred on equal quotes. */
  bridges: readonly Bridge.Bridge[]
}

/** What a quote answers while its transaction waits for the caller: the gateway never signs nor sends it. */
export const awaitingSignature = 'awaiting_signature'

/** An amount in base units and as a decimal of whole tokens. */
export type Amount = {
  /** Base units, as an integer string. */
  raw: string
  /** Whole tokens, as a decimal string (exact, no rounding). */
  formatted: string
}

/** A chain as the bridge endpoints name it. */
export type Chain = {
  /** Name callers use, e.g. `arbitrum`. */
  name: string
  /** The chain's own name, e.g. `Arbitrum One`. */
  title: string
  /** EIP-155 id. */
  chainId: number
}

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
}

/** The answer of `GET /api/v1/bridge/quote`. */
export type QuoteAnswer = {
  /** Always `awaiting_signature`: the caller signs and sends `quote.transactionRequest`. */
  status: typeof awaitingSignature
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

/** The answer of `GET /api/v1/bridge/chains`. */
export type ChainsAnswer = {
  /** The chains of the gateway's registry that at least one bridge serves, each with the bridges that do. */
  chains: (Chain & {
    /** Ids of the bridges that serve the chain. */
    bridges: string[]
  })[]
}

/** Refuses, before any payment, a quote from a chain to itself: that is a swap, not a bridge. */
export function assertDistinctChains(query: { fromChain?: unknown; toChain?: unknown }): void {
  if (typeof query.fromChain !== 'string' || typeof query.toChain !== 'string') return
  const from = chainOf(query.fromChain)
  if (from !== undefined && from.chainId === chainOf(query.toChain)?.chainId)
    throw new ValidationError({ field: 'toChain', message: 'must be another chain than fromChain' })
}

/**
 * Asks every bridge at once and answers the quote that delivers the most (the first bridge's on a tie). One bridge
 * failing never fails the call while another quotes. No quote at all: {@link NoRouteError} (422) when every bridge
 * said it cannot move this, else {@link UpstreamUnavailableError} (503); either way nothing is charged.
 */
export async function quote(deps: Deps, query: QuoteQuery): Promise<QuoteAnswer> {
  assertDistinctChains(query)
  const fromChain = chainOf(query.fromChain)!
  const toChain = chainOf(query.toChain)!
  const request: Bridge.Request = {
    fromChainId: fromChain.chainId,
    toChainId: toChain.chainId,
    token: query.token.startsWith('0x')
      ? { address: checksumAddress(query.token as Address) }
      : { symbol: query.token.toUpperCase() },
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
  return {
    status: awaitingSignature,
    quote: {
      source: best.source,
      tool: best.tool,
      fromChain: chainView(fromChain),
      toChain: chainView(toChain),
      fromToken,
      toToken,
      fromAmount: amountOf(best.fromAmount, fromToken.decimals),
      toAmount: amountOf(best.toAmount, toToken.decimals),
      toAmountMin: amountOf(best.toAmountMin, toToken.decimals),
      estimatedDurationSeconds: best.durationSeconds,
      fees: best.fees.map((fee) => ({ ...fee, amount: amountOf(fee.amount, fee.token.decimals) })),
      approval:
        best.approvalAddress === null
          ? null
          : { spender: best.approvalAddress, token: fromToken.address, amount: best.fromAmount.toString() },
      transactionRequest: {
        to: transaction.to,
        data: transaction.data,
        value: transaction.value.toString(),
        gasLimit: transaction.gasLimit === null ? null : transaction.gasLimit.toString(),
        chainId: transaction.chainId,
      },
      compared,
    },
  }
}

/**
 * The chains of the registry (those a quote accepts) that the bridges serve, asked of every bridge at once. One
 * bridge failing leaves its chains out; every bridge failing is {@link UpstreamUnavailableError}.
 */
export async function chains(deps: Deps): Promise<ChainsAnswer> {
  const answers = await Promise.all(deps.bridges.map(async (bridge) => ({ bridge, answer: await bridge.chains() })))
  const served = answers.flatMap(({ bridge, answer }) => (answer.ok ? [{ id: bridge.id, ids: answer.chainIds }] : []))
  if (served.length === 0)
    throw new UpstreamUnavailableError(
      `No bridge said which chains it serves: ${answers.map(({ answer }) => (answer.ok ? '' : answer.message)).join(' ')}`,
    )
  return {
    chains: EvmChain.registry.flatMap((entry) => {
      const bridges = served.filter(({ ids }) => ids.includes(entry.chainId)).map(({ id }) => id)
      return bridges.length === 0 ? [] : [{ ...chainView(entry), bridges }]
    }),
  }
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

/** The chain as answers show it. */
function chainView(entry: EvmChain.Entry): Chain {
  return { name: entry.name, title: entry.title, chainId: entry.chainId }
}

/** `raw` base units of a token with `decimals`, raw and formatted. */
function amountOf(raw: bigint, decimals: number): Amount {
  return { raw: raw.toString(), formatted: formatUnits(raw, decimals) }
}
