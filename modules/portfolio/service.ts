import { base64urlnopad } from '@scure/base'
import { type Address, getAddress } from 'viem'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Holdings from '../../core/Holdings.js'
import * as Module from '../../core/Module.js'
import type { Oracle } from '../../core/Oracle.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import { defaultPageSize, maxPageSize, type NftsQuery, type TokensQuery } from './schema.js'

/** What the portfolio endpoints need from outside. */
export type Deps = {
  /** Every chain served, in order. */
  holdings: Holdings.Holdings
  /** Our USD prices, for what the source does not price (the native coin and listed tokens); absent, none. */
  oracle?: Oracle | undefined
}

/** The two lists a page key pages through. */
type List = 'tokens' | 'nfts'

/** Where a page starts: the chain, the source's cursor on it (`null`: its first page), and items of that page skipped. */
type Position = { chain: string; cursor: string | null; skip: number }

/** Most items of one source page skipped by a page key (a source page is at most a few hundred). */
const maxSkip = 1_000

/**
 * The chains a call reads: every one served when `networks` is absent or `all`, else those it names (any spelling of
 * core/EvmChain.ts), in the order served. An unknown chain, one named twice, or one not served here is a 400 naming
 * `networks`.
 */
export function networksOf(deps: Deps, networks: string | undefined): Holdings.Network[] {
  if (networks === undefined || networks.trim() === '' || networks.trim().toLowerCase() === 'all')
    return [...deps.holdings]
  const fail = (message: string) => new ValidationError({ field: 'networks', message })
  const named = networks.split(',').map((spelling) => {
    const name = EvmChain.nameOf(spelling)
    if (name !== undefined) return name
    if (/solana/i.test(spelling))
      throw fail('Solana holdings are read by /api/v1/solana/assetindex/assets-by-owner, not here')
    throw fail(`"${spelling.trim()}" is not a chain; one of ${EvmChain.names.join(', ')} (or their Alchemy ids)`)
  })
  if (new Set(named).size !== named.length) throw fail('names a chain twice')
  for (const name of named)
    if (!deps.holdings.some((network) => network.chain === name))
      throw fail(`${name} is not served here: no indexer is configured for it (BLOCKSCOUT_URL_${name.toUpperCase()})`)
  return deps.holdings.filter((network) => named.includes(network.chain as EvmChain.Name))
}

/** The original gateway's (Alchemy's) id of a chain, e.g. `base-mainnet`. */
export function networkIdOf(chain: string): string {
  return Object.keys(EvmChain.aliases).find((alias) => alias.endsWith('-mainnet') && EvmChain.aliases[alias] === chain)!
}

/** `pageSize` read: 1 to {@link maxPageSize}; a 400 naming it otherwise. */
function pageSizeOf(pageSize: string | undefined): number {
  if (pageSize === undefined) return defaultPageSize
  const size = Number(pageSize)
  if (!Number.isInteger(size) || size < 1 || size > maxPageSize)
    throw new ValidationError({ field: 'pageSize', message: `must be 1 to ${maxPageSize}` })
  return size
}

/** A page key: the list it pages, and where the next page starts. */
function keyOf(list: List, position: Position): string {
  return base64urlnopad.encode(
    new TextEncoder().encode(JSON.stringify([list, position.chain, position.cursor, position.skip])),
  )
}

/**
 * Where a call starts: its `pageKey` read (a 400 naming it when it is not a key of this list on these networks), or
 * the first page of the first chain.
 */
function positionOf(networks: readonly Holdings.Network[], list: List, pageKey: string | undefined): Position {
  if (pageKey === undefined) return { chain: networks[0]!.chain, cursor: null, skip: 0 }
  let decoded: unknown
  try {
    decoded = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(pageKey)))
  } catch {
    decoded = undefined
  }
  const [kind, chain, cursor, skip] = Array.isArray(decoded) ? decoded : []
  const network = networks.find((candidate) => candidate.chain === chain)
  const valid =
    decoded !== undefined &&
    (decoded as unknown[]).length === 4 &&
    kind === list &&
    network !== undefined &&
    (cursor === null || (typeof cursor === 'string' && network.isCursor(cursor))) &&
    Number.isInteger(skip) &&
    skip >= 0 &&
    skip <= maxSkip
  if (!valid)
    throw new ValidationError({
      field: 'pageKey',
      message: `is not a page_key of ${list} on these networks: pass the page_key answered, with the same networks`,
    })
  return { chain: chain as string, cursor: cursor as string | null, skip: skip as number }
}

/**
 * Checked before payment, on the query as it arrives (a member that is not one string is left to the schema): the
 * networks, page size and page key read, and at least one chain of it taking calls (a 503 otherwise, nothing charged).
 */
export function preflight(deps: Deps, list: List, query: Record<string, unknown>): void {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined)
  const networks = networksOf(deps, text('networks'))
  pageSizeOf(text('pageSize'))
  positionOf(networks, list, text('pageKey'))
  if (list === 'tokens' && text('includeNative') === 'false' && text('includeErc20') === 'false')
    throw new ValidationError({
      field: 'includeErc20',
      message: 'with includeNative=false too, nothing is left to list',
    })
  const reasons = networks.map((network) => Module.reasonOf(network.available()))
  if (reasons.every((reason) => reason !== undefined))
    throw new UpstreamUnavailableError(`No chain asked can be read now: ${reasons.join('; ')} Nothing is charged.`)
}

/** Why the family cannot take calls now: every chain served refuses calls (breakers, rate limits). */
export function readiness(deps: Deps): string | undefined {
  const reasons = deps.holdings.map((network) => Module.reasonOf(network.available()))
  if (reasons.length === 0) return 'no chain is served (BLOCKSCOUT_URL_<CHAIN>).'
  return reasons.every((reason) => reason !== undefined) ? reasons[0] : undefined
}

/** Items read on one chain, with the chain. */
type Located<item> = { network: Holdings.Network; item: item }

/** One page gathered across chains: its items, the next page's start, and the chains that failed. */
type Gathered<item> = {
  items: Located<item>[]
  next: Position | null
  unavailable: { network: Holdings.Network; failure: Upstream.Failure }[]
}

/**
 * Up to `pageSize` items from `start` on, chain after chain: each source page read once (`read`), its first `skip`
 * items passed over; a page left half-read is resumed by the next key. A chain that fails is listed and passed over;
 * when no chain answered at all, its failure is the call's (a 502, 503 or 504: nothing charged).
 */
async function gather<item>(parameters: {
  networks: readonly Holdings.Network[]
  start: Position
  pageSize: number
  read: (network: Holdings.Network, cursor: string | undefined) => Promise<Upstream.Outcome<Holdings.Page<item>>>
}): Promise<Gathered<item>> {
  const { networks, start, pageSize, read } = parameters
  const items: Located<item>[] = []
  const unavailable: Gathered<item>['unavailable'] = []
  let index = networks.findIndex((network) => network.chain === start.chain)
  let cursor = start.cursor
  let skip = start.skip
  let answered = false
  while (items.length < pageSize && index < networks.length) {
    const network = networks[index]!
    const page = await read(network, cursor ?? undefined)
    if (!page.ok) {
      unavailable.push({ network, failure: page })
      ;[index, cursor, skip] = [index + 1, null, 0]
      continue
    }
    answered = true
    const taken = page.items.slice(skip, skip + pageSize - items.length)
    items.push(...taken.map((item) => ({ network, item })))
    if (skip + taken.length < page.items.length) {
      skip += taken.length
      break
    }
    ;[index, cursor, skip] = page.next === null ? [index + 1, null, 0] : [index, page.next, 0]
  }
  if (!answered && unavailable.length > 0) throw Upstream.toError(unavailable[0]!.failure)
  return {
    items,
    next: index < networks.length ? { chain: networks[index]!.chain, cursor, skip } : null,
    unavailable,
  }
}

/** What both answers say of the read: the wallet, the chains, the next key, the sources and the chains not read. */
function readOf<item>(address: Address, networks: readonly Holdings.Network[], list: List, gathered: Gathered<item>) {
  return {
    address,
    networks: networks.map((network) => networkIdOf(network.chain)),
    chains: networks.map((network) => network.chain),
    page_key: gathered.next ? keyOf(list, gathered.next) : null,
    sources: Object.fromEntries(networks.map((network) => [network.chain, network.source])),
    unavailable: gathered.unavailable.map(({ network, failure }) => ({
      network: networkIdOf(network.chain),
      chain: network.chain,
      reason: failure.message,
    })),
  }
}

/** Where an item was read, as both answers give it. */
function locationOf(network: Holdings.Network, address: Address) {
  return { network: networkIdOf(network.chain), chain: network.chain, chainId: network.chainId, address }
}

/** A fungible item of one chain: its native coin or one of its tokens. */
type Fungible = { native: true; balance: bigint; usd: string | null } | ({ native: false } & Holdings.Token)

/** A USD price and who gave it. */
type Priced = { value: string; source: string; lastUpdatedAt: string | null }

/**
 * The price of a fungible item: the source's own quote, else ours (the oracle) for the native coin and the chain's
 * listed tokens by address (never by a symbol alone, which any token may claim); `undefined` when none prices it.
 */
async function priceOf(
  deps: Deps,
  network: Holdings.Network,
  item: Fungible,
  asked: Map<string, Promise<Priced | undefined>>,
): Promise<Priced | undefined> {
  if (item.usd !== null) return { value: item.usd, source: network.source, lastUpdatedAt: null }
  const symbol = item.native
    ? network.native.symbol
    : TokenList.of(network.chain, network.chainId).find(
        (listed) => listed.address.toLowerCase() === item.address.toLowerCase(),
      )?.symbol
  if (!deps.oracle || symbol === undefined) return undefined
  let price = asked.get(symbol)
  if (!price) {
    price = deps.oracle
      .usdPrice(symbol)
      .then((quote) =>
        quote.ok
          ? { value: quote.usd, source: quote.source, lastUpdatedAt: quote.observedAt.toISOString() }
          : undefined,
      )
    asked.set(symbol, price)
  }
  return price
}

/**
 * `GET /api/v1/portfolio/tokens`: the native coin and ERC-20 tokens `address` holds on each chain asked, a page at a
 * time, each priced where a source quotes it, in the original gateway's (Alchemy's) fields with RAW and HUMAN balances.
 */
export async function tokens(deps: Deps, query: TokensQuery) {
  const address = getAddress(query.address)
  const networks = networksOf(deps, query.networks)
  const includeNative = query.includeNative !== 'false'
  const includeErc20 = query.includeErc20 !== 'false'
  const includePrices = query.includePrices !== 'false'
  const gathered = await gather<Fungible>({
    networks,
    start: positionOf(networks, 'tokens', query.pageKey),
    pageSize: pageSizeOf(query.pageSize),
    async read(network, cursor) {
      const first = cursor === undefined
      const [coin, listed] = await Promise.all([
        first && includeNative ? network.balance(address) : undefined,
        includeErc20 ? network.tokens(address, cursor) : undefined,
      ])
      if (coin && !coin.ok) return coin
      if (listed && !listed.ok) return listed
      const items: Fungible[] = [
        ...(coin ? [{ native: true as const, balance: coin.balance, usd: coin.usd }] : []),
        ...(listed ? listed.items.map((token) => ({ native: false as const, ...token })) : []),
      ]
      return { ok: true, items, next: listed?.next ?? null }
    },
  })
  const asked = new Map<string, Promise<Priced | undefined>>()
  let total = 0n
  const rows = await Promise.all(
    gathered.items.map(async ({ network, item }) => {
      const decimals = item.native ? network.native.decimals : item.decimals
      const price = includePrices ? await priceOf(deps, network, item, asked) : undefined
      const value =
        price && decimals !== null
          ? Holdings.usdValue({ balance: item.balance, decimals, usd: price.value })
          : undefined
      if (value !== undefined) total += value
      return {
        ...locationOf(network, address),
        tokenAddress: item.native ? null : item.address,
        tokenBalance: item.balance.toString(),
        balance: decimals === null ? null : Units.toDecimal(item.balance, decimals),
        tokenMetadata: item.native
          ? { name: network.native.name, symbol: network.native.symbol, decimals, logo: null }
          : { name: item.name, symbol: item.symbol, decimals, logo: item.logo },
        tokenPrices: price ? [{ currency: 'usd' as const, ...price }] : [],
        valueUsd: value === undefined ? null : Units.toDecimal(value, Holdings.usdDecimals),
      }
    }),
  )
  return {
    ...readOf(address, networks, 'tokens', gathered),
    token_count: rows.length,
    total_usd_value: Units.toDecimal(total, Holdings.usdDecimals),
    tokens: rows,
  }
}

/**
 * `GET /api/v1/portfolio/nfts`: the NFTs `address` holds on each chain asked, a page at a time, in the original
 * gateway's (Alchemy's) fields; `withMetadata=false` leaves out what each token's metadata says.
 */
export async function nfts(deps: Deps, query: NftsQuery) {
  const address = getAddress(query.address)
  const networks = networksOf(deps, query.networks)
  const withMetadata = query.withMetadata !== 'false'
  const start = positionOf(networks, 'nfts', query.pageKey)
  const gathered = await gather<Holdings.Nft>({
    networks,
    start,
    pageSize: pageSizeOf(query.pageSize),
    read: (network, cursor) => network.nfts(address, cursor),
  })
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null)
  const rows = gathered.items.map(({ network, item }) => {
    const image = text(item.image) ?? text(item.metadata?.image)
    return {
      ...locationOf(network, address),
      contract: {
        address: item.contract,
        name: item.collectionName,
        symbol: item.collectionSymbol,
        tokenType: item.standard,
      },
      tokenId: item.tokenId.toString(),
      tokenType: item.standard,
      balance: item.amount.toString(),
      name: withMetadata ? text(item.metadata?.name) : null,
      description: withMetadata ? text(item.metadata?.description) : null,
      image: withMetadata && image !== null ? { originalUrl: image } : null,
      tokenUri: item.tokenUri,
      raw: withMetadata ? { tokenUri: item.tokenUri, metadata: item.metadata } : null,
    }
  })
  const whole = query.pageKey === undefined && gathered.next === null && gathered.unavailable.length === 0
  return {
    ...readOf(address, networks, 'nfts', gathered),
    total_count: whole ? rows.length : null,
    returned_count: rows.length,
    nfts: rows,
  }
}
