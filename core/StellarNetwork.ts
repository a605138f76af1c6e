import type { Availability, Failure } from './Upstream.js'

/**
 * A Stellar network the gateway submits transactions to (Horizon, or anything that speaks its shapes). Expected
 * refusals (no such account, a rejected transaction) come back as data, and so does a network that cannot be reached
 * or answers something unreadable: an upstream {@link Failure}, which carries `status` where the network's own
 * refusals never do.
 */
export type StellarNetwork = {
  /** Passphrase of the network transactions are signed for, e.g. `Test SDF Network ; September 2015`. */
  networkPassphrase: string
  /** The current sequence number of an account (`G...`), or why it cannot be read. */
  loadAccount: (address: string) => Promise<LoadedAccount | Failure>
  /** Base fee and recent per-operation fees, from the last ledgers. */
  feeStats: () => Promise<FeeStats | Failure>
  /** Submits a signed transaction envelope (base64 XDR) and waits for the network's verdict. */
  submit: (envelopeXdr: string) => Promise<Submitted | Failure>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}

/** An account as read from the network, or why it could not be. */
export type LoadedAccount =
  | {
      /** The account exists. */
      ok: true
      /** Its current sequence number; the next transaction uses `sequence + 1`. */
      sequence: bigint
    }
  | {
      /** The account could not be read. */
      ok: false
      /** The network's reason, e.g. `not_found` for an account that was never funded. */
      reason: string
    }

/** Fees per operation, in stroops (10^-7 XLM), as the network reports them. */
export type FeeStats = {
  /** Sequence number of the last closed ledger the stats cover. */
  ledger: number
  /** The base fee per operation of the last ledger: the least a transaction pays per operation. */
  baseFee: bigint
  /** Fees per operation actually charged over the last ledgers, by percentile. */
  charged: Percentiles
}

/** A distribution of fees per operation over the last ledgers, in stroops. */
export type Percentiles = {
  /** Lowest. */
  min: bigint
  /** Most frequent. */
  mode: bigint
  /** Median. */
  p50: bigint
  /** 90th percentile. */
  p90: bigint
  /** 99th percentile. */
  p99: bigint
  /** Highest. */
  max: bigint
}

/** The network's verdict on a submitted transaction. */
export type Submitted =
  | {
      /** The transaction was included in a ledger and succeeded. */
      ok: true
      /** Included and successful. */
      status: 'success'
      /** Hex hash of the transaction. */
      hash: string
      /** Sequence number of the ledger it was included in. */
      ledger: number
      /** Fee charged, in stroops. */
      feeCharged: bigint
    }
  | {
      /** Accepted but not yet in a ledger when the network stopped waiting; it may still be included until its time bounds expire. */
      ok: true
      /** Submitted, outcome not known yet. */
      status: 'pending'
    }
  | {
      /** The network refused the transaction; nothing of it was applied. */
      ok: false
      /** The transaction result code, e.g. `tx_bad_seq`, `tx_insufficient_fee`, `tx_failed` (see `operations`), `transaction_malformed`. */
      reason: string
      /** One result code per operation when the network reports them, e.g. `op_no_destination`; otherwise empty. */
      operations: string[]
    }
