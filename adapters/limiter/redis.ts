import type { RedisClient } from 'bun'
import type { Limiter } from '../../core/Limiter.js'
import * as RateLimit from '../../core/RateLimit.js'

/**
 * One take, atomically (Redis runs a script alone): `KEYS[1]` the bucket, `ARGV` its capacity in token-ms, the
 * token-ms gained per ms, and one token in token-ms. The same arithmetic as `core/RateLimit.ts` (levels in integer
 * token-ms, so no rounding admits a call early), on the server's clock, so that processes with drifting clocks agree.
 * The bucket expires once it would be full again: an absent bucket is a full one. Answers `{1, 0}` or `{0, retryAt}`.
 */
const script = `
local capacity = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local token = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'level', 'at')
local level = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
if now > at then
  level = math.min(capacity, level + (now - at) * perMs)
  at = now
end
local taken = 0
local retryAt = 0
if level >= token then
  level = level - token
  taken = 1
else
  retryAt = at + math.ceil((token - level) / perMs)
end
redis.call('HSET', KEYS[1], 'level', level, 'at', at)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - level) / perMs) + 1)
return {taken, retryAt}
`

/**
 * Token buckets in Redis, shared by every process on it: each take is one script run (`EVALSHA`, loaded again with
 * `EVAL` after a server restart forgets it), atomic on the server. Buckets expire once full again, so idle clients
 * cost nothing. The caller owns `client`: `close` leaves it open.
 */
export function redis(parameters: redis.Parameters): Limiter {
  const { client, prefix = 'limit:' } = parameters
  const sha = new Bun.CryptoHasher('sha1').update(script).digest('hex')
  return {
    async take(key, options) {
      RateLimit.assert(options)
      const { capacity, refill, intervalMs } = options
      const args = ['1', `${prefix}${key}`, String(capacity * intervalMs), String(refill), String(intervalMs)]
      const [taken, retryAt] = (await client.send('EVALSHA', [sha, ...args]).catch((error: unknown) => {
        if (!(error instanceof Error && error.message.includes('NOSCRIPT'))) throw error
        return client.send('EVAL', [script, ...args])
      })) as [number, number]
      return taken === 1 ? { ok: true } : { ok: false, retryAt }
    },
    async close() {},
  }
}

export declare namespace redis {
  type Parameters = {
    /** A connected client (Bun's own). */
    client: RedisClient
    /** Prefix of the buckets' keys. @default 'limit:' */
    prefix?: string | undefined
  }
}
