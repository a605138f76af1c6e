import type { Options } from './RateLimit.js'

/** The outcome of a take: a token, or when there will be one. */
export type Taken =
  | {
      /** A token was taken: the call may go. */
      ok: true
    }
  | {
      /** The bucket is empty: the call is refused. */
      ok: false
      /** Epoch ms when a token will be there. */
      retryAt: number
    }

/**
 * Token buckets by key (see `RateLimit`), kept where every process that must share them sees them: a take is atomic
 * across all processes sharing the limiter, so N processes admit what one would.
 */
export type Limiter = {
  /** Takes one token of the bucket `key` (created full with `options` on first use). */
  take: (key: string, options: Options) => Promise<Taken>
  /** Releases the limiter's connections, if it holds any. */
  close: () => Promise<void>
}
