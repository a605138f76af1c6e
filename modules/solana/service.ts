import {
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type ReadonlyUint8Array,
} from '@solana/kit'
import { formatUnits } from 'viem'
import { NoRouteError, NotFoundError, UpstreamFailedError, ValidationError } from '../../core/Errors.js'
import type * as Solana from '../../core/Solana.js'
import * as Upstream from '../../core/Upstream.js'
import {
  type AssetQuery,
  type AssetsQuery,
  feedIdOf,
  feedIdsBySymbol,
  maxFeeds,
  mintOf,
  type PriceQuery,
  type PricesQuery,
  type QuoteQuery,
  type SwapBody,
} from './schema.js'

/** What the aggregator endpoints need. */
export type SwapDeps = {
  /** The swap aggregator. */
  aggregator: Solana.Aggregator
  /** A Solana node, for the decimals of the quoted mints. */
  mints: Solana.Mints
}

/** What the asset-index endpoints need. */
export type AssetDeps = {
  /** The Digital Asset Standard index. */
  index: Solana.AssetIndex
}

/** What the price-feed endpoints need. */
export type PriceDeps = {
  /** The Pyth price service. */
  service: Solana.PriceService
  /** Current time, epoch ms (the age of a price). @default Date.now */
  now?: () => number
}

/** Assets a page of `assets-by-owner` holds when the caller names no limit. */
const defaultLimit = 100

/**
 * The value of a port's answer, or the error its failure or refusal stands for (a handler that throws charges
 * nothing): a missing thing is `missing` (404 `not_found` unless said otherwise).
 */
function answerOf<value extends { ok: true }>(
  answer: value | Solana.Missing | Upstream.Failure,
  what: string,
  missing: typeof NotFoundError | typeof NoRouteError = NotFoundError,
): value {
  if (answer.ok) return answer
  if (Upstream.isFailure(answer)) throw Upstream.toError(answer)
  throw new missing(`${what}: ${answer.message}`)
}

/**
 * The best route for selling exactly `amount` of `inputMint` for `outputMint`, amounts in base units as decimal
 * strings, with the aggregator's answer whole in `quoteResponse` (pass it to `swap-tx` unchanged). Beside each raw
 * amount `x` is `xFormatted`, the same amount in whole tokens, exact, from each mint's decimals as the Solana node
 * reads them (`decimals`, by mint); when one mint's decimals cannot be read, every formatted amount is `null` and
 * `formatting` says why, and the quote is answered all the same. A pair with no route is a 422 `no_route`, as swap
 * and bridge quotes answer it, and nothing is charged for it.
 */
export async function quote(deps: SwapDeps, query: QuoteQuery) {
  const { aggregator } = deps
  const inputMint = mintOf(query.inputMint)
  const outputMint = mintOf(query.outputMint)
  const quoted = answerOf(
    await aggregator.quote({
      inputMint,
      outputMint,
      amount: BigInt(query.amount),
      slippageBps: query.slippageBps === undefined ? undefined : Number(query.slippageBps),
    }),
    `${aggregator.name} has no route from ${inputMint} to ${outputMint} for ${query.amount}`,
    NoRouteError,
  )
  const read = await decimalsOf(deps.mints, quoted)
  const decimals = read.ok ? read.decimals : undefined
  const formatted = (amount: bigint, mint: string) =>
    decimals === undefined ? null : formatUnits(amount, decimals.get(mint)!)
  return {
    aggregator: aggregator.name,
    inputMint: quoted.inputMint,
    outputMint: quoted.outputMint,
    inAmount: quoted.inAmount.toString(),
    inAmountFormatted: formatted(quoted.inAmount, quoted.inputMint),
    outAmount: quoted.outAmount.toString(),
    outAmountFormatted: formatted(quoted.outAmount, quoted.outputMint),
    otherAmountThreshold: quoted.otherAmountThreshold.toString(),
    otherAmountThresholdFormatted: formatted(quoted.otherAmountThreshold, quoted.outputMint),
    swapMode: quoted.swapMode,
    slippageBps: quoted.slippageBps,
    priceImpactPct: quoted.priceImpactPct,
    routeHops: quoted.route.length,
    route: quoted.route.map((hop) => ({
      pool: hop.pool,
      venue: hop.venue,
      inputMint: hop.inputMint,
      outputMint: hop.outputMint,
      inAmount: hop.inAmount.toString(),
      inAmountFormatted: formatted(hop.inAmount, hop.inputMint),
      outAmount: hop.outAmount.toString(),
      outAmountFormatted: formatted(hop.outAmount, hop.outputMint),
      percent: hop.percent,
    })),
    decimals: decimals === undefined ? null : Object.fromEntries(decimals),
    formatting: read.ok ? { available: true, reason: null } : { available: false, reason: read.reason },
    quoteResponse: quoted.quoteResponse,
    raw: quoted.quoteResponse,
  }
}

/**
 * The decimals of every mint a quote names (sold, bought, and those of each leg), each read once; when one cannot be
 * read, why not, as a sentence naming the mint. Never a guess: a mint without decimals leaves the quote unformatted.
 */
async function decimalsOf(
  mints: Solana.Mints,
  quoted: Solana.Quote,
): Promise<{ ok: true; decimals: Map<string, number> } | { ok: false; reason: string }> {
  const named = [quoted.inputMint, quoted.outputMint, ...quoted.route.flatMap((hop) => [hop.inputMint, hop.outputMint])]
  const unique = [...new Set(named)]
  const answers = await Promise.all(unique.map((mint) => mints.decimals(mint)))
  const decimals = new Map<string, number>()
  for (const [index, answer] of answers.entries()) {
    const mint = unique[index]!
    if (!answer.ok) return { ok: false, reason: `The decimals of ${mint} could not be read: ${answer.message}` }
    decimals.set(mint, answer.decimals)
  }
  return { ok: true, decimals }
}

/**
 * The unsigned swap transaction of a quote, exactly as the aggregator built it (base64 of a versioned transaction),
 * for `userPublicKey` to sign and send. It is checked first: a transaction that does not decode as a versioned
 * transaction, or whose fee payer is anyone but `userPublicKey`, is never passed on (a 502, nothing charged).
 */
export async function swap(deps: SwapDeps, body: SwapBody) {
  const { aggregator } = deps
  const built = answerOf(
    await aggregator.swap({
      quoteResponse: body.quoteResponse,
      userPublicKey: body.userPublicKey,
      wrapAndUnwrapSol: body.wrapAndUnwrapSol,
      prioritizationFeeLamports: body.prioritizationFeeLamports,
    }),
    'swap',
  )
  const checked = feePayerOf(built.swapTransaction)
  if (!checked.ok)
    throw new UpstreamFailedError(`${aggregator.name} answered a swap transaction that ${checked.reason}.`)
  if (checked.feePayer !== body.userPublicKey)
    throw new UpstreamFailedError(
      `${aggregator.name} answered a swap transaction whose fee payer is ${checked.feePayer}, not userPublicKey ${body.userPublicKey}.`,
    )
  return {
    swapTransaction: built.swapTransaction,
    lastValidBlockHeight: built.lastValidBlockHeight,
    feePayer: checked.feePayer,
    prioritizationFeeLamports: built.prioritizationFeeLamports,
    computeUnitLimit: built.computeUnitLimit,
  }
}

/**
 * The fee payer of a base64 wire transaction: the first static account of its compiled message. Only a versioned
 * (v0) transaction whose bytes decode exactly, nothing left over, has one; otherwise why not, as a clause.
 */
export function feePayerOf(base64: string): { ok: true; feePayer: string } | { ok: false; reason: string } {
  let bytes: ReadonlyUint8Array
  try {
    bytes = getBase64Encoder().encode(base64)
  } catch {
    return { ok: false, reason: 'is not base64' }
  }
  try {
    // The transaction's message is the rest of the bytes after the signatures: what the message does not read is extra.
    const { messageBytes } = getTransactionDecoder().decode(bytes)
    const [message, end] = getCompiledTransactionMessageDecoder().read(messageBytes, 0)
    if (end !== messageBytes.length)
      return { ok: false, reason: `has ${messageBytes.length - end} bytes after the transaction` }
    if (message.version === 'legacy') return { ok: false, reason: 'is a legacy transaction, not a versioned one' }
    const feePayer = message.staticAccounts[0]
    if (feePayer === undefined) return { ok: false, reason: 'has no accounts' }
    return { ok: true, feePayer }
  } catch {
    return { ok: false, reason: 'does not decode as a Solana transaction' }
  }
}

/**
 * One page of the digital assets `owner` holds, as the index describes them (DAS asset objects), fungible tokens
 * and the owner's SOL (`nativeBalance`, lamports) included unless asked not to, as the original gateway lists them.
 */
export async function assetsByOwner(deps: AssetDeps, query: AssetsQuery) {
  const page = answerOf(
    await deps.index.assetsByOwner({
      owner: query.owner,
      page: query.page === undefined ? 1 : Number(query.page),
      limit: query.limit === undefined ? defaultLimit : Number(query.limit),
      showFungible: query.showFungible !== 'false',
      showNativeBalance: query.showNativeBalance !== 'false',
    }),
    'assets',
  )
  return {
    owner: query.owner,
    total: page.total,
    page: page.page,
    limit: page.limit,
    itemCount: page.items.length,
    nativeBalance: page.nativeBalance ?? null,
    items: page.items,
  }
}

/** One digital asset by id, as the index describes it; an id the index does not know is a 404. */
export async function asset(deps: AssetDeps, query: AssetQuery) {
  const found = answerOf(await deps.index.asset(query.id), `No asset ${query.id}`)
  return { id: query.id, asset: found.asset }
}

/** The entries of a feed list as the original gateway reads it: split on commas, trimmed, empty ones dropped. */
function entriesOf(feedIds: string): string[] {
  return feedIds
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
}

/**
 * Refuses, before payment, a feed list that is too long, holds no feed (a symbol or a hex id), or names a feed twice;
 * entries that are neither a symbol nor a feed id are answered in `invalid`. An absent or non-string list is left to
 * the schema, which names it.
 */
export function preflightPrices(query: { feedIds?: unknown }): void {
  if (typeof query.feedIds !== 'string') return
  const entries = entriesOf(query.feedIds)
  if (entries.length > maxFeeds)
    throw new ValidationError({
      field: 'feedIds',
      message: `names ${entries.length} feeds; at most ${maxFeeds} per call (in query)`,
    })
  const ids = entries.map(feedIdOf).filter((id) => id !== undefined)
  if (ids.length === 0)
    throw new ValidationError({
      field: 'feedIds',
      message: 'names no feed: a symbol (SOL, BTC, ETH, ...) or 64 hex digits, with or without 0x (in query)',
    })
  if (new Set(ids).size !== ids.length)
    throw new ValidationError({ field: 'feedIds', message: 'names a feed more than once (in query)' })
}

/** The latest price of one Pyth feed, under the symbol asked for (upper-cased) as the original gateway answers it. */
export async function price(deps: PriceDeps, query: PriceQuery) {
  const [update] = await latest(deps, [feedIdOf(query.feedId)!])
  return { symbol: query.feedId.toUpperCase(), ...update! }
}

/**
 * The latest prices of up to {@link maxFeeds} Pyth feeds: a symbol's under the symbol (upper-cased, as the original
 * gateway keys them), a hex id's under its feed id (`0x`, lower case); entries that are neither are listed in
 * `invalid` and not priced.
 */
export async function prices(deps: PriceDeps, query: PricesQuery) {
  const entries = entriesOf(query.feedIds)
  const valid = entries.flatMap((entry) => {
    const id = feedIdOf(entry)
    if (id === undefined) return []
    return [{ id, key: feedIdsBySymbol[entry.toUpperCase()] === undefined ? id : entry.toUpperCase() }]
  })
  const updates = await latest(
    deps,
    valid.map((entry) => entry.id),
  )
  return {
    count: updates.length,
    invalid: entries.filter((entry) => feedIdOf(entry) === undefined),
    prices: Object.fromEntries(updates.map((update, index) => [valid[index]!.key, update])),
  }
}

/**
 * The latest prices of `ids`, as the original gateway answers them: `price`, `confidence` and `emaPrice` as JSON
 * numbers with the exponent applied, `raw` (the feed's integer), `expo`, `publishTime` (unix seconds) and
 * `publishTimeIso`; beside them ours, exact: `priceDecimal` and `confidenceDecimal` (decimal strings, bigint
 * arithmetic), `exponent`, the feed's own symbol (`feedSymbol`, e.g. `Crypto.SOL/USD`) and the age in whole seconds.
 */
async function latest(deps: PriceDeps, ids: string[]) {
  const now = (deps.now ?? Date.now)()
  const read = answerOf(await deps.service.latest(ids), 'Unknown price feed')
  return read.updates.map((update) => {
    const price = decimalOf(update.price, update.exponent)
    const confidence = decimalOf(update.confidence, update.exponent)
    return {
      feedId: update.id,
      feedSymbol: update.symbol ?? null,
      price: Number(price),
      confidence: Number(confidence),
      raw: update.price.toString(),
      expo: update.exponent,
      publishTime: update.publishTime,
      publishTimeIso: new Date(update.publishTime * 1_000).toISOString(),
      emaPrice: Number(decimalOf(update.emaPrice, update.emaExponent)),
      priceDecimal: price,
      confidenceDecimal: confidence,
      exponent: update.exponent,
      ageSeconds: Math.max(0, Math.floor(now / 1_000) - update.publishTime),
    }
  })
}
/** `value × 10^exponent` as an exact decimal string. */
function decimalOf(value: bigint, exponent: number): string {
  return exponent >= 0 ? (value * 10n ** BigInt(exponent)).toString() : formatUnits(value, -exponent)
}
