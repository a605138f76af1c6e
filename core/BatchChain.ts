import type { Address, Hex } from 'viem'

/** Symbol and decimals of an ERC-20, or why the address is not one. */
export type TokenInfo =
  | {
      ok: true
      /** The token's `symbol()`. */
      symbol: string
      /** The token's `decimals()`. */
      decimals: number
    }
  | {
      ok: false
      /** One sentence: no code at the address, or it does not answer `symbol()` and `decimals()`. */
      reason: string
    }

/** A gas estimate of a call against the chain's state, or why there is none. */
export type GasEstimate =
  | {
      ok: true
      /** Gas the call needs, in gas, as the node's `eth_estimateGas` answers. */
      gas: bigint
    }
  | {
      ok: false
      /**
       * `reverted`: the call reverts on the chain's state (with any override applied); `override_unsupported`: the
       * node refuses state overrides in `eth_estimateGas`; `allowance_slot_unknown`: the token's allowance storage
       * slot could not be found, so no override could be built.
       */
      reason: 'reverted' | 'override_unsupported' | 'allowance_slot_unknown'
      /** One sentence, e.g. the revert reason. */
      message: string
    }

/**
 * The batch-payment contract on one chain (`adapters/chain/contracts/BatchPayments.sol`, the ABI of the one on Base),
 * with the ERC-20s configured there. A failed read is a fault and throws; expected outcomes come back as data.
 */
export type BatchChain = {
  /** EIP-155 chain id transactions are built for. */
  chainId: number
  /** Checksummed address of the batch contract. */
  address: Address
  /** Checksummed ERC-20 addresses by uppercase symbol (`USDC`, `DAI`, ...), as configured for this chain. */
  tokens: Readonly<Record<string, Address>>
  /** The contract's protocol fee rate, read from `feeBps()`, in basis points. */
  feeBps: () => Promise<bigint>
  /** keccak256 of the contract's runtime code; `undefined` when the address holds no code. */
  codeHash: () => Promise<Hex | undefined>
  /** `token.allowance(owner, batch contract)`, in the token's base units. */
  allowance: (parameters: { token: Address; owner: Address }) => Promise<bigint>
  /** Balances of `accounts` in `token`'s base units, or in wei when `token` is `undefined`; in input order. */
  balances: (parameters: { token: Address | undefined; accounts: readonly Address[] }) => Promise<bigint[]>
  /** The ERC-20 at `token`: its symbol and decimals, or why it is not one. */
  readToken: (token: Address) => Promise<TokenInfo>
  /**
   * Gas of calling the batch contract with `data` and `value` from `from` at the latest block. With `allowance`, the
   * estimate runs as if `from` had approved exactly `allowance.amount` of `allowance.token` to the contract (a
   * state override of the token's allowance slot).
   */
  estimateGas: (parameters: {
    /** The sender. */
    from: Address
    /** Calldata of the batch call. */
    data: Hex
    /** Wei sent along. */
    value: bigint
    /** Allowance to assume instead of the one on chain. */
    allowance?: { token: Address; amount: bigint } | undefined
  }) => Promise<GasEstimate>
}

/** The batch contracts the gateway builds transactions for, by chain. */
export type Chains = {
  /** The primary chain: Base in production, the devnet in development. Always accepted. */
  base: BatchChain
  /** peaq; accepted only once its contract's runtime code hash is verified equal to the primary chain's. */
  peaq?: BatchChain | undefined
}
