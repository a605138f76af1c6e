import type { Availability, Failure } from './Upstream.js'

/**
 * An XRP Ledger network the gateway submits transactions to (a rippled server, or anything that speaks its JSON-RPC
 * shapes). Expected refusals (no such account, a rejected transaction) come back as data, and so does a server that
 * cannot be reached, is overloaded, or answers something unreadable: an upstream {@link Failure}, which carries
 * `status` where the server's own refusals never do.
 */
export type XrpNetwork = {
  /** The account `address` (classic `r...`) in the current open ledger, or why it cannot be read. */
  accountInfo: (address: string) => Promise<AccountInfo | Failure>
  /** The transaction cost the open ledger asks for now, in drops. */
  fee: () => Promise<Fee | Failure>
  /** The last validated ledger: its sequence, base fee and reserves. */
  serverInfo: () => Promise<ServerInfo | Failure>
  /** Submits one signed transaction (hex `tx_blob`) and returns the server's preliminary result. */
  submit: (txBlob: string) => Promise<Submitted | Failure>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}

/** An account as read from the open ledger, or why it could not be. */
export type AccountInfo =
  | {
      /** The account exists. */
      ok: true
      /** The sequence number its next transaction must use. */
      sequence: number
      /** Its XRP balance, in drops (10^-6 XRP). */
      balance: bigint
      /** Objects it owns (trust lines, offers, ...); each adds one owner reserve. */
      ownerCount: number
    }
  | {
      /** The account could not be read. */
      ok: false
      /** The server's error code, e.g. `actNotFound` for an account that was never funded. */
      reason: string
    }

/** Transaction cost of a reference transaction (one signature), in drops. */
export type Fee = {
  /** The cost under minimum load. */
  baseFee: bigint
  /** The least a transaction must pay to be queued for a later ledger. */
  minimumFee: bigint
  /** The least a transaction must pay to enter the current open ledger. */
  openLedgerFee: bigint
  /** Median cost paid in the last validated ledger. */
  medianFee: bigint
  /** Sequence number of the current open ledger. */
  currentLedger: number
}

/** The server's last validated ledger and its fee settings. */
export type ServerInfo = {
  /** Sequence number of the last validated ledger. */
  validatedLedger: number
  /** Base transaction cost, in drops. */
  baseFee: bigint
  /** Reserve every account must keep, in drops. */
  reserveBase: bigint
  /** Reserve added per object an account owns, in drops. */
  reserveIncrement: bigint
  /** Multiplier of the base fee the server applies under load (1 when idle). */
  loadFactor: number
  /** Network id (0 mainnet, 1 testnet, 2 devnet); `undefined` when the server does not report it. */
  networkId: number | undefined
}

/** The server's preliminary verdict on one submitted transaction; only a validated ledger makes it final. */
export type Submitted =
  | {
      /** Applied to the open ledger or queued for a later one. */
      ok: true
      /** Hex hash of the transaction. */
      hash: string
      /** `tesSUCCESS` (applied to the open ledger) or `terQUEUED` (queued). */
      result: string
    }
  | {
      /** Not applied: a `tec` code (fee claimed, sequence used), or `tef`/`tel`/`tem`/`ter` (nothing used), or a request error. */
      ok: false
      /** The engine result or request error code, e.g. `tecUNFUNDED_PAYMENT`, `tefPAST_SEQ`, `invalidTransaction`. */
      reason: string
      /** The server's one-sentence explanation. */
      message: string
    }
