import type { Address } from 'viem'
import * as Cache from './Cache.js'

/** One AggregatorV3-compatible USD feed the gateway reads. */
export type Feed = {
  /** Token the feed prices, e.g. `ETH`. */
  symbol: string
  /** What the feed's `description()` must answer, e.g. `ETH / USD`. */
  description: string
  /** Feed contract address. */
  address: Address
  /** Longest time, in seconds, between two updates of a live feed; a round older than this is stale. */
  heartbeatS: number
}

/** The latest round of one feed, or why it could not be read. */
export type Reading =
  | {
      /** The feed read. */
      feed: Feed
      /** Read. */
      ok: true
      /** Round id. */
      roundId: bigint
      /** Answer in units of 10^-decimals USD. */
      answer: bigint
      /** Decimals of the answer. */
      decimals: number
      /** When the round was updated, seconds since the Unix epoch. */
      updatedAt: number
    }
  | {
      /** The feed read. */
      feed: Feed
      /** Not read. */
      ok: false
      /** One sentence. */
      message: string
    }

/** USD price feeds on one chain, each checked once (description and decimals) before it is offered. */
export type PriceFeeds = {
  /** EIP-155 chain id of the feeds. */
  chainId: number
  /** The feeds, in the order answers list them. */
  feeds: readonly Feed[]
  /** The latest round of every feed, in one multicall; throws when the chain does not answer. */
  read: () => Promise<readonly Reading[]>
}

/** A round fit to use: positive, and updated within its feed's heartbeat. */
export type Usable = {
  /** Usable. */
  ok: true
  /** The feed. */
  feed: Feed
  /** Round id. */
  roundId: bigint
  /** Answer in units of 10^-decimals USD; positive. */
  answer: bigint
  /** Decimals of the answer. */
  decimals: number
  /** When the round was updated, seconds since the Unix epoch. */
  updatedAt: number
  /** Seconds between the update and the time judged at. */
  ageSeconds: number
}

/** Why a feed's reading is refused. */
export type Refused = {
  /** Refused. */
  ok: false
  /** The feed. */
  feed: Feed
  /** `stale` (older than the heartbeat), `invalid_answer` (not positive) or `unreadable` (no round read). */
  reason: 'stale' | 'invalid_answer' | 'unreadable'
  /** One sentence. */
  message: string
}

/** A reading judged at a time: a usable round, or why the feed's answer is refused. */
export type Judged = Usable | Refused

/**
 * Judges `reading` at `nowS` (seconds since the Unix epoch): a round that is not positive, never updated, or older
 * than the feed's heartbeat is refused with the reason, as is a feed that could not be read.
 */
export function judge(reading: Reading, nowS: number): Judged {
  const { feed } = reading
  if (!reading.ok) return { ok: false, feed, reason: 'unreadable', message: reading.message }
  const ageSeconds = Math.max(0, nowS - reading.updatedAt)
  if (reading.answer <= 0n)
    return {
      ok: false,
      feed,
      reason: 'invalid_answer',
      message: `The ${feed.description} feed answers ${reading.answer}, not a positive price.`,
    }
  if (reading.updatedAt === 0 || ageSeconds > feed.heartbeatS)
    return {
      ok: false,
      feed,
      reason: 'stale',
      message: `The ${feed.description} feed was last updated ${ageSeconds} s ago, past its ${feed.heartbeatS} s heartbeat.`,
    }
  const { roundId, answer, decimals, updatedAt } = reading
  return { ok: true, feed, roundId, answer, decimals, updatedAt, ageSeconds }
}

/** One read of every feed and when it was taken. */
export type Snapshot = {
  /** The latest round of every feed, in the feeds' order. */
  readings: readonly Reading[]
  /** When the read was taken, epoch ms. */
  takenAt: number
}

/** A {@link Snapshot} as served. */
export type Served = Snapshot & {
  /** Whether an earlier call took it (served from memory). */
  cached: boolean
}

/**
 * Reads `feeds` at most once per `ttlMs`: calls within it get the same {@link Snapshot} (`cached: true`), and
 * concurrent calls that find none share one read. A read that throws is not kept.
 */
export function shared(parameters: shared.Parameters): shared.ReturnType {
  const { feeds, ttlMs, now } = parameters
  const take = Cache.shared({ read: () => feeds.read(), ttlMs, now })
  return {
    feeds,
    async read() {
      const { value, takenAt, cached } = await take()
      return { readings: value, takenAt, cached }
    },
  }
}

export declare namespace shared {
  type Parameters = {
    /** The feeds. */
    feeds: PriceFeeds
    /** How long one read is served again, in ms. */
    ttlMs: number
    /** Current time, epoch ms. */
    now: () => number
  }
  type ReturnType = {
    /** The feeds read. */
    feeds: PriceFeeds
    /** The snapshot of the last `ttlMs`, or a new one; throws when the chain does not answer. */
    read: () => Promise<Served>
  }
}
