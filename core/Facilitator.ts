import type { Address, Hash } from 'viem'
import type { Domain, Signed } from './Authorization.js'
import type { Refusal } from './Errors.js'

/** Stable reasons a payment is refused, one list with every error code (see `Errors.Refusal`). */
export type { Refusal }

/** Outcome of a check or an action that may be refused: data, not an exception. */
export type Outcome<value> = ({ ok: true } & value) | { ok: false; reason: Refusal; message: string }

/** What the chain says about an authorization, for reconciliation. */
export type Status =
  | { /** The nonce is used on chain by this transaction. */ state: 'settled'; transaction: Hash | undefined }
  | { /** The nonce is unused on chain. */ state: 'unused' }

/** Moves the money of a verified authorization: directly with a relayer key, or through a remote facilitator. */
export type Facilitator = {
  /**
   * Checks on chain that the authorization can settle (nonce unused, balance enough, call simulates); answers the
   * payer's balance in atomic units where it read it, so claims can be held within it.
   */
  verify: (parameters: { authorization: Signed; domain: Domain }) => Promise<Outcome<{ balance?: bigint | undefined }>>
  /**
   * Submits the transfer; resolves when the transaction is confirmed, with its hash. `settlement_pending` means the
   * outcome is unknown (the transaction may be on its way): never report it as nothing charged. `onSigned` hears
   * the hash once the transaction is signed, before it is sent (it may never reach the chain); `onSubmitted` hears it
   * once the node has taken the transaction.
   */
  settle: (parameters: {
    authorization: Signed
    domain: Domain
    onSigned?: ((transaction: Hash) => void) | undefined
    onSubmitted?: ((transaction: Hash) => void) | undefined
  }) => Promise<Outcome<{ transaction: Hash }>>
  /** Whether the authorization's nonce is used on chain (reconciliation after a crash). */
  status: (parameters: {
    payer: Address
    nonce: Signed['nonce']
    domain: Domain
    transaction?: Hash
  }) => Promise<Status>
}
