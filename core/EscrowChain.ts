import type { Address, Hex } from 'viem'

/** An escrow as the escrow contract records it. */
export type Deposit = {
  /** On-chain status; an id that was never deposited reads as `undefined` instead of a deposit. */
  status: 'active' | 'released' | 'cancelled'
  /** Checksummed sender of the deposit, refunded on cancel. */
  depositor: Address
  /** Checksummed address paid on release. */
  beneficiary: Address
  /** Checksummed arbiter; `undefined` when the contract holds the zero address (no arbiter). */
  arbiter: Address | undefined
  /** Checksummed ERC-20 held. */
  token: Address
  /** Amount held, in the token's atomic units. */
  amount: bigint
  /** Unix time in seconds from which anyone may cancel; `undefined` when the contract holds 0 (never). */
  expiry: bigint | undefined
}

/** Read access to the escrow contract on one chain. A failed read is a fault and throws. */
export type EscrowChain = {
  /** The escrow with this bytes32 id, or `undefined` when it was never deposited. */
  read: (id: Hex) => Promise<Deposit | undefined>
  /** Checksummed address of the escrow contract. */
  address: Address
  /** Chain id the contract lives on. */
  chainId: number
}

/**
 * An account the gateway holds that is the arbiter of escrows it settles on proof (robot tasks): it sends the
 * escrow contract's `release` and `cancel` itself. Each call simulates first, so a call that would revert (already
 * settled, not the arbiter) throws before anything is sent; a sent transaction is awaited until mined.
 */
export type EscrowArbiter = {
  /** Checksummed address named as the arbiter in deposits. */
  address: Address
  /** Sends `release(id)`: the contract pays the beneficiary. Answers the mined transaction's hash. */
  release: (id: Hex) => Promise<Hex>
  /** Sends `cancel(id)`: the contract refunds the depositor. Answers the mined transaction's hash. */
  cancel: (id: Hex) => Promise<Hex>
}
