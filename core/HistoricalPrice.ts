import type { Availability, Outcome } from './Upstream.js'

/** A USD price of an asset at a past moment, and where it came from. */
export type Quote = {
  /** USD per unit, decimal string. */
  usd: string
  /** When the source's price is from (ISO 8601), which may differ from the moment asked. */
  at: string
  /** The source, e.g. `defillama`. */
  source: string
}

/** Historical USD prices (DefiLlama's coins API, CoinGecko). */
export type HistoricalPrices = {
  /** Name of the source in messages. */
  name: string
  /** The price of the asset the source knows as `id` (e.g. `coingecko:ethereum`) at `time` (epoch ms). */
  price: (query: { id: string; time: number }) => Promise<Outcome<Quote>>
  /** Whether calls may start now. */
  available: () => Availability
}
