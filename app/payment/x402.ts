import type { PaymentRequirements } from '@x402/core/types'
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1'
import { getAddress } from 'viem'
import { chainIdOf, type PaymentTerms } from '../../core/PaymentTerms.js'

// Written out here because @x402/core types a v1 `network` as CAIP-2, while v1 carries names like `base-sepolia`.
/** x402 v1 payment requirements, as v1 clients parse them from a 402 body. */
export type RequirementsV1 = {
  /** Payment scheme; always `exact`. */
  scheme: 'exact'
  /** v1 network name, e.g. `base-sepolia`. */
  network: string
  /** Price in atomic units, as a decimal string. */
  maxAmountRequired: string
  /**
   * The same price under its x402 v2 name: the original gateway answered a v2 body, and its clients read the price of a
   * dry run there (its Python client reads `accepts[0].amount`).
   */
  amount: string
  /** Absolute URL of the resource. */
  resource: string
  /** What the payment buys. */
  description: string
  /** Media type of the paid response. */
  mimeType: string
  /** How to call the resource (the v1 discovery shape). */
  outputSchema: { input: { type: 'http'; method: string; discoverable: boolean } }
  /** Address that receives the payment. */
  payTo: string
  /** How long a signed payment stays valid, in seconds. */
  maxTimeoutSeconds: number
  /** Token contract. */
  asset: string
  /** EIP-712 domain name and version of the token. */
  extra: { name: string; version: string }
}

/** The x402 v1 name of a network (`base-sepolia` for `eip155:84532`); `undefined` when v1 has no name for it. */
export function v1NetworkOf(network: PaymentTerms['network']): string | undefined {
  const chainId = chainIdOf(network)
  // The official SDK's v1 EVM table; the legacy `x402` client knows a subset of it (Base and Base Sepolia included).
  return Object.entries(EVM_NETWORK_CHAIN_ID_MAP).find(([, id]) => id === chainId)?.[0]
}

/** The x402 v2 `exact` requirements of one offer. */
export function requirements(parameters: requirements.Parameters): PaymentRequirements {
  const { terms, amount } = parameters
  return {
    scheme: 'exact',
    network: terms.network,
    amount: amount.toString(),
    asset: getAddress(terms.asset.address),
    payTo: getAddress(terms.payTo),
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: { name: terms.asset.name, version: terms.asset.version },
  }
}

export declare namespace requirements {
  type Parameters = {
    /** Network, asset and payee. */
    terms: PaymentTerms
    /** Price in atomic units. */
    amount: bigint
  }
}

/** The x402 v1 `exact` requirements of one offer; `undefined` when v1 has no name for the network. */
export function requirementsV1(parameters: requirementsV1.Parameters): RequirementsV1 | undefined {
  const { terms, amount, resource, description, mimeType, method } = parameters
  const network = v1NetworkOf(terms.network)
  if (network === undefined) return undefined
  return {
    scheme: 'exact',
    network,
    maxAmountRequired: amount.toString(),
    amount: amount.toString(),
    resource,
    description,
    mimeType,
    outputSchema: { input: { type: 'http', method, discoverable: true } },
    payTo: getAddress(terms.payTo),
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    asset: getAddress(terms.asset.address),
    extra: { name: terms.asset.name, version: terms.asset.version },
  }
}

export declare namespace requirementsV1 {
  type Parameters = requirements.Parameters & {
    /** Absolute URL of the resource. */
    resource: string
    /** What the payment buys. */
    description: string
    /** Media type of the paid response. */
    mimeType: string
    /** HTTP method of the paid call. */
    method: string
  }
}
