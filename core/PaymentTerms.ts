import { getAddress } from 'viem'
import type { Domain } from './Authorization.js'

/** A CAIP-2 id of an EVM network, e.g. `eip155:8453`. */
export type Network = `eip155:${number}`

/** The EIP-3009 token payments are made in (USDC). */
export type Asset = {
  /** Token contract address. */
  address: `0x${string}`
  /** EIP-712 domain name of the token. */
  name: string
  /** EIP-712 domain version of the token. */
  version: string
  /** Token decimals (6 for USDC). */
  decimals: number
}

/** What every paid offer carries: where money goes and in which asset. Filled from config and the chain. */
export type PaymentTerms = {
  /** CAIP-2 network id, e.g. `eip155:8453`. */
  network: Network
  /** The token payments are made in. */
  asset: Asset
  /** Address that receives payments. */
  payTo: `0x${string}`
  /** How long a signed payment stays valid, in seconds. */
  maxTimeoutSeconds: number
}

/** The chain id of an `eip155:<id>` network. */
export function chainIdOf(network: Network): number {
  return Number(network.slice('eip155:'.length))
}

/** The EIP-712 domain a payment under these terms is signed in: the token's name and version, on its chain. */
export function toDomain(terms: PaymentTerms): Domain {
  return {
    name: terms.asset.name,
    version: terms.asset.version,
    chainId: chainIdOf(terms.network),
    verifyingContract: getAddress(terms.asset.address),
  }
}
