/**
 * The fee payer of x402 `exact` payments on Solana: our relayer co-signs the payer's transfer (`extra.feePayer` of
 * every offer), sends it and confirms it, over one network's JSON-RPC node.
 */

/** What the node says of a sent transaction. */
export type Status =
  | { /** Confirmed (or finalized) and succeeded. */ state: 'confirmed' }
  | { /** Landed and failed: nothing moved but the fee. */ state: 'failed'; message: string }
  | { /** The node does not know it (not landed yet, or never will). */ state: 'unknown' }

/**
 * Our relayer as the fee payer on one Solana network. `signer` is the signer `@x402/svm`'s facilitator scheme drives
 * (its `FacilitatorSvmSigner`), a type of that library, which core does not import.
 */
export type FeePayer<signer = unknown> = {
  /** The fee payer's base58 address: `extra.feePayer` of every offer. */
  address: string
  /**
   * Co-signs, simulates, sends; its `confirmTransaction` gives up after the settlement timeout with a plain error,
   * which the scheme reports as `settlement_pending`.
   */
  signer: signer
  /** What the node says of a signature, its whole history searched. */
  status: (signature: string) => Promise<Status>
  /** Whether a transaction built on `blockhash` may still land; once not, an unknown one never will. */
  blockhashValid: (blockhash: string) => Promise<boolean>
}
