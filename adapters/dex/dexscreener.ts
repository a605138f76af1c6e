import type * as Dex from '../../core/Dex.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** How long an answer is served again, in ms: the original gateway's 15 s. */
const cacheTtlMs = 15_000

/** DexScreener's published rate limit of its pair endpoints (search, pairs, tokens): 300 requests a minute. */
const pairsLimit = { capacity: 300, refill: 300, intervalMs: 60_000 }

/** DexScreener's published rate limit of its token-boost endpoints: 60 requests a minute. */
const boostsLimit = { capacity: 60, refill: 60, intervalMs: 60_000 }

/**
 * DexScreener's keyless public API: `GET /latest/dex/search?q=`, `GET /latest/dex/pairs/{chainId}/{pairId}` and `GET
 * /latest/dex/tokens/{tokenAddresses}` (each `{ schemaVersion, pairs: Pair[] | null }`), and `GET
 * /token-boosts/latest/v1` (the boosts, an array). Each kind of call keeps within DexScreener's own rate limit (300 a
 * minute for pairs, 60 for boosts) in this process and serves an answer again for 15 s.
 */
export function dexscreener(parameters: dexscreener.Parameters): Dex.Index {
  const { baseUrl = 'https://api.dexscreener.com', ...options } = parameters
  const declaration = { name: 'DexScreener', baseUrl, timeoutMs: 10_000, retries: 1, ...options }
  const pairs = vendor({
    id: 'dexscreener',
    rateLimit: pairsLimit,
    cache: { ttlMs: cacheTtlMs, maxEntries: 1_000 },
    ...declaration,
  })
  const boosts = vendor({
    id: 'dexscreener-boosts',
    rateLimit: boostsLimit,
    cache: { ttlMs: cacheTtlMs, maxEntries: 1 },
    ...declaration,
  })

  /** The pairs of a `{ pairs }` answer (`null` is none). */
  async function pairsAt(
    path: string,
    query?: Record<string, string>,
  ): Promise<Upstream.Outcome<{ pairs: Dex.Pair[] }>> {
    const outcome = await pairs.get(path, { ...(query ? { query } : {}), label: 'pairs' })
    if (!outcome.ok) return outcome
    const read = pairs.read(() => pairsOf(outcome.body), outcome.status)
    return Array.isArray(read) ? { ok: true, pairs: read } : read
  }

  return {
    source: 'dexscreener',
    search: (query) => pairsAt('/latest/dex/search', { q: query }),
    async pair({ chainId, pairAddress }) {
      const outcome = await pairsAt(
        `/latest/dex/pairs/${encodeURIComponent(chainId)}/${encodeURIComponent(pairAddress)}`,
      )
      return outcome.ok ? { ok: true, pair: outcome.pairs[0] ?? null } : outcome
    },
    tokenPairs: (addresses) => pairsAt(`/latest/dex/tokens/${addresses.map(encodeURIComponent).join(',')}`),
    async boosts() {
      const outcome = await boosts.get('/token-boosts/latest/v1', { label: 'token boosts' })
      if (!outcome.ok) return outcome
      const read = boosts.read(() => boostsOf(outcome.body), outcome.status)
      return Array.isArray(read) ? { ok: true, boosts: read } : read
    },
  }
}

export declare namespace dexscreener {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.dexscreener.com' */
    baseUrl?: string
  }
}

/** The pairs of an answer; `pairs: null` (nothing found) is none. */
function pairsOf(body: unknown): Dex.Pair[] {
  const list = fieldsOf(body).pairs
  if (list === null) return []
  if (!Array.isArray(list)) throw new UnreadableAnswerError('DexScreener answered without a pairs list')
  return list.map(pairOf)
}

function pairOf(value: unknown): Dex.Pair {
  const pair = fieldsOf(value)
  const liquidity = fieldsOf(pair.liquidity)
  return {
    chainId: required(pair.chainId, 'chainId'),
    dexId: required(pair.dexId, 'dexId'),
    url: text(pair.url),
    pairAddress: required(pair.pairAddress, 'pairAddress'),
    baseToken: tokenOf(pair.baseToken, 'baseToken'),
    quoteToken: tokenOf(pair.quoteToken, 'quoteToken'),
    priceNative: decimal(pair.priceNative),
    priceUsd: decimal(pair.priceUsd),
    txns: windows(pair.txns, (trades) => {
      const { buys, sells } = fieldsOf(trades)
      return typeof buys === 'number' && typeof sells === 'number' ? { buys, sells } : undefined
    }),
    volume: windows(pair.volume, figure),
    priceChange: windows(pair.priceChange, figure),
    liquidity:
      pair.liquidity === undefined || pair.liquidity === null
        ? null
        : {
            usd: figure(liquidity.usd) ?? null,
            base: figure(liquidity.base) ?? null,
            quote: figure(liquidity.quote) ?? null,
          },
    fdv: figure(pair.fdv) ?? null,
    marketCap: figure(pair.marketCap) ?? null,
    pairCreatedAt: figure(pair.pairCreatedAt) ?? null,
  }
}

function tokenOf(value: unknown, name: string): Dex.Token {
  const token = fieldsOf(value)
  return { address: required(token.address, `${name}.address`), name: text(token.name), symbol: text(token.symbol) }
}

/** The boosts of an answer: the documented array, or one boost alone. */
function boostsOf(body: unknown): Dex.Boost[] {
  const list = Array.isArray(body) ? body : [body]
  return list.map((value) => {
    const boost = fieldsOf(value)
    return {
      chainId: required(boost.chainId, 'chainId'),
      tokenAddress: required(boost.tokenAddress, 'tokenAddress'),
      url: text(boost.url),
      description: text(boost.description),
      amount: figure(boost.amount) ?? null,
      totalAmount: figure(boost.totalAmount) ?? null,
    }
  })
}

/** The entries of a by-window object (`{ h24: ..., h6: ... }`) that `read` reads; `null` when there is no object. */
function windows<value>(
  value: unknown,
  read: (entry: unknown) => value | undefined,
): Readonly<Record<string, value>> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const entries = Object.entries(value).flatMap(([window, entry]) => {
    const figures = read(entry)
    return figures === undefined ? [] : [[window, figures] as const]
  })
  return Object.fromEntries(entries)
}

function required(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new UnreadableAnswerError(`DexScreener answered without ${name}`)
  return value
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/** A published figure: a finite JSON number. */
function figure(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** A published price: its decimal text (DexScreener writes prices as strings). */
function decimal(value: unknown): string | null {
  if (typeof value === 'string' && /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(value)) return value
  return null
}
