import type { Limiter } from '../../core/Limiter.js'
import * as RateLimit from '../../core/RateLimit.js'

/**
 * Token buckets in this process's memory: right for a lone process only (N processes would each admit the whole
 * allowance). At most `maxBuckets` are kept; the least recently used goes first, so a flood of new clients evicts
 * idle buckets (which come back full) rather than growing without bound.
 */
export function memory(parameters: memory.Parameters = {}): Limiter {
  const { maxBuckets = 10_000, now = Date.now } = parameters
  const buckets = new Map<string, RateLimit.State>()
  return {
    async take(key, options) {
      const at = now()
      const taken = RateLimit.take(buckets.get(key) ?? RateLimit.initial(options, at), { ...options, now: at })
      // Map order is insertion order: deleting and setting again makes this bucket the most recently used.
      buckets.delete(key)
      buckets.set(key, taken.state)
      if (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value!)
      return taken.ok ? { ok: true } : { ok: false, retryAt: taken.retryAt }
    },
    async close() {},
  }
}

export declare namespace memory {
  type Parameters = {
    /** Most buckets kept; the least recently used is evicted past it. @default 10_000 */
    maxBuckets?: number | undefined
    /** The clock, in epoch ms. @default Date.now */
    now?: (() => number) | undefined
  }
}
