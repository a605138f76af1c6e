import type { Address, Hash, Hex } from 'viem'
import { InvalidTransitionError } from './Errors.js'
import type { Also, Effect } from './Store.js'

/** Payment protocols the gateway accepts. */
export type Protocol = 'x402-v2' | 'x402-v1' | 'mpp'

/** The life of one payment authorization in the ledger. */
export type State = 'claimed' | 'settling' | 'settled' | 'failed' | 'released'

/** A handler's response as the ledger keeps it, so that a retry of the same paid call gets it again. */
export type StoredResponse = {
  /** HTTP status. */
  status: number
  /** Content type of the body. */
  contentType: string
  /** The body, base64-encoded. */
  body: string
}

/**
 * Who paid: a checksummed EVM address, or a Solana account named CAIP-10 style, `solana:<genesis hash>:<base58>` (x402
 * `exact` on `solana:`). The prefix keeps the two apart in one ledger.
 */
export type Payer = Address | `solana:${string}`

/** Whether a payer is an EVM address (the `exact` and MPP payments on EVM), not a Solana account. */
export function isEvmPayer(payer: Payer): payer is Address {
  return !payer.startsWith('solana:')
}

/** One payment as the ledger records it. Keyed by (payer, nonce): one authorization is served at most once. */
export type Entry = {
  /** The payer: checksummed EVM address (the verified caller), or a Solana account. */
  payer: Payer
  /** EIP-3009 nonce of the authorization; for a Solana payment, the SHA-256 of its transaction message. */
  nonce: Hex
  /** Current state. */
  state: State
  /** Amount in atomic USDC units: the authorized maximum while claimed, what is charged once settling. */
  amount: bigint
  /** `"METHOD path"` of the catalog entry paid for. */
  endpoint: string
  /** Protocol the payment arrived in. */
  protocol: Protocol
  /** Settlement transaction, once submitted; of a Solana payment, its signature's 64 bytes in hex. */
  transaction: Hash | undefined
  /** Why it failed or was released, when it did. */
  reason: string | undefined
  /** The signed authorization, kept so a crash mid-settlement can be finished or reconciled. */
  authorization: string
  /** Hash of the request paid for (method, path, query, body); a retry must carry the same request. */
  fingerprint: string
  /** The caller's idempotency key (x402 `payment-identifier` or MPP `Idempotency-Key`), unique per payer while live. */
  idempotencyKey: string | undefined
  /** Lease of the process that holds the claim; a claim whose process is dead is released at once. */
  lease: string | undefined
  /** The handler's response, kept (size-bounded) until it is no longer needed; absent when not retained. */
  response: StoredResponse | undefined
  /** Writes the paid call made, in order, undone when it is never paid. */
  effects: Effect[]
  /** When it was claimed. */
  claimedAt: Date
  /** When it last changed state. */
  updatedAt: Date
}

/** The entry of a payment made on EVM (an EIP-3009 authorization): its payer is an address. */
export type EvmEntry = Entry & { payer: Address }

/** The entry as an EVM payment's; throws for a Solana one, which the EVM paths never hold. */
export function asEvm(entry: Entry): EvmEntry {
  const { payer } = entry
  if (!isEvmPayer(payer)) throw new Error(`The payment of ${payer} is not an EVM payment.`)
  return { ...entry, payer }
}

/** The settled payments of one payer, summed. */
export type Settled = {
  /** How many. */
  count: number
  /** Their total, in atomic USDC units. */
  amount: bigint
  /** When the first settled; undefined when none did. */
  first: Date | undefined
  /** When the last settled; undefined when none did. */
  last: Date | undefined
}

/** What moves an entry from one state to the next. */
export type Event =
  | { /** The handler wrote something; kept so it can be undone. */ type: 'effect'; effect: Effect }
  | {
      /** Settlement starts; the response is kept for retries. */
      type: 'settle'
      response: StoredResponse | undefined
      /** What is charged when it is less than the claimed maximum (x402 `upto`, metered by usage). */
      amount?: bigint | undefined
    }
  | { /** The settlement transaction is known. */ type: 'submitted'; transaction: Hash }
  | {
      /** Another process takes over an undecided settlement whose holder is gone (or gives one up: `lease` absent). */
      type: 'adopt'
      /** The lease that held it; the move applies only while it still does. */
      from: string | undefined
      /** The lease that holds it now. */
      lease: string | undefined
    }
  | { /** Confirmed on chain. */ type: 'confirmed'; transaction: Hash }
  | { /** Settlement failed; nothing moved. */ type: 'fail'; reason: string }
  | { /** The handler failed; the authorization may be used again. */ type: 'release'; reason: string }
  | {
      /**
       * The handler started an asynchronous job and answered: the claim stays, held by the job instead of a process,
       * until the job's end settles or releases it. Its writes are the job's record, which stays either way.
       */
      type: 'defer'
      /** The job's id. */
      job: string
    }

/**
 * The next state of an entry, in the shape of every state machine (`Machine.Transition`). Pure: store
 * implementations may retry it, so it has no side effects. Throws {@link InvalidTransitionError} for an event that
 * does not apply; inside the gateway that is a fault of its own.
 *
 * claimed -> settling -> settled | failed; claimed -> released | failed. `effect` adds to a claim's undo list;
 * `submitted` records the hash while settling; `adopt` moves an undecided settlement to another process (and a
 * deferred claim, once settling, from its job to the process that settles it); `defer` hands a claim to a job.
 */
export function transition(entry: Entry, event: Event, now: Date): Entry {
  const next = (changes: Partial<Entry>): Entry => ({ ...entry, ...changes, updatedAt: now })
  const invalid = () => new InvalidTransitionError(`A payment in state ${entry.state} cannot take event ${event.type}.`)
  switch (event.type) {
    case 'effect':
      if (entry.state !== 'claimed') throw invalid()
      return next({ effects: [...entry.effects, event.effect] })
    case 'settle':
      if (entry.state !== 'claimed') throw invalid()
      if (event.amount !== undefined && (event.amount < 0n || event.amount > entry.amount))
        throw new InvalidTransitionError(`A payment claimed for ${entry.amount} cannot settle ${event.amount}.`)
      return next({ state: 'settling', response: event.response, amount: event.amount ?? entry.amount })
    case 'submitted':
      if (entry.state !== 'settling') throw invalid()
      return next({ transaction: event.transaction })
    case 'adopt':
      if (entry.state !== 'settling') throw invalid()
      if (entry.lease !== event.from)
        throw new InvalidTransitionError(
          `The settlement is held by ${entry.lease ?? 'nobody'}, not ${event.from ?? 'nobody'}.`,
        )
      return next({ lease: event.lease })
    case 'confirmed':
      if (entry.state !== 'settling') throw invalid()
      return next({ state: 'settled', transaction: event.transaction, lease: undefined, effects: [] })
    case 'fail':
      if (entry.state !== 'claimed' && entry.state !== 'settling') throw invalid()
      return next({ state: 'failed', reason: event.reason, lease: undefined, response: undefined })
    case 'release':
      if (entry.state !== 'claimed') throw invalid()
      return next({ state: 'released', reason: event.reason, lease: undefined, response: undefined })
    case 'defer':
      if (entry.state !== 'claimed' || isDeferred(entry)) throw invalid()
      return next({ lease: deferredLease(event.job), effects: [] })
  }
}

/** What the lease of a deferred claim starts with; no process lease does (those are UUIDs). */
const deferredPrefix = 'job:'

/** The lease of a claim held by an asynchronous job rather than a process. */
export function deferredLease(job: string): string {
  return `${deferredPrefix}${job}`
}

/** Whether an entry is held by an asynchronous job (see the `defer` event): no process's death releases it. */
export function isDeferred(entry: Pick<Entry, 'lease'>): boolean {
  return entry.lease?.startsWith(deferredPrefix) === true
}

/** What a claim records; the rest of the entry starts empty. */
export type Claim = Pick<
  Entry,
  'payer' | 'nonce' | 'amount' | 'endpoint' | 'protocol' | 'authorization' | 'fingerprint' | 'claimedAt'
> & {
  /** The caller's idempotency key, if any. */
  idempotencyKey?: string | undefined
  /** Lease of the claiming process. */
  lease: string
  /**
   * The payer's balance on chain, in atomic units. When given, the claim succeeds only if it and the payer's
   * outstanding claims (`claimed` and `settling`) fit in it, so a payer cannot be served beyond what it can pay.
   */
  balance?: bigint | undefined
  /**
   * When `balance` was read. Entries settled since then count against it too: the balance may not show their
   * transfers yet. @default only `claimed` and `settling` entries count
   */
  balanceAt?: Date | undefined
}

/** Result of a claim: the new entry, or why not. */
export type ClaimResult =
  | { ok: true; entry: Entry }
  | { /** This authorization is already held. */ ok: false; reason: 'replayed'; existing: Entry }
  | {
      /** Another live entry of the payer holds the idempotency key. */ ok: false
      reason: 'duplicate'
      existing: Entry
    }
  | {
      /** Outstanding claims plus this one exceed the balance. */ ok: false
      reason: 'insufficient_funds'
      outstanding: bigint
    }

/** One move of {@link Ledger.applyAll}: what one `apply` takes. */
export type Move = {
  /** The entry. */
  key: { payer: Payer; nonce: Hex }
  /** What happened to it. */
  event: Event
  /** Work that commits with the move. */
  also?: Also | undefined
}

/** What became of one move of {@link Ledger.applyAll}: the updated entry, or why it was refused (nothing written). */
export type Moved = { ok: true; entry: Entry } | { ok: false; error: unknown }

/** A gateway process that holds claims, kept alive by its heartbeat. */
export type Lease = {
  /** Random id, new at every start. */
  id: string
  /** Host name of the process. */
  host: string
  /** OS process id. */
  pid: number
  /** Small number unique among live leases, from 0; picks the process's relayer key. */
  slot: number
  /** Last heartbeat. */
  heartbeatAt: Date
}

/** The durable payment ledger. Every method is atomic across all processes that share the store. */
export type Ledger = {
  /**
   * Claims (payer, nonce) for one use. Succeeds when no entry exists or the existing one is `released` (the
   * handler failed, nothing was charged), the idempotency key is free and the balance covers it.
   */
  claim: (claim: Claim) => Promise<ClaimResult>
  /**
   * Applies an event with {@link transition}, atomically; returns the updated entry. `also` commits with the move
   * (the transactional outbox, e.g. the `payment.settled` event of a `confirmed`), and not at all when it is refused.
   */
  apply: (key: { payer: Payer; nonce: Hex }, event: Event, also?: Also) => Promise<Entry>
  /**
   * Applies several moves in one transaction (group commit), in order, each as `apply` would: a move refused by
   * {@link transition} (or naming no entry) leaves its entry as it was, and the others still apply. A fault of the
   * database fails the whole call and writes nothing.
   */
  applyAll: (moves: readonly Move[]) => Promise<Moved[]>
  /** Reads one entry. */
  get: (key: { payer: Payer; nonce: Hex }) => Promise<Entry | undefined>
  /** The live entry (`claimed`, `settling` or `settled`) of a payer that holds an idempotency key. */
  find: (key: { payer: Payer; idempotencyKey: string }) => Promise<Entry | undefined>
  /** Entries in a state, oldest first (reconciliation reads `settling` and `claimed`). */
  list: (parameters: { state: State; limit?: number }) => Promise<Entry[]>
  /** What `payer` has settled with this gateway: how many payments, their total, the first and the last. */
  settled: (payer: Payer) => Promise<Settled>
  /** Drops the stored responses of decided entries (settled, failed, released) last changed before `before`. */
  forget: (parameters: { before: Date }) => Promise<number>
  /**
   * Registers a process: removes leases whose heartbeat is older than `staleBefore`, then inserts this one with
   * the lowest slot no other lease holds.
   */
  acquire: (lease: Omit<Lease, 'slot'> & { staleBefore: Date }) => Promise<Lease>
  /** Renews a lease's heartbeat; `false` when it is gone (another process took it for dead). */
  renew: (parameters: { id: string; now: Date }) => Promise<boolean>
  /** Every registered lease, live or not. */
  leases: () => Promise<Lease[]>
  /** Removes a lease (its process stopped, or is dead). */
  drop: (id: string) => Promise<void>
  /** Releases resources (connections, file handles). */
  close: () => Promise<void>
}
