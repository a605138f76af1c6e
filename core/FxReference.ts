import type * as Upstream from './Upstream.js'

/** Reference exchange rates of one day against one base currency. */
export type Rates = {
  /** ISO 4217 code of the base currency, e.g. `USD`. */
  base: string
  /** Day the rates were published for (YYYY-MM-DD). */
  date: string
  /** Units of each currency per one unit of the base, as decimal strings, by ISO 4217 code. */
  rates: Readonly<Record<string, string>>
}

/** A published source of reference exchange rates (central-bank fixings), the second opinion on the FX feeds. */
export type FxReference = {
  /** Name of the source in answers, e.g. `Frankfurter (ECB reference rates)`. */
  name: string
  /** The latest rates of `symbols` against `base`; failures come back as data. */
  latest: (base: string, symbols: readonly string[]) => Promise<Upstream.Outcome<Rates>>
  /** Whether calls may start now. */
  available: () => Upstream.Availability
}
