import type { Address, Hex } from 'viem'
import type * as Upstream from './Upstream.js'

/**
 * The transaction history of an address on the settlement chain, from an explorer (Blockscout) or an indexer of our
 * own. Only what the source read is reported: a field the source does not know is `null`, never guessed.
 */

/** One token movement of a transaction. */
export type TokenTransfer = {
  /** Token contract. */
  token: Address
  /** Symbol; `null` when neither the token list nor the token itself says. */
  symbol: string | null
  /** Decimals; `null` when neither the token list nor the token itself says. */
  decimals: number | null
  /** Sender of the tokens. */
  from: Address
  /** Recipient of the tokens. */
  to: Address
  /** Amount in atomic units. */
  amount: bigint
  /** Position of the log in its block. */
  logIndex: number
}

/** One mined transaction that touches the address: as sender, recipient, creator or party to a token transfer. */
export type Transaction = {
  /** Transaction hash. */
  hash: Hex
  /** Block it was mined in. */
  blockNumber: bigint
  /** Position in that block. */
  position: number
  /** Timestamp of that block, in seconds since the Unix epoch. */
  timestamp: number
  /** Sender. */
  from: Address
  /** Recipient; `null` for a contract creation. */
  to: Address | null
  /** The contract it created, if any. */
  created: Address | null
  /** Ether sent, in wei. */
  value: bigint
  /** Whether it succeeded. */
  status: 'success' | 'reverted'
  /** Calldata; `0x` for a plain transfer. */
  input: Hex
  /** Fee paid, in wei. */
  fee: bigint
  /** Token transfers it emitted that involve the address, in log order. */
  transfers: readonly TokenTransfer[]
}

/** What the source knows of an address itself. */
export type Account = {
  /** Whether the source has seen the address at all. */
  seen: boolean
  /** Whether the source says it holds code; `null` when it does not say. */
  isContract: boolean | null
  /** Who created the contract, when the source knows. */
  creator: Address | null
  /** The creating transaction, when the source knows. */
  creationTransaction: Hex | null
  /** Proxy kind the source detected (e.g. `eip1967`, `eip7702`), when it detected one. */
  proxyType: string | null
  /** Implementation (or delegate) addresses the source detected. */
  implementations: readonly Address[]
  /** Transactions the source counts for the address; `null` when it does not count them. */
  transactionCount: number | null
  /** ERC-20 transfers the source counts for the address; `null` when it does not count them. */
  transferCount: number | null
}

/** The newest transactions of an address. */
export type Page = {
  /** Newest first. */
  transactions: readonly Transaction[]
  /** Whether these are every transaction the source holds for the address (no older ones left out). */
  complete: boolean
  /** Newest block the source had read when it answered; `null` when it does not say. */
  head: bigint | null
}

/** The history port: the settlement chain's transactions per address. */
export type History = {
  /** Name of the source, shown to callers, e.g. `blockscout` or `indexer`. */
  source: string
  /** At most `limit` of the newest transactions touching `address`. */
  transactions: (address: Address, limit: number) => Promise<Upstream.Outcome<Page>>
  /** What the source knows of `address` itself. */
  account: (address: Address) => Promise<Upstream.Outcome<{ account: Account }>>
  /** Whether calls may start now (checked before payment). */
  available: () => Upstream.Availability
}
