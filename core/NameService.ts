import type { Address } from 'viem'

/**
 * A name service of the ENS kind (an EIP-137 registry read through a Universal Resolver): names to addresses per coin type
 * (ENSIP-9, ENSIP-11) and addresses to primary names (ENSIP-19 reverse records). Names are given normalized
 * (ENSIP-15); the service reads, it never normalizes.
 */
export type NameService = {
  /** EIP-155 id of the chain holding the registry (1 for ENS; the devnet's on embedded defaults). */
  chainId: number
  /** Where names are read, for answers, e.g. `ens` or `devnet`. */
  source: string
  /** The address `name` has on the chain of `coinType`, or `null` when it has none. Throws when the chain does not answer. */
  address: (parameters: {
    /** Normalized name, e.g. `alice.eth`. */
    name: string
    /** ENSIP-11 coin type: 60 for Ethereum, `0x80000000 | chainId` for another EVM chain. */
    coinType: bigint
  }) => Promise<Address | null>
  /** The primary name of `address` (its reverse record), checked forward. Throws when the chain does not answer. */
  primaryName: (parameters: {
    /** The address. */
    address: Address
    /** ENSIP-11 coin type of the chain whose reverse record is read. */
    coinType: bigint
  }) => Promise<Primary>
}

/** What the reverse record of an address says, and whether the name resolves back to it. */
export type Primary =
  | {
      /** No reverse record, or an empty one. */
      status: 'none'
    }
  | {
      /** The reverse record names `name`, and `name` resolves to the address. */
      status: 'verified'
      /** The primary name. */
      name: string
    }
  | {
      /** The reverse record names `name`, but `name` does not resolve to the address: it is not the primary name. */
      status: 'unverified'
      /** The name the reverse record claims. */
      claimed: string
      /** Where `claimed` resolves to instead, `null` when nowhere. */
      resolvesTo: Address | null
    }
