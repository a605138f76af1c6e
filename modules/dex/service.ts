import type * as Dex from '../../core/Dex.js'
import { NotFoundError } from '../../core/Errors.js'
import * as Upstream from '../../core/Upstream.js'
import type { PairParams, SearchQuery, TokenParams } from './schema.js'

/** What the dex family needs: an index of DEX pairs. */
export type Deps = {
  /** DexScreener, or another index behind the same port. */
  index: Dex.Index
}

/** Most pairs or tokens one answer lists, as the original gateway lists them. */
export const maxListed = 20

/** `GET /free/dex/search`: the first pairs matching `q`, in the original gateway's fields. */
export async function search(deps: Deps, input: SearchQuery) {
  const pairs = Upstream.toValue(await deps.index.search(input.q.trim())).pairs
  return {
    source: deps.index.source,
    query: input.q,
    pairs: pairs.slice(0, maxListed).map((pair) => ({
      chain: pair.chainId,
      dex: pair.dexId,
      baseToken: { symbol: pair.baseToken.symbol, name: pair.baseToken.name, address: pair.baseToken.address },
      quoteToken: { symbol: pair.quoteToken.symbol, name: pair.quoteToken.name },
      priceUsd: pair.priceUsd,
      priceNative: pair.priceNative,
      volume24h: pair.volume?.h24 ?? null,
      priceChange24h: pair.priceChange?.h24 ?? null,
      liquidity: pair.liquidity?.usd ?? null,
      fdv: pair.fdv,
      pairAddress: pair.pairAddress,
      url: pair.url,
    })),
  }
}

/** `GET /free/dex/pairs/:chain/:pair`: one pair in detail; a pair the index does not know is a 404. */
export async function pair(deps: Deps, input: PairParams) {
  const chainId = input.chain.toLowerCase()
  const found = Upstream.toValue(await deps.index.pair({ chainId, pairAddress: input.pair })).pair
  if (!found) throw new NotFoundError(`${deps.index.source} lists no pair ${input.pair} on ${chainId}.`)
  return {
    source: deps.index.source,
    chain: found.chainId,
    dex: found.dexId,
    baseToken: found.baseToken,
    quoteToken: found.quoteToken,
    priceUsd: found.priceUsd,
    priceNative: found.priceNative,
    volume: found.volume,
    priceChange: found.priceChange,
    liquidity: found.liquidity,
    fdv: found.fdv,
    marketCap: found.marketCap,
    txns: found.txns,
    pairCreatedAt: found.pairCreatedAt,
    pairAddress: found.pairAddress,
    url: found.url,
  }
}

/** `GET /free/dex/tokens/:address`: the pairs of a token (or of up to 30), how many, and the first of them. */
export async function tokens(deps: Deps, input: TokenParams) {
  const pairs = Upstream.toValue(await deps.index.tokenPairs(input.address.split(','))).pairs
  return {
    source: deps.index.source,
    token: input.address,
    pairCount: pairs.length,
    pairs: pairs.slice(0, maxListed).map((pair) => ({
      chain: pair.chainId,
      dex: pair.dexId,
      baseToken: pair.baseToken.symbol,
      quoteToken: pair.quoteToken.symbol,
      priceUsd: pair.priceUsd,
      volume24h: pair.volume?.h24 ?? null,
      liquidity: pair.liquidity?.usd ?? null,
      pairAddress: pair.pairAddress,
    })),
  }
}

/**
 * `GET /free/dex/trending`: the tokens boosted most recently (paid promotions), as the original gateway answers
 * trending. A boost carries no symbol, so `symbol` is `null` where the original showed the address cut short.
 */
export async function trending(deps: Deps) {
  const boosts = Upstream.toValue(await deps.index.boosts()).boosts
  return {
    source: deps.index.source,
    trending: boosts.slice(0, maxListed).map((boost) => ({
      chain: boost.chainId,
      tokenAddress: boost.tokenAddress,
      symbol: null,
      description: boost.description,
      url: boost.url,
      amount: boost.amount,
      totalAmount: boost.totalAmount,
    })),
  }
}
