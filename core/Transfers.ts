import type { Address, Hash } from 'viem'

/** One ERC-20 `Transfer(from, to, value)` event as mined. */
export type Transfer = {
  /** Hash of the transaction that emitted it. */
  hash: Hash
  /** Checksummed sender of the tokens. */
  from: Address
  /** Block it was mined in. */
  blockNumber: bigint
  /** Timestamp of that block, in seconds since the Unix epoch. */
  blockTimestamp: bigint
  /** Position of the event in its block; (`hash`, `logIndex`) names one transfer. */
  logIndex: number
}

/**
 * Reads ERC-20 transfers from a chain, to see whether something was paid. Reorganized (removed) logs are never
 * reported.
 */
export type Transfers = {
  /** Transfers of exactly `amount` of `token` to `to` in blocks `fromBlock` through `toBlock`, in chain order. */
  find: (parameters: find.Parameters) => Promise<Transfer[]>
  /** Number of the latest block, never cached. */
  blockNumber: () => Promise<bigint>
}

export declare namespace find {
  type Parameters = {
    /** ERC-20 contract. */
    token: Address
    /** Recipient of the tokens. */
    to: Address
    /** Exact amount, in the token's atomic units. */
    amount: bigint
    /** First block searched, inclusive. */
    fromBlock: bigint
    /** Last block searched, inclusive. @default the latest block */
    toBlock?: bigint | undefined
  }
}
