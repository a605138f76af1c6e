import type { Address } from 'viem'
import type * as Upstream from './Upstream.js'

/**
 * What an address holds on a chain, read from an indexer (Blockscout) or from a node itself: its native coin, its
 * fungible tokens (ERC-20) and its NFTs (ERC-721, ERC-1155, ERC-404), a page at a time, as the source knows them now.
 * A field the source does not know is `null`, never guessed.
 */

/** The native coin of a chain. */
export type Coin = {
  /** Name, e.g. `Ether`. */
  name: string
  /** Symbol, e.g. `ETH`. */
  symbol: string
  /** Decimals of its atomic unit (18 for wei). */
  decimals: number
}

/** One fungible token an address holds. */
export type Token = {
  /** ERC-20 contract. */
  address: Address
  /** Name; `null` when the source does not say. */
  name: string | null
  /** Symbol; `null` when the source does not say. */
  symbol: string | null
  /** Decimals; `null` when the source does not say. */
  decimals: number | null
  /** Balance, in atomic units; never zero. */
  balance: bigint
  /** URL of the token's logo, when the source has one. */
  logo: string | null
  /** USD per whole token as the source quotes it, a decimal string; `null` when it quotes none. */
  usd: string | null
}

/** One NFT an address holds. */
export type Nft = {
  /** Collection contract. */
  contract: Address
  /** Token standard, as the source names it: `ERC-721`, `ERC-1155` or `ERC-404`. */
  standard: string
  /** Token id (uint256). */
  tokenId: bigint
  /** How many of it the address holds (1 for an ERC-721 token). */
  amount: bigint
  /** Name of the collection; `null` when the source does not say. */
  collectionName: string | null
  /** Symbol of the collection; `null` when the source does not say. */
  collectionSymbol: string | null
  /** The token's metadata URI; `null` when the source did not read it. */
  tokenUri: string | null
  /** The token's metadata document (its `name`, `description`, `image`, ...); `null` when the source did not read it. */
  metadata: Record<string, unknown> | null
  /** URL of the token's image, when the source gives one. */
  image: string | null
}

/** One page of a list, and where the next one starts. */
export type Page<item> = {
  /** The items, in the source's order. */
  items: item[]
  /** The source's cursor of the next page; `null` when this is the last. */
  next: string | null
}

/** One chain's holdings, from one source. */
export type Network = {
  /** Our name of the chain (`core/EvmChain.ts`), e.g. `base`. */
  chain: string
  /** EIP-155 chain id of the chain read. */
  chainId: number
  /** The chain's native coin. */
  native: Coin
  /** Name of the source, shown to callers: `blockscout` or `node`. */
  source: string
  /** The native balance of `address`, in atomic units, and the source's USD price of one coin (`null`: none). */
  balance: (address: Address) => Promise<Upstream.Outcome<{ balance: bigint; usd: string | null }>>
  /** One page of the ERC-20 tokens `address` holds, from `cursor` (a page's `next`; absent, the first page). */
  tokens: (address: Address, cursor?: string) => Promise<Upstream.Outcome<Page<Token>>>
  /** One page of the NFTs `address` holds, from `cursor` (a page's `next`; absent, the first page). */
  nfts: (address: Address, cursor?: string) => Promise<Upstream.Outcome<Page<Nft>>>
  /** Whether `cursor` has the form of this source's `next` (checked before payment). */
  isCursor: (cursor: string) => boolean
  /** Whether calls may start now (checked before payment). */
  available: () => Upstream.Availability
}

/** The holdings port: every chain an address's holdings are read on, in the order they are listed. */
export type Holdings = readonly Network[]

/** Decimals of a USD value: micro-dollars, USDC's atomic unit. */
export const usdDecimals = 6

/**
 * The USD value of `balance` atomic units of an asset with `decimals` at `usd` dollars per whole unit, in
 * micro-dollars, rounded down; `undefined` when `usd` is not a plain non-negative decimal.
 */
export function usdValue(parameters: usdValue.Parameters): bigint | undefined {
  const { balance, decimals, usd } = parameters
  const match = /^(\d{1,30})(?:\.(\d{1,60}))?$/.exec(usd)
  if (!match) return undefined
  const [, integer = '0', fraction = ''] = match
  const price = BigInt(`${integer}${fraction}`)
  return (balance * price * 10n ** BigInt(usdDecimals)) / 10n ** BigInt(decimals + fraction.length)
}

export declare namespace usdValue {
  type Parameters = {
    /** Atomic units held. */
    balance: bigint
    /** Decimals of the asset. */
    decimals: number
    /** USD per whole unit, a decimal string. */
    usd: string
  }
}
