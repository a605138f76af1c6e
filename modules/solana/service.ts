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
  feedIdPattern,
  maxFeeds,
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
  const quoted = answerOf(
    await aggregator.quote({
      inputMint: query.inputMint,
      outputMint: query.outputMint,
      amount: BigInt(query.amount),
      slippageBps: query.slippageBps === undefined ? undefined : Number(query.slippageBps),
    }),
    `${aggregator.name} has no route from ${query.inputMint} to ${query.outputMint} for ${query.amount}`,
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
    await aggregator.swap({ quoteResponse: body.quoteResponse, userPublicKey: body.userPublicKey }),
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

/** One page of the digital assets `owner` holds, as the index describes them (DAS asset objects). */
export async function assetsByOwner(deps: AssetDeps, query: AssetsQuery) {
  const page = answerOf(
    await deps.index.assetsByOwner({
      owner: query.owner,
      page: query.page === undefined ? 1 : Number(query.page),
      limit: query.limit === undefined ? defaultLimit : Number(query.limit),
    }),
    'assets',
  )
  return { owner: query.owner, total: page.total, page: page.page, limit: page.limit, items: page.items }
}

/** One digital asset by id, as the index describes it; an id the index does not know is a 404. */
export async function asset(deps: AssetDeps, query: AssetQuery) {
  const found = answerOf(await deps.index.asset(query.id), `No asset ${query.id}`)
  return { id: query.id, asset: found.asset }
}

/**
 * Refuses, before payment, a feed list that is too long, holds something that is not a feed id, or names a feed
 * twice. An absent or non-string list is left to the schema, which names it.
 */
export function preflightPrices(query: { feedIds?: unknown }): void {
  if (typeof query.feedIds !== 'string') return
  const ids = query.feedIds.split(',')
  if (ids.length > maxFeeds)
    throw new ValidationError({
      field: 'feedIds',
      message: `names ${ids.length} feeds; at most ${maxFeeds} per call (in query)`,
    })
  const pattern = new RegExp(feedIdPattern)
  const bad = ids.findIndex((id) => !pattern.test(id))
  if (bad !== -1)
    throw new ValidationError({
      field: 'feedIds',
      message: `entry ${bad + 1} is not a feed id: 0x and 64 hex digits (in query)`,
    })
  if (new Set(ids.map((id) => id.toLowerCase())).size !== ids.length)
    throw new ValidationError({ field: 'feedIds', message: 'names a feed more than once (in query)' })
}

/** The latest price of one Pyth feed. */
export async function price(deps: PriceDeps, query: PriceQuery) {
  const [update] = await latest(deps, [query.feedId])
  return update!
}

/** The latest prices of up to {@link maxFeeds} Pyth feeds, by feed id. */
export async function prices(deps: PriceDeps, query: PricesQuery) {
  const updates = await latest(deps, query.feedIds.split(','))
  return { count: updates.length, prices: Object.fromEntries(updates.map((update) => [update.feedId, update])) }
}

/**
 * The latest prices of `ids`: `price` and `confidence` as exact decimal strings, the feed's integer scaled by
 * `10^exponent` with bigint arithmetic (the spec's number fields, as strings so that no digit is lost), beside the
 * exponent, the publish time (ISO 8601) and the age in whole seconds.
 */
async function latest(deps: PriceDeps, ids: string[]) {
  const now = (deps.now ?? Date.now)()
  const read = answerOf(await deps.service.latest(ids.map((id) => id.toLowerCase())), 'Unknown price feed')
  return read.updates.map((update) => ({
    feedId: update.id,
    symbol: update.symbol ?? null,
    price: decimalOf(update.price, update.exponent),
    confidence: decimalOf(update.confidence, update.exponent),
    exponent: update.exponent,
    publishTime: new Date(update.publishTime * 1_000).toISOString(),
    ageSeconds: Math.max(0, Math.floor(now / 1_000) - update.publishTime),
  }))
}

/** `value × 10^exponent` as an exact decimal string. */
function decimalOf(value: bigint, exponent: number): string {
  return exponent >= 0 ? (value * 10n ** BigInt(exponent)).toString() : formatUnits(value, -exponent)
}
