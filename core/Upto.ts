import type { Address, Hash, Hex } from 'viem'
import type { Outcome } from './Facilitator.js'
import * as Permit2 from './Permit2.js'

/**
 * x402's `upto` scheme on EVM: a payer signs a Permit2 witness permit for the most a call may cost, and the gateway
 * settles what the call used, through x402's `upto` proxy. This module holds the permit, its typed data and the
 * canonical addresses; the chain side is the {@link UptoChain} port.
 */

/** The x402 scheme name of payments of up to an authorized maximum, charged by usage. */
export const scheme = 'upto'

/** x402's `upto` proxy (`x402UptoPermit2Proxy`), at its canonical address (CREATE2, the same on every chain). */
export const proxyAddress: Address = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002'

/** A payer's signed `upto` permit, as the proxy takes it: Permit2 `PermitWitnessTransferFrom` with x402's witness. */
export type Permit = {
  /** The payer (Permit2 `owner`): the verified caller once the signature checks out. */
  owner: Address
  /** Token the permit moves. */
  token: Address
  /** Most it lets the facilitator move, in atomic units (Permit2 `permitted.amount`). */
  max: bigint
  /** Permit2 unordered nonce. */
  nonce: bigint
  /** Unix seconds after which Permit2 refuses it. */
  deadline: bigint
  /** Payee (witness `to`). */
  to: Address
  /** The only caller the proxy lets settle it (witness `facilitator`). */
  facilitator: Address
  /** Unix seconds before which the proxy refuses it (witness `validAfter`). */
  validAfter: bigint
  /** The payer's signature over the permit and its witness. */
  signature: Hex
  /**
   * The payer's EIP-2612 permit that approves Permit2 for `max` (the `eip2612GasSponsoring` extension), submitted
   * with the settlement so that the payer needs no approval transaction of its own.
   */
  approval?: { deadline: bigint; signature: Hex } | undefined
}

/** EIP-712 types of the permit an `upto` payer signs (Permit2's domain: name `Permit2`, chain id, Permit2's address). */
export const types = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'facilitator', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const

/** The typed data of a permit, for signing and for recovering its signer. */
export function typedData(permit: Omit<Permit, 'signature' | 'approval'>, chainId: number) {
  return {
    domain: Permit2.domainOf(chainId),
    types,
    primaryType: 'PermitWitnessTransferFrom' as const,
    message: {
      permitted: { token: permit.token, amount: permit.max },
      spender: proxyAddress,
      nonce: permit.nonce,
      deadline: permit.deadline,
      witness: { to: permit.to, facilitator: permit.facilitator, validAfter: permit.validAfter },
    },
  }
}

/** Why the chain refuses a permit now, as a refusal reason. */
export type Refusal =
  | 'allowance_required'
  | 'insufficient_funds'
  | 'replayed'
  | 'invalid_signature'
  | 'settlement_failed'

/** The `upto` contracts through the relayer key that settles them, which every permit names as its facilitator. */
export type UptoChain = {
  /** The address every offer names as the permit's facilitator. */
  facilitator: Address
  /** Whether Permit2 has used the nonce of `owner`. */
  used: (owner: Address, nonce: bigint) => Promise<boolean>
  /**
   * What became of a settlement after a crash: `settled` when its recorded transaction succeeded, `expired` when the
   * permit's deadline passed with its nonce unused (nothing moved, nothing can), `unknown` otherwise.
   */
  outcome: (
    permit: Permit,
    transaction: Hash | undefined,
    now: Date,
  ) => Promise<{ state: 'settled'; transaction: Hash } | { state: 'expired' } | { state: 'unknown' }>
  /** Nonce unused, allowance (or an EIP-2612 approval), balance, and a simulation of settling the whole maximum. */
  check: (permit: Permit) => Promise<{ ok: true; balance: bigint } | { ok: false; reason: Refusal; message: string }>
  /** Settles `amount` (1 to `permit.max`) from the relayer; resolves once the transaction is mined. */
  settle: (
    permit: Permit,
    amount: bigint,
    onSubmitted?: ((transaction: Hash) => void) | undefined,
  ) => Promise<Outcome<{ transaction: Hash }>>
}
