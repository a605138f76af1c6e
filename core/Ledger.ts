import type { Address, Hash, Hex } from 'viem'
import { BaseError } from './Errors.js'

/** Payment protocols the gateway accepts. */
export type Protocol = 'x402-v2' | 'x402-v1' | 'mpp'

/** The life of one payment authorization in the ledger. */
export type State = 'claimed' | 'settling' | 'settled' | 'failed' | 'released'

/** One payment as the ledger records it. Keyed by (payer, nonce): one authorization is served at most once. */
export type Entry = {
  /** Checksummed payer address (the verified caller). */
  payer: Address
  /** EIP-3009 nonce of the authorization. */
  nonce: Hex
  /** Current state. */
  state: State
  /** Amount in atomic USDC units. */
  amount: bigint
  /** `"METHOD path"` of the catalog entry paid for. */
  endpoint: string
  /** Protocol the payment arrived in. */
  protocol: Protocol
  /** Settlement transaction, once submitted. */
  transaction: Hash | undefined
  /** Why it failed or was released, when it did. */
  reason: string | undefined
  /** The signed authorization, kept so a crash mid-settlement can be finished or reconciled. */
  authorization: string
  /** When it was claimed. */
  claimedAt: Date
  /** When it last changed state. */
  updatedAt: Date
}

/** What moves an entry from one state to the next. */
export type Event =
  | { /** Settlement starts. */ type: 'settle' }
  | { /** The settlement transaction is known. */ type: 'submitted'; transaction: Hash }
  | { /** Confirmed on chain. */ type: 'confirmed'; transaction: Hash }
  | { /** Settlement failed; nothing moved. */ type: 'fail'; reason: string }
  | { /** The handler failed; the authorization may be used again. */ type: 'release'; reason: string }

/** Raised when an event does not apply to the current state. */
export class InvalidTransitionError extends BaseError {
  override readonly code = 'internal_error' as const
  override readonly title = 'Invalid ledger transition'
}

/**
 * The next state of an entry. Pure: store implementations may retry it, so it has no side effects.
 *
 * claimed -> settling -> settled | failed; claimed -> released. `submitted` records the hash while settling.
 */
export function transition(entry: Entry, event: Event, now: Date): Entry {
  const next = (changes: Partial<Entry>): Entry => ({ ...entry, ...changes, updatedAt: now })
  switch (`${entry.state}:${event.type}`) {
    case 'claimed:settle':
      return next({ state: 'settling' })
    case 'settling:submitted':
      return next({ transaction: (event as { transaction: Hash }).transaction })
    case 'settling:confirmed':
      return next({ state: 'settled', transaction: (event as { transaction: Hash }).transaction })
    case 'settling:fail':
    case 'claimed:fail':
      return next({ state: 'failed', reason: (event as { reason: string }).reason })
    case 'claimed:release':
      return next({ state: 'released', reason: (event as { reason: string }).reason })
    default:
      throw new InvalidTransitionError(`A payment in state ${entry.state} cannot take event ${event.type}.`)
  }
}

/** Result of a claim: the new entry, or the entry that already holds this authorization. */
export type ClaimResult = { ok: true; entry: Entry } | { ok: false; reason: 'replayed'; existing: Entry }

/** The durable payment ledger. Every method is atomic across all processes that share the store. */
export type Ledger = {
  /**
   * Claims (payer, nonce) for one use. Succeeds when no entry exists or the existing one is `released` (the
   * handler failed, nothing was charged); otherwise answers `replayed`.
   */
  claim: (entry: Omit<Entry, 'state' | 'transaction' | 'reason' | 'updatedAt'>) => Promise<ClaimResult>
  /** Applies an event with {@link transition}, atomically; returns the updated entry. */
  apply: (key: { payer: Address; nonce: Hex }, event: Event) => Promise<Entry>
  /** Reads one entry. */
  get: (key: { payer: Address; nonce: Hex }) => Promise<Entry | undefined>
  /** Entries in a state, oldest first (reconciliation at boot reads `settling` and stale `claimed`). */
  list: (parameters: { state: State; limit?: number }) => Promise<Entry[]>
  /** Releases resources (connections, file handles). */
  close: () => Promise<void>
}
