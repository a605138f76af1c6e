import type { Address, Hash, Hex } from 'viem'

/** A session key's terms and what it may still spend, as its account records them. */
export type SessionKey = {
  /** The session key's address. */
  key: Address
  /** Unix time in seconds its first period started (the block that added it). */
  validAfter: number
  /** Unix time in seconds after which the EntryPoint refuses its operations. */
  validUntil: number
  /** Length of a spending period in seconds. */
  period: number
  /** Per token: the limit, what remains in the current period and when that period ends. */
  allowances: Allowance[]
}

/** One token a session key may transfer. */
export type Allowance = {
  /** Checksummed ERC-20. */
  token: Address
  /** What remains to transfer in the current period, atomic units. */
  remaining: bigint
  /** Unix time in seconds the current period ends and the allowance resets. */
  periodEnd: number
}

/** The on-chain state of an agent wallet. */
export type WalletState = {
  /** True when the account's code is on chain. */
  deployed: boolean
  /** The owning EOA, read from the account; undefined before deployment. */
  owner: Address | undefined
  /** Native balance in wei. */
  native: bigint
  /** Balances of the chain's listed tokens, atomic units. */
  tokens: {
    /** Symbol. */
    symbol: string
    /** Checksummed ERC-20. */
    address: Address
    /** Decimals. */
    decimals: number
    /** Balance, atomic units. */
    balance: bigint
  }[]
  /** Session keys that are active and not yet expired at the latest block. */
  sessionKeys: SessionKey[]
  /** Next owner-authorization nonce; 0 before deployment. */
  authorizationNonce: bigint
}

/** Our ERC-4337 agent wallets (AgentAccount + factory, EntryPoint v0.7) on one chain. A failed read throws. */
export type AgentWalletChain = {
  /** Chain id. */
  chainId: number
  /** The EntryPoint v0.7 the accounts trust. */
  entryPoint: Address
  /** The AgentAccountFactory. */
  factory: Address
  /** The relayer that submits deployments and authorizations and pays their gas. */
  relayer: Address
  /** The counterfactual address of (owner, salt), computed off chain and checked against the factory's `getAddress`. */
  predict: (owner: Address, salt: bigint) => Promise<Address>
  /** The account's state at the latest block. */
  read: (account: Address) => Promise<WalletState>
  /** Sends `factory.createAccount(owner, salt)` from the relayer; the mined transaction hash. */
  provision: (owner: Address, salt: bigint) => Promise<Hash>
  /**
   * Submits the owner's `AddSessionKey` authorization from the relayer after simulating it; the mined transaction
   * hash. A simulation that reverts throws `AuthorizationRefusedError` with the contract's error name.
   */
  addSessionKey: (account: Address, terms: AddSessionKeyTerms) => Promise<Hash>
  /** Submits the owner's `RevokeSessionKey` authorization like {@link AgentWalletChain.addSessionKey}. */
  revokeSessionKey: (account: Address, key: Address, signature: Hex) => Promise<Hash>
}

/** An owner-signed `AddSessionKey` authorization. */
export type AddSessionKeyTerms = {
  /** The session key. */
  key: Address
  /** Unix time in seconds after which it is refused. */
  validUntil: number
  /** Spending period in seconds. */
  period: number
  /** Tokens it may transfer. */
  tokens: Address[]
  /** Per-period limit of each, atomic units. */
  limits: bigint[]
  /** The owner's EIP-712 signature over these terms and the account's current nonce. */
  signature: Hex
}

/** The EIP-712 domain of an account: name `AgentAccount`, version `1`. */
export function domain(parameters: domain.Parameters) {
  const { account, chainId } = parameters
  return { name: 'AgentAccount', version: '1', chainId, verifyingContract: account } as const
}

export declare namespace domain {
  type Parameters = {
    /** The account, the verifying contract. */
    account: Address
    /** Its chain id. */
    chainId: number
  }
}

/** EIP-712 types of the owner's `AddSessionKey` authorization. */
export const addSessionKeyTypes = {
  AddSessionKey: [
    { name: 'key', type: 'address' },
    { name: 'validUntil', type: 'uint48' },
    { name: 'period', type: 'uint48' },
    { name: 'tokens', type: 'address[]' },
    { name: 'limits', type: 'uint256[]' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

/** EIP-712 types of the owner's `RevokeSessionKey` authorization. */
export const revokeSessionKeyTypes = {
  RevokeSessionKey: [
    { name: 'key', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const
