/** Answer of a price look-up: a USD price, or why there is none. */
export type Quote =
  | {
      /** A price was found. */
      ok: true
      /** USD per one whole unit (1 ETH, 1 SOL), as a decimal string. */
      usd: string
      /** Name of the source that answered. */
      source: string
      /** When the source observed the price. */
      observedAt: Date
    }
  | {
      /** No price. */
      ok: false
      /** Stable snake_case reason. */
      reason: 'unknown_asset' | 'unavailable'
      /** One sentence. */
      message: string
    }

/** A source of USD prices for assets and fiat currencies. */
export type Oracle = {
  /** The USD price of one whole unit of `symbol` (an asset like `ETH` or a currency like `EUR`). */
  usdPrice: (symbol: string) => Promise<Quote>
}
