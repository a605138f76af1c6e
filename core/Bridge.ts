import type { Address, Hex } from 'viem'
import type { Availability, Failure } from './Upstream.js'

/**
 * A cross-chain bridge (or an aggregator of bridges) that quotes moving a token from one EVM chain to another and
 * builds the transaction that does it. The gateway never signs or sends that transaction: it returns it, unsigned, for
 * the caller to sign. A pair the bridge cannot move is its own refusal (`no_route`), told apart from an upstream
 * {@link Failure} by carrying no `status`.
 */

/** A token as a bridge names it on one chain. */
export type Token = {
  /** EIP-155 id of the chain it is on. */
  chainId: number
  /** ERC-20 address, EIP-55; the zero address for the chain's native coin. */
  address: Address
  /** Symbol, e.g. `USDC`. */
  symbol: string
  /** Decimals. */
  decimals: number
}

/** One cost of a transfer, in a token's base units. */
export type Fee = {
  /** What the fee is, in the bridge's words, e.g. `LP fee` or `gas`. */
  name: string
  /** Amount, in base units of `token`. */
  amount: bigint
  /** The token the fee is paid in. */
  token: Token
  /** Whether the fee is taken out of the amount sent (`true`) or paid beside it, as gas is (`false`). */
  included: boolean
  /** `gas`: the network's gas for the transaction the caller sends; `fee`: what the bridge and its relayers charge. */
  kind: 'gas' | 'fee'
}

/** The transaction the caller signs and sends on the origin chain. */
export type Transaction = {
  /** Contract the transaction calls. */
  to: Address
  /** Calldata. */
  data: Hex
  /** Native coin sent with it, in wei. */
  value: bigint
  /** Gas limit the bridge estimated; `null` when it gave none. */
  gasLimit: bigint | null
  /** EIP-155 id of the chain to send it on. */
  chainId: number
}

/** A bridge's quote, with the unsigned transaction that carries it out. */
export type Quote = {
  /** Id of the bridge that quoted, e.g. `lifi`. */
  source: string
  /** The bridge or exchange that moves the funds, in the quoting bridge's words, e.g. `across` or `stargateV2`. */
  tool: string
  /** The token sent, on the origin chain. */
  fromToken: Token
  /** The token received, on the destination chain. */
  toToken: Token
  /** Amount sent, in base units of `fromToken`. */
  fromAmount: bigint
  /** Amount expected on arrival, in base units of `toToken`. */
  toAmount: bigint
  /** Least amount that can arrive (slippage included), in base units of `toToken`. */
  toAmountMin: bigint
  /** Estimated time from sending to arrival, in seconds. */
  durationSeconds: number
  /** Contract the caller must allow to spend `fromAmount` of `fromToken` first; `null` for the native coin. */
  approvalAddress: Address | null
  /** Costs of the transfer. */
  fees: Fee[]
  /** The transaction to sign. */
  transaction: Transaction
}

/** What to quote. */
export type Request = {
  /** EIP-155 id of the origin chain. */
  fromChainId: number
  /** EIP-155 id of the destination chain. */
  toChainId: number
  /** The token to move: a symbol (the same token on both chains), or its address on the origin chain. */
  token: TokenRef
  /** Amount to send, in base units of the token. */
  amount: bigint
  /** The wallet that sends, and receives on the destination chain. */
  fromAddress: Address
}

/** A token named by symbol or by its address on the origin chain. */
export type TokenRef =
  | {
      /** Symbol, upper case, e.g. `USDC`. */
      symbol: string
    }
  | {
      /** ERC-20 address on the origin chain, EIP-55; the zero address for the native coin. */
      address: Address
    }

/** The bridge cannot move this token between these chains, or not this amount. */
export type NoRoute = {
  /** No quote. */
  ok: false
  /** Always `no_route`. */
  reason: 'no_route'
  /** One sentence, in the bridge's words where it gave some. */
  message: string
}

/** A bridge's quote. */
export type Quoted = {
  /** A quote. */
  ok: true
  /** The quote. */
  quote: Quote
}

/** A quote, the bridge's refusal, or an upstream failure. */
export type QuoteOutcome = Quoted | NoRoute | Failure

/** The chains a bridge serves. */
export type Served = {
  /** An answer. */
  ok: true
  /** EIP-155 ids of the chains. */
  chainIds: readonly number[]
}

/** The chains a bridge serves, or an upstream failure. */
export type ChainsOutcome = Served | Failure

/** The bridge port. */
export type Bridge = {
  /** Stable id, named as a quote's `source`, e.g. `lifi`. */
  id: string
  /** Name in messages, e.g. `LI.FI`. */
  name: string
  /** Quotes `request` and builds its transaction. */
  quote: (request: Request) => Promise<QuoteOutcome>
  /** The EVM chains the bridge serves. */
  chains: () => Promise<ChainsOutcome>
  /** Whether calls may start now (the breaker is closed, a token is near). */
  available: () => Availability
}

/** Where each bridge the gateway asks is, from the bridge family's environment. */
export type Settings = {
  /** LI.FI's API. */
  lifi: {
    /** Base URL, e.g. `https://li.quest/v1`. */
    url: string
    /** API key for higher rate limits; keyless when `undefined`. */
    key: string | undefined
  }
  /** Across's API. */
  across: {
    /** Base URL, e.g. `https://app.across.to/api`. */
    url: string
  }
}

/** Opens the bridges `settings` point at, in the order they are preferred on equal quotes. */
export type Connect = (settings: Settings) => readonly Bridge[]

/** The better of two quotes: more received; on a tie, the first. */
export function better(first: Quote, second: Quote): Quote {
  return second.toAmount > first.toAmount ? second : first
}
