import { type Address, formatUnits, parseUnits } from 'viem'
import { base as baseChain } from 'viem/chains'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { FxReference, Rates } from '../../core/FxReference.js'
import * as PriceFeeds from '../../core/PriceFeeds.js'
import type * as Rpc from '../../core/Rpc.js'
import * as TokenList from '../../core/TokenList.js'
import * as Uniswap from '../../core/Uniswap.js'

/** How long one reading of the feeds is served again, in ms. */
export const ttlMs = 60_000

/**
 * Fractional digits of every rate: a rate is the exact quotient of two feed answers truncated (toward zero) to this
 * many places, trailing zeros dropped.
 */
export const rateDecimals = 10

/** The currency every feed is quoted in. */
const usd = 'USD'

/** What the FX module needs from outside. */
export type Deps = {
  /** The fiat feeds (`EUR / USD`, ...), read at most once per {@link ttlMs}. */
  feeds: PriceFeeds.shared.ReturnType
  /** Published reference rates shown beside each rate; none, and rates come without a second opinion. */
  reference: FxReference | undefined
  /** The settlement chain, whose Uniswap v3 pools price the stablecoin bases; none, and those bases are a 503. */
  chain: Rpc.Endpoint | undefined
  /** Current time, epoch ms. */
  now: () => number
}

/** The module's dependencies. */
export function from(parameters: from.Parameters): Deps {
  const { feeds, reference, chain, now = Date.now } = parameters
  return { feeds: PriceFeeds.shared({ feeds, ttlMs, now }), reference, chain, now }
}

export declare namespace from {
  type Parameters = {
    /** The fiat USD feeds. */
    feeds: PriceFeeds.PriceFeeds
    /** Published reference rates, if any. */
    reference?: FxReference | undefined
    /** The settlement chain, if any. */
    chain?: Rpc.Endpoint | undefined
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}

/** Every currency the rates are of: USD and each feed's. */
export function currencies(deps: Deps): string[] {
  return [usd, ...deps.feeds.feeds.feeds.map((feed) => feed.symbol)]
}

/** A stablecoin of the original gateway's `oracle/fx` bases: its symbol, name and the currency it is pegged to. */
export type Stablecoin = {
  /** Symbol, as the original writes it. */
  symbol: string
  /** Name, as the original answers it. */
  name: string
  /** ISO 4217 code of the currency it tracks. */
  peg: string
}

/** The original gateway's stablecoins (src/routes/oracle.ts, category `stablecoin`), in its order; USDC is its default. */
export const stablecoins: readonly Stablecoin[] = [
  { symbol: 'USDC', name: 'USD Coin', peg: 'USD' },
  { symbol: 'USDT', name: 'Tether USD', peg: 'USD' },
  { symbol: 'DAI', name: 'Dai Stablecoin', peg: 'USD' },
  { symbol: 'EURC', name: 'Euro Coin', peg: 'EUR' },
  { symbol: 'USDbC', name: 'USD Base Coin', peg: 'USD' },
]

/** Whole units of the base every stablecoin rate is quoted for, as the original quotes (less price impact than 1). */
export const stablecoinQuoteUnits = 1000n

/** A stablecoin on the settlement chain: its contract, when it has one there. */
type Deployed = Stablecoin & { token: TokenList.Listed | undefined }

/** The stablecoins with their contracts on `chain`, from its listed tokens (USDbC from Uniswap's list on Base). */
function deployed(chain: Rpc.Endpoint): Deployed[] {
  return stablecoins.map((coin) => ({
    ...coin,
    token: TokenList.find({ name: 'base', chainId: chain.chainId, token: coin.symbol }),
  }))
}

/** What a `base` names: an ISO 4217 currency of the fiat feeds, or one of the original's stablecoins. */
export type Base = { kind: 'fiat'; code: string } | { kind: 'stablecoin'; coin: Deployed; token: TokenList.Listed }

/**
 * The base `base` names, any case: one of the original gateway's stablecoins (USDC when absent, as there), else a
 * currency with a feed (USD or a feed's). Another, or a stablecoin without a contract on the chain, is refused
 * naming `base`; a stablecoin with no chain configured is a 503: all before payment.
 */
export function baseOf(deps: Deps, base: string | undefined): Base {
  const code = (base ?? 'USDC').toUpperCase()
  const coin = stablecoins.find((candidate) => candidate.symbol.toUpperCase() === code)
  if (coin) {
    if (!deps.chain)
      throw new UpstreamUnavailableError(
        `No chain is configured to read the ${coin.symbol} pools from; give an ISO 4217 base for the fiat feeds. Nothing is charged.`,
      )
    const found = deployed(deps.chain).find((candidate) => candidate.symbol === coin.symbol)!
    if (!found.token)
      throw new ValidationError({
        field: 'base',
        message: `${coin.symbol} has no contract on this chain (chain id ${deps.chain.chainId})`,
      })
    return { kind: 'stablecoin', coin: found, token: found.token }
  }
  const known = currencies(deps)
  if (!known.includes(code))
    throw new ValidationError({
      field: 'base',
      message: `no rate feed for ${code}; the gateway has ${known.join(', ')}, and the stablecoins ${stablecoins.map((candidate) => candidate.symbol).join(', ')}`,
    })
  return { kind: 'fiat', code }
}

/** One feed a rate is computed from, with its round. */
export type Source = {
  /** Kind of source. */
  type: 'chainlink-aggregator-v3'
  /** EIP-155 chain id of the feed. */
  chainId: number
  /** Feed contract address. */
  feed: string
  /** The feed's `description()`, e.g. `EUR / USD`. */
  description: string
  /** Round read. */
  roundId: string
  /** The round's answer: USD per unit of the currency, decimal string. */
  usd: string
  /** When the round was updated (ISO 8601). */
  updatedAt: string
  /** Seconds since then. */
  ageSeconds: number
}

/** The reference source's rate for one currency. */
export type SecondOpinion = {
  /** Units of the currency per unit of the base, as published. */
  rate: string
  /** (reference - rate) / rate, in basis points, truncated to 2 decimals. */
  deviationBps: string
}

/** The rate of one currency against the base, or why there is none. */
export type Rate =
  | {
      /** ISO 4217 code. */
      currency: string
      /** A rate. */
      available: true
      /** Units of the currency per unit of the base, decimal string ({@link rateDecimals} places at most). */
      rate: string
      /** The feeds it is computed from (none for USD's own side). */
      sources: Source[]
      /** The reference source's rate and how far it is from this one; `null` without one. */
      secondOpinion: SecondOpinion | null
    }
  | {
      /** ISO 4217 code. */
      currency: string
      /** No rate. */
      available: false
      /** Why: a feed of the pair is `stale`, `invalid_answer` or `unreadable`. */
      reason: PriceFeeds.Refused['reason']
      /** One sentence. */
      message: string
    }

/** What the answer says of the reference source. */
export type Reference =
  | {
      /** Its rates are shown. */
      available: true
      /** Its name. */
      source: string
      /** Day its rates were published for (YYYY-MM-DD). */
      date: string
    }
  | {
      /** Its rates are not shown. */
      available: false
      /** Its name, when one is configured. */
      source: string | undefined
      /** One sentence. */
      message: string
    }

/**
 * The rate of every other currency against `base`, each from the two USD feeds (currency / USD and base / USD) as an
 * exact quotient; a refused feed makes its currency (or, for the base's, every currency) unavailable with the reason,
 * never the answer. Beside each rate, the reference source's and the deviation; the answer says when it has none.
 */
export async function rates(deps: Deps, base: string) {
  const { feeds } = deps.feeds
  const others = currencies(deps).filter((currency) => currency !== base)
  // Asked at once; it never throws: its failures are data.
  const opinion = secondOpinion(deps.reference, base, others)
  let snapshot: PriceFeeds.Served
  try {
    snapshot = await deps.feeds.read()
  } catch (error) {
    throw new UpstreamUnavailableError('The chain holding the FX feeds did not answer; nothing is charged.', {
      cause: error,
    })
  }
  const nowS = Math.floor(deps.now() / 1000)
  const sides = new Map<string, Side | PriceFeeds.Refused>([[usd, oneUsd]])
  for (const reading of snapshot.readings) {
    const judged = PriceFeeds.judge(reading, nowS)
    sides.set(reading.feed.symbol, judged.ok ? sideOf(judged, feeds.chainId) : judged)
  }
  const reference = await opinion
  const baseSide = sides.get(base)!
  const answer: Record<string, Rate> = {}
  for (const currency of others) {
    const side = sides.get(currency)!
    if ('reason' in side || 'reason' in baseSide) {
      // The currency's own feed first; the base's refusal concerns every currency.
      const { reason, message } = 'reason' in side ? side : (baseSide as PriceFeeds.Refused)
      answer[currency] = { currency, available: false, reason, message }
      continue
    }
    // base / USD over currency / USD, scaled by 10^rateDecimals: units of the currency per unit of the base.
    const scaled =
      (baseSide.answer * 10n ** BigInt(side.decimals + rateDecimals)) / (side.answer * 10n ** BigInt(baseSide.decimals))
    const published = reference.ok ? reference.rates.rates[currency] : undefined
    answer[currency] = {
      currency,
      available: true,
      rate: formatUnits(scaled, rateDecimals),
      sources: [...side.sources, ...baseSide.sources],
      secondOpinion:
        published === undefined ? null : { rate: published, deviationBps: deviationBps(scaled, published) },
    }
  }
  return {
    base,
    rates: answer,
    rateDecimals,
    secondOpinion: (reference.ok
      ? { available: true, source: reference.source, date: reference.rates.date }
      : { available: false, source: reference.source, message: reference.message }) satisfies Reference,
    cacheSeconds: ttlMs / 1000,
    cached: snapshot.cached,
    age: Math.max(0, Math.floor((deps.now() - snapshot.takenAt) / 1000)),
  }
}

/** USD as a feed answer would give it: exactly 1, from no feed. */
const oneUsd: Side = { answer: 1n, decimals: 0, sources: [] }

/** One side of a rate: a USD answer and the feeds it comes from. */
type Side = { answer: bigint; decimals: number; sources: Source[] }

function sideOf(judged: PriceFeeds.Usable, chainId: number): Side {
  const { feed, answer, decimals } = judged
  return {
    answer,
    decimals,
    sources: [
      {
        type: 'chainlink-aggregator-v3',
        chainId,
        feed: feed.address,
        description: feed.description,
        roundId: String(judged.roundId),
        usd: formatUnits(answer, decimals),
        updatedAt: new Date(judged.updatedAt * 1000).toISOString(),
        ageSeconds: judged.ageSeconds,
      },
    ],
  }
}

/** (reference - rate) / rate in basis points, truncated to 2 decimals; `rate` is scaled by 10^{@link rateDecimals}. */
function deviationBps(rate: bigint, reference: string): string {
  const published = parseUnits(reference, rateDecimals)
  return formatUnits(((published - rate) * 1_000_000n) / rate, 2)
}

/** What came of asking the reference source. */
type Opinion = { ok: true; source: string; rates: Rates } | { ok: false; source: string | undefined; message: string }

/** The reference rates of `symbols` against `base`, or why there are none; never throws for the source's failure. */
async function secondOpinion(
  reference: FxReference | undefined,
  base: string,
  symbols: readonly string[],
): Promise<Opinion> {
  if (!reference) return { ok: false, source: undefined, message: 'No reference-rate source is configured.' }
  const available = reference.available()
  if (!available.ok) return { ok: false, source: reference.name, message: available.reason }
  const outcome = await reference.latest(base, symbols)
  if (!outcome.ok) return { ok: false, source: reference.name, message: outcome.message }
  return { ok: true, source: reference.name, rates: outcome }
}

/** The original gateway's `status` of a stablecoin rate: its deviation from 1 over 1% is minor, over 5% a depeg. */
export type PegStatus = 'stable' | 'minor-deviation' | 'depeg-warning'

/**
 * The rate of every other stablecoin against a stablecoin `base`, as the original gateway answers it: QuoterV2's
 * output for {@link stablecoinQuoteUnits} whole units of the base on each direct Uniswap v3 pool of the pair, the fee
 * tier that gives the most winning (pool fee and price impact included). A pair with no pool, or a coin with no
 * contract on the chain, is answered unavailable with the reason, never a made-up rate. `rate` and `inverseRate` are
 * JSON numbers to 6 places as there, `rateDecimal` the exact quotient ({@link rateDecimals} places); `deviation` and
 * `status` judge the peg only between coins of one currency (EURC against a dollar coin is an exchange rate: `null`).
 */
export async function stablecoinRates(deps: Deps, base: Extract<Base, { kind: 'stablecoin' }>) {
  const chain = deps.chain!
  const deployment = Uniswap.of(chain.chainId)
  const amountIn = stablecoinQuoteUnits * 10n ** BigInt(base.token.decimals)
  const one = 10n ** BigInt(rateDecimals)
  const others = deployed(chain).filter((coin) => coin.symbol !== base.coin.symbol)
  const quotes = await Promise.all(
    others.map((coin) =>
      coin.token === undefined
        ? undefined
        : Uniswap.quote({
            chain,
            quoter: deployment.quoterV2,
            routes: Uniswap.routes({
              tokenIn: base.token.address,
              tokenOut: coin.token.address,
              weth: deployment.weth,
            }).filter((route) => route.fees.length === 1),
            amountIn,
          }),
    ),
  )
  const rates: Record<string, Record<string, unknown>> = {}
  for (const [index, coin] of others.entries()) {
    const quoted = quotes[index]
    const common = { symbol: coin.symbol, name: coin.name, address: (coin.token?.address ?? null) as Address | null }
    if (!coin.token || !quoted) {
      rates[coin.symbol] = {
        ...common,
        available: false,
        reason: coin.token ? 'no_pool' : 'not_deployed',
        message: coin.token
          ? `No Uniswap v3 pool of ${base.coin.symbol} and ${coin.symbol} on this chain quotes ${stablecoinQuoteUnits} ${base.coin.symbol} at any fee tier.`
          : `${coin.symbol} has no contract on this chain (chain id ${chain.chainId}).`,
        rate: null,
        inverseRate: null,
        deviation: null,
        status: null,
        feeTier: null,
      }
      continue
    }
    const { decimals } = coin.token
    // Units of the coin per unit of the base: amountOut / 10^decimals over amountIn / 10^baseDecimals.
    const scaled = (quoted.amountOut * one) / (stablecoinQuoteUnits * 10n ** BigInt(decimals))
    const inverse = (stablecoinQuoteUnits * 10n ** BigInt(decimals) * one) / quoted.amountOut
    const samePeg = coin.peg === base.coin.peg
    const distance = scaled > one ? scaled - one : one - scaled
    rates[coin.symbol] = {
      ...common,
      available: true,
      rate: toSixPlaces(scaled),
      rateDecimal: formatUnits(scaled, rateDecimals),
      inverseRate: toSixPlaces(inverse),
      deviation: samePeg ? percentOf(distance, one) : null,
      status: samePeg ? pegStatus(distance, one) : null,
      feeTier: quoted.route.fees[0]!,
      quote: {
        amountIn: stablecoinQuoteUnits.toString(),
        amountInRaw: amountIn.toString(),
        amountOut: formatUnits(quoted.amountOut, decimals),
        amountOutRaw: quoted.amountOut.toString(),
      },
      ...(samePeg
        ? {}
        : {
            note: `${coin.symbol} tracks ${coin.peg} and ${base.coin.symbol} ${base.coin.peg}: an exchange rate, not a peg to judge`,
          }),
    }
  }
  return {
    base: base.coin.symbol,
    rates,
    meta: {
      pairCount: Object.values(rates).filter((rate) => rate.available).length,
      source: 'uniswap-v3-onchain',
      chain: chain.chainId === baseChain.id ? 'Base' : chain.name,
      chainId: chain.chainId,
      quoter: deployment.quoterV2,
      note: `Rates are QuoterV2's output for ${stablecoinQuoteUnits} ${base.coin.symbol} on the pair's direct pools, fee and price impact included; larger trades may slip more.`,
    },
    rateDecimals,
    timestamp: new Date(deps.now()).toISOString(),
  }
}

/** A rate scaled by 10^{@link rateDecimals} as a JSON number rounded to 6 places, as the original answers it. */
function toSixPlaces(scaled: bigint): number {
  const step = 10n ** BigInt(rateDecimals - 6)
  return Number(formatUnits((scaled + step / 2n) / step, 6))
}

/** `distance` over `one` as a percent with the original's three places, truncated, e.g. `0.250%`. */
function percentOf(distance: bigint, one: bigint): string {
  const thousandths = (distance * 100_000n) / one
  return `${thousandths / 1000n}.${(thousandths % 1000n).toString().padStart(3, '0')}%`
}

/** The original's thresholds: more than 1% from the peg is a minor deviation, more than 5% a depeg warning. */
function pegStatus(distance: bigint, one: bigint): PegStatus {
  if (distance * 100n > 5n * one) return 'depeg-warning'
  if (distance * 100n > one) return 'minor-deviation'
  return 'stable'
}
