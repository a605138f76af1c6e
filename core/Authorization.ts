import { type Address, type Hex, recoverTypedDataAddress } from 'viem'

/** An EIP-3009 `TransferWithAuthorization`: what x402 `exact` and MPP `evm` charge both carry. */
export type Authorization = {
  /** Payer; the verified caller once the signature checks out. */
  from: Address
  /** Payee. */
  to: Address
  /** Amount in atomic token units. */
  value: bigint
  /** Unix seconds after which it is valid. */
  validAfter: bigint
  /** Unix seconds before which it is valid. */
  validBefore: bigint
  /** 32-byte random nonce, unique per payer. */
  nonce: Hex
}

/** A signed authorization. */
export type Signed = Authorization & {
  /** 65-byte ECDSA signature (or an EIP-1271 / EIP-6492 blob for smart wallets). */
  signature: Hex
}

/** The token contract an authorization is bound to through its EIP-712 domain. */
export type Domain = {
  /** EIP-712 domain name, e.g. `USD Coin`. */
  name: string
  /** EIP-712 domain version, e.g. `2`. */
  version: string
  /** Chain id. */
  chainId: number
  /** Token contract. */
  verifyingContract: Address
}

/** EIP-712 types of EIP-3009 `transferWithAuthorization`; must match the token contract's typehash. */
export const types = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** The typed data a payer signs. */
export function toTypedData(authorization: Authorization, domain: Domain) {
  return { domain, types, primaryType: 'TransferWithAuthorization' as const, message: authorization }
}

/** Recovers the signer of a 65-byte signature; `undefined` when the signature cannot be recovered. */
export async function recover(signed: Signed, domain: Domain): Promise<Address | undefined> {
  try {
    const { signature, ...authorization } = signed
    return await recoverTypedDataAddress({ ...toTypedData(authorization, domain), signature })
  } catch {
    return undefined
  }
}
