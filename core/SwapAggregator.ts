import type { Address, Hex } from 'viem'
import type * as Upstream from './Upstream.js'

/** A swap aggregator's firm quote of selling an exact amount (the 0x Swap API's `quote`). */
export type Quote =
  | {
      /** The aggregator found liquidity. */
      liquidityAvailable: true
      /** Base units of the bought token the swap is expected to deliver. */
      buyAmount: bigint
      /** Fewest base units it delivers within the aggregator's slippage. */
      minBuyAmount: bigint
      /** Liquidity sources filled, e.g. `Uniswap_V3`, in the aggregator's order. */
      sources: readonly string[]
      /** The contract the seller must approve first, when its allowance is short; `null` when none is needed. */
      allowanceSpender: Address | null
      /** The transaction the taker signs. */
      transaction: {
        /** Contract called. */
        to: Address
        /** Calldata. */
        data: Hex
        /** Wei sent, decimal string. */
        value: string
        /** Gas limit the aggregator estimates, decimal string. */
        gas: string | null
      }
    }
  | {
      /** No route for the pair and amount. */
      liquidityAvailable: false
    }

/** A swap aggregator on EVM chains: quotes to compare with the on-chain router's. */
export type SwapAggregator = {
  /** Name of the source in answers, e.g. `0x`. */
  source: string
  /** Quotes selling `sellAmount` of `sellToken` for `buyToken`, taken by `taker`; failures come back as data. */
  quote: (parameters: {
    /** EIP-155 chain id. */
    chainId: number
    /** Token sold. */
    sellToken: Address
    /** Token bought. */
    buyToken: Address
    /** Base units sold. */
    sellAmount: bigint
    /** The address that will sign the swap. */
    taker: Address
    /** Tolerated slippage, in basis points. */
    slippageBps: number
  }) => Promise<Upstream.Outcome<{ quote: Quote }>>
  /** Whether calls may start now. */
  available: () => Upstream.Availability
}
