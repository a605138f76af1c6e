import { formatUnits, parseUnits } from 'viem'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { FxReference, Rates } from '../../core/FxReference.js'
import * as PriceFeeds from '../../core/PriceFeeds.js'

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
  /** Current time, epoch ms. */
  now: () => number
}

/** The module's dependencies. */
export function from(parameters: from.Parameters): Deps {
  const { feeds, reference, now = Date.now } = parameters
  return { feeds: PriceFeeds.shared({ feeds, ttlMs, now }), reference, now }
}

export declare namespace from {
  type Parameters = {
    /** The fiat USD feeds. */
    feeds: PriceFeeds.PriceFeeds
    /** Published reference rates, if any. */
    reference?: FxReference | undefined
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}

/** Every currency the rates are of: USD and each feed's. */
export function currencies(deps: Deps): string[] {
  return [usd, ...deps.feeds.feeds.feeds.map((feed) => feed.symbol)]
}

/** The base currency `base` names (any case), USD when absent; one without a feed is refused, naming `base`. */
export function baseOf(deps: Deps, base: string | undefined): string {
  if (base === undefined) return usd
  const code = base.toUpperCase()
  const known = currencies(deps)
  if (!known.includes(code))
    throw new ValidationError({
      field: 'base',
      message: `no rate feed for ${code}; the gateway has ${known.join(', ')}`,
    })
  return code
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
