import { UnreadableAnswerError } from '../../core/Errors.js'
import type { HistoricalPrices } from '../../core/HistoricalPrice.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * DefiLlama's keyless coins API: `GET /prices/historical/{unix seconds}/{coin}` answers
 * `{ coins: { "<coin>": { price, symbol, timestamp, confidence } } }`, the price nearest that moment. A coin is
 * `coingecko:<id>` or `<chain>:<token address>`. The price is passed on as the decimal text of the JSON number; a coin
 * DefiLlama has no price of comes back `rejected`.
 */
export function defillama(parameters: defillama.Parameters): HistoricalPrices {
  const { url, ...options } = parameters
  const client = vendor({
    id: 'defillama',
    name: 'DefiLlama',
    baseUrl: url,
    timeoutMs: 10_000,
    cache: { ttlMs: 3_600_000, maxEntries: 1_000 },
    ...options,
  })
  return {
    name: 'DefiLlama',
    async price({ id, time }) {
      const seconds = Math.floor(time / 1000)
      // The coin's `chain:address` form is sent as is, as DefiLlama documents it; only its parts are encoded.
      const coin = id.split(':').map(encodeURIComponent).join(':')
      const answer = await client.get(`/prices/historical/${seconds}/${coin}`, { label: 'price' })
      if (!answer.ok) return answer
      const entry = fieldsOf(fieldsOf(fieldsOf(answer.body).coins)[id])
      // No entry for the coin is DefiLlama's answer that it has no price: the input's matter, not an outage.
      if (entry.price === undefined) return client.fail('rejected', `DefiLlama has no price of ${id} at that time.`)
      return client.read(() => {
        const usd = decimalOf(entry.price)
        if (usd === undefined)
          throw new UnreadableAnswerError(`DefiLlama answered ${id}'s price as ${JSON.stringify(entry.price)}.`)
        const at = typeof entry.timestamp === 'number' ? entry.timestamp * 1000 : time
        return { ok: true as const, usd, at: new Date(at).toISOString(), source: 'defillama' }
      }, answer.status)
    },
    available: () => client.available(),
  }
}

/** A JSON number as a plain decimal string (exponent forms written out), or `undefined` when it is not a price. */
export function decimalOf(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined
  const text = String(value)
  const match = text.match(/^(\d+)(?:\.(\d+))?e([+-]\d+)$/)
  if (!match) return text
  const [, whole, fraction = '', exponent] = match
  const digits = whole! + fraction
  const point = whole!.length + Number(exponent)
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length)
  return `${digits.slice(0, point)}.${digits.slice(point)}`
}

export declare namespace defillama {
  type Parameters = vendor.Options & {
    /** Base URL, e.g. `https://coins.llama.fi` (the public one, keyless). */
    url: string
  }
}
