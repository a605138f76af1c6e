import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Solana from '../../core/Solana.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Pyth's own Hermes; its price routes need `Authorization: Bearer <key>` since the Pyth Core upgrade (2026-08-26). */
export const defaultUrl = 'https://hermes.pyth.network'

/** How long the feed list (ids and symbols) is kept, in ms: feeds are added rarely. */
const metadataTtlMs = 60 * 60 * 1_000

/**
 * A Pyth price service on Hermes' REST API: `GET /v2/updates/price/latest?ids[]=...&parsed=true` for the latest
 * prices, and `GET /v2/price_feeds` for the symbols, kept for an hour. A symbol the feed list cannot give (the list
 * failed, or lacks the feed) is left out rather than failing the prices. A feed Hermes does not know is the port's
 * `not_found`.
 */
export function hermes(parameters: hermes.Parameters): Solana.PriceService {
  const { url = defaultUrl, key, ...options } = parameters
  const client = vendor({
    id: 'hermes',
    name: 'Pyth Hermes',
    baseUrl: url,
    auth: key === undefined ? { type: 'none' } : { type: 'bearer', token: key },
    timeoutMs: 10_000,
    cache: { ttlMs: metadataTtlMs, maxEntries: 1 },
    ...options,
  })

  /** Symbols by feed id (`0x` and lower-case hex), or none when the feed list cannot be read. */
  async function symbols(): Promise<Map<string, string>> {
    const answer = await client.get('/v2/price_feeds', { label: 'price_feeds' })
    const bySymbol = new Map<string, string>()
    if (!answer.ok || !Array.isArray(answer.body)) return bySymbol
    for (const feed of answer.body) {
      const fields = fieldsOf(feed)
      const symbol = fieldsOf(fields.attributes).symbol
      if (typeof fields.id === 'string' && typeof symbol === 'string') bySymbol.set(idOf(fields.id), symbol)
    }
    return bySymbol
  }

  return {
    async latest(ids) {
      // Without ignore_invalid_price_ids, Hermes answers 404 (a text body) for the whole call when it does not know one
      // id: a failure the circuit breaker would count, so unknown ids could open it for everyone.
      const query = `${ids.map((id) => `ids[]=${id}`).join('&')}&parsed=true&ignore_invalid_price_ids=true`
      const [answer, named] = await Promise.all([
        // Prices move every slot: never served from the cache.
        client.get(`/v2/updates/price/latest?${query}`, { label: 'price', cache: false }),
        symbols(),
      ])
      if (!answer.ok)
        return answer.status === 404 ? { ok: false, reason: 'not_found', message: answer.message } : answer
      const parsed = fieldsOf(answer.body).parsed
      if (!Array.isArray(parsed))
        return client.fail('failed', 'Pyth Hermes answered without parsed prices.', answer.status)
      const byId = new Map(parsed.map((entry) => [idOf(String(fieldsOf(entry).id ?? '')), fieldsOf(entry)]))
      const unknown = ids.filter((id) => !byId.has(id))
      if (unknown.length > 0)
        return { ok: false, reason: 'not_found', message: `Pyth Hermes has no price feed ${unknown.join(', ')}.` }
      return client.read(() => {
        const updates = ids.map((id) => {
          const price = fieldsOf(byId.get(id)!.price)
          const ema = fieldsOf(byId.get(id)!.ema_price)
          return {
            id,
            symbol: named.get(id),
            price: integer(price.price, 'price.price'),
            confidence: integer(price.conf, 'price.conf'),
            exponent: exponentOf(price.expo, 'price.expo'),
            publishTime: timeOf(price.publish_time),
            emaPrice: integer(ema.price, 'ema_price.price'),
            emaExponent: exponentOf(ema.expo, 'ema_price.expo'),
          }
        })
        return { ok: true as const, updates }
      }, answer.status)
    },

    available: () => client.available(),
  }
}

export declare namespace hermes {
  type Parameters = vendor.Options & {
    /** Base URL of a Hermes server; may carry a provider's token, so never shown. @default defaultUrl */
    url?: string | undefined
    /** Pyth API key, sent as a bearer token; never shown. */
    key?: string | undefined
  }
}

/** A feed id as the port writes it: `0x` and lower-case hex (Hermes answers ids without the prefix). */
function idOf(id: string): string {
  return `0x${id.replace(/^0x/i, '').toLowerCase()}`
}

/** A price or confidence: a signed 64-bit integer as a decimal string. */
function integer(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !/^-?(0|[1-9][0-9]{0,18})$/.test(value))
    throw new UnreadableAnswerError(`Pyth Hermes answered an unreadable ${field}.`)
  return BigInt(value)
}

/** An exponent: a small integer (Pyth's are between -18 and 18). */
function exponentOf(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > 38)
    throw new UnreadableAnswerError(`Pyth Hermes answered an unreadable ${field}.`)
  return value
}

/** A publish time in seconds since the epoch. */
function timeOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new UnreadableAnswerError('Pyth Hermes answered an unreadable price.publish_time.')
  return value
}
