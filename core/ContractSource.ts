import { Type } from '@sinclair/typebox'
import type { Address } from 'viem'
import type * as Upstream from './Upstream.js'

/**
 * Verified source code of deployed contracts, from a verification service (Sourcify, a Blockscout explorer). Only
 * what the service verified is reported: a contract it does not know is `null`, never guessed.
 */

/**
 * The `INFERENCE_BLOCKSCOUT_URL` variable: Base's Blockscout, asked for verified source (the `contractSources`
 * provider) and linked to callers (the inference family), one schema in both slices.
 */
export const blockscoutUrlVariable = Type.String({
  minLength: 1,
  default: 'https://base.blockscout.com',
  description:
    "Blockscout explorer of the settlement chain asked next for verified source, and linked as explain-contract's `basescanUrl` (on Base only)",
})

/** One source file of a verified contract. */
export type File = {
  /** Path as the compiler saw it, e.g. `contracts/Token.sol`. */
  path: string
  /** The file's text. */
  content: string
}

/** A contract's verified source. */
export type Verified = {
  /** The service that verified it, e.g. `sourcify`. */
  source: string
  /** How well it matches: `exact` (metadata hash too) or `partial` (bytecode without metadata), as the service says. */
  match: 'exact' | 'partial'
  /** Contract name; `null` when the service does not say. */
  name: string | null
  /** Source language, e.g. `Solidity`; `null` when the service does not say. */
  language: string | null
  /** Compiler version; `null` when the service does not say. */
  compiler: string | null
  /** The ABI; `null` when the service does not give it. */
  abi: readonly unknown[] | null
  /** The source files. */
  files: readonly File[]
}

/** A verification service on one chain or several. */
export type Sources = {
  /** Name of the service, shown to callers. */
  name: string
  /** The verified source of `address` on `chainId`; `null` when the service has verified none. */
  find: (parameters: { chainId: number; address: Address }) => Promise<Upstream.Outcome<{ verified: Verified | null }>>
  /** Whether calls may start now (checked before payment). */
  available: () => Upstream.Availability
}
