import type { Address, Hash } from 'viem'
import type { Domain, Signed } from './Authorization.js'

/** Stable reasons a payment is refused; each maps to a 402 with this code and the protocol's own error. */
export type Refusal =
  | 'invalid_signature'
  | 'amount_mismatch'
  | 'wrong_payee'
  | 'wrong_network'
  | 'wrong_asset'
  | 'not_yet_valid'
  | 'expired'
  | 'replayed'
  | 'insufficient_funds'
  | 'challenge_mismatch'
  | 'malformed_payment'
  | 'settlement_failed'

/** Outcome of a check or an action that may be refused: data, not an exception. */
export type Outcome<value> = ({ ok: true } & value) | { ok: false; reason: Refusal; message: string }

/** What the chain says about an authorization, for reconciliation. */
export type Status =
  | { /** The nonce is used on chain by this transaction. */ state: 'settled'; transaction: Hash | undefined }
  | { /** The nonce is unused on chain. */ state: 'unused' }

/** Moves the money of a verified authorization: directly with a relayer key, or through a remote facilitator. */
export type Facilitator = {
  /** Checks on chain that the authorization can settle (nonce unused, balance enough, call simulates). */
  verify: (parameters: { authorization: Signed; domain: Domain }) => Promise<Outcome<{}>>
  /** Submits the transfer; resolves when the transaction is confirmed, with its hash. */
  settle: (parameters: { authorization: Signed; domain: Domain }) => Promise<Outcome<{ transaction: Hash }>>
  /** Whether the authorization's nonce is used on chain (reconciliation after a crash). */
  status: (parameters: { payer: Address; nonce: Signed['nonce']; domain: Domain; transaction?: Hash }) => Promise<Status>
}
