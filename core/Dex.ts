import type { Outcome } from './Upstream.js'

/**
 * An index of decentralized-exchange trading pairs across chains (DexScreener) as a port: pairs found by text, one pair
 * by chain and address, every pair of a token, and the tokens promoted lately. Market figures (prices, volumes,
 * liquidity) are the index's own display figures, relayed as it publishes them: the gateway computes nothing with them
 * and moves no money by them.
 */

/** A token of a pair. */
export type Token = {
  /** Its address on the pair's chain, as the index writes it. */
  address: string
  /** Its name, or `null` when the index gives none. */
  name: string | null
  /** Its symbol, or `null` when the index gives none. */
  symbol: string | null
}

/** Buys and sells in one window. */
export type Trades = {
  /** Buy transactions. */
  buys: number
  /** Sell transactions. */
  sells: number
}

/** Liquidity of a pool. */
export type Liquidity = {
  /** In USD, a JSON number as the index publishes it; `null` when it cannot price the pool. */
  usd: number | null
  /** In base tokens (whole tokens), as published. */
  base: number | null
  /** In quote tokens (whole tokens), as published. */
  quote: number | null
}

/** One trading pair (a pool of one DEX). */
export type Pair = {
  /** The index's chain id, e.g. `base`, `ethereum`, `solana`. */
  chainId: string
  /** The index's DEX id, e.g. `uniswap`, `aerodrome`. */
  dexId: string
  /** The pair's page on the index, or `null`. */
  url: string | null
  /** The pool's address. */
  pairAddress: string
  /** The token priced. */
  baseToken: Token
  /** The token it is priced in. */
  quoteToken: Token
  /** Price of one base token in quote tokens, the decimal text the index publishes; `null` when it gives none. */
  priceNative: string | null
  /** Price of one base token in USD, the decimal text the index publishes; `null` when it cannot price it. */
  priceUsd: string | null
  /** Buys and sells by window (`m5`, `h1`, `h6`, `h24`), or `null`. */
  txns: Readonly<Record<string, Trades>> | null
  /** Traded volume in USD by window (`m5`, `h1`, `h6`, `h24`), JSON numbers as published, or `null`. */
  volume: Readonly<Record<string, number>> | null
  /** Price change in percent by window (`m5`, `h1`, `h6`, `h24`), as published, or `null`. */
  priceChange: Readonly<Record<string, number>> | null
  /** The pool's liquidity, or `null` when the index gives none. */
  liquidity: Liquidity | null
  /** Fully diluted valuation in USD, as published, or `null`. */
  fdv: number | null
  /** Market capitalization in USD, as published, or `null`. */
  marketCap: number | null
  /** When the pool was created, epoch ms, or `null`. */
  pairCreatedAt: number | null
}

/** A token promoted on the index (a boost its community paid for): what the original gateway calls trending. */
export type Boost = {
  /** The index's chain id. */
  chainId: string
  /** The token's address. */
  tokenAddress: string
  /** The token's page on the index, or `null`. */
  url: string | null
  /** The token's own description, or `null`. */
  description: string | null
  /** Boost units of this promotion, or `null`. */
  amount: number | null
  /** Boost units active on the token, or `null`. */
  totalAmount: number | null
}

/** An index of DEX pairs. */
export type Index = {
  /** Name of the index in answers, e.g. `dexscreener`. */
  source: string
  /** Pairs matching a text (a symbol, a name, an address, `SOL/USDC`), in the index's order. */
  search: (query: string) => Promise<Outcome<{ pairs: Pair[] }>>
  /** One pair by the index's chain id and the pool's address; `null` when the index has none. */
  pair: (parameters: {
    /** The index's chain id. */
    chainId: string
    /** The pool's address. */
    pairAddress: string
  }) => Promise<Outcome<{ pair: Pair | null }>>
  /** Every pair of the tokens at these addresses, on any chain. */
  tokenPairs: (addresses: readonly string[]) => Promise<Outcome<{ pairs: Pair[] }>>
  /** The tokens promoted most recently. */
  boosts: () => Promise<Outcome<{ boosts: Boost[] }>>
}
