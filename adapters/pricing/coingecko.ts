import { UnreadableAnswerError } from '../../core/Errors.js'
import type { HistoricalPrices } from '../../core/HistoricalPrice.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { decimalOf } from './defillama.js'

/**
 * CoinGecko's Pro API: `GET /coins/{id}/history?date=dd-mm-yyyy` answers the day's price in
 * `market_data.current_price.usd` (00:00 UTC of that day), with the key in `x-cg-pro-api-key`. It knows coins by
 * CoinGecko id: `coingecko:<id>` is asked as `<id>`; any other id is not CoinGecko's. A coin or day without a price
 * comes back `rejected`.
 */
export function coingecko(parameters: coingecko.Parameters): HistoricalPrices {
  const { url, apiKey, ...options } = parameters
  const client = vendor({
    id: 'coingecko',
    name: 'CoinGecko',
    baseUrl: url,
    timeoutMs: 10_000,
    auth: { type: 'header', name: 'x-cg-pro-api-key', value: apiKey, env: 'COINGECKO_API_KEY' },
    cache: { ttlMs: 3_600_000, maxEntries: 1_000 },
    ...options,
  })
  return {
    name: 'CoinGecko',
    async price({ id, time }) {
      const coin = id.startsWith('coingecko:') ? id.slice('coingecko:'.length) : undefined
      if (!coin) return client.fail('rejected', `CoinGecko knows coins by CoinGecko id (coingecko:<id>), not ${id}.`)
      const day = new Date(time)
      const date = `${pad(day.getUTCDate())}-${pad(day.getUTCMonth() + 1)}-${day.getUTCFullYear()}`
      const answer = await client.get(`/coins/${encodeURIComponent(coin)}/history`, {
        query: { date, localization: 'false' },
        accept: [404],
        label: 'history',
      })
      if (!answer.ok) return answer
      // An unknown coin (404) or a day without market data is CoinGecko's answer that it has no price.
      if (answer.status === 404) return client.fail('rejected', `CoinGecko knows no coin ${coin}.`, 404)
      const usd = fieldsOf(fieldsOf(fieldsOf(answer.body).market_data).current_price).usd
      if (usd === undefined) return client.fail('rejected', `CoinGecko has no USD price of ${coin} on ${date}.`)
      return client.read(() => {
        const text = decimalOf(usd)
        if (text === undefined)
          throw new UnreadableAnswerError(`CoinGecko answered ${coin}'s price as ${JSON.stringify(usd)}.`)
        const at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate())
        return { ok: true as const, usd: text, at: new Date(at).toISOString(), source: 'coingecko' }
      }, answer.status)
    },
    available: () => client.available(),
  }
}

function pad(value: number): string {
  return String(value).padStart(2, '0')
}

export declare namespace coingecko {
  type Parameters = vendor.Options & {
    /** Base URL, e.g. `https://pro-api.coingecko.com/api/v3`. */
    url: string
    /** Pro API key; without it the source is unavailable. Never shown. */
    apiKey: string | undefined
  }
}
