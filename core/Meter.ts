import type * as Price from './Price.js'

/**
 * How a call priced by usage is charged (x402 `upto`): the payer authorizes the most its input could cost, the
 * handler runs, and what it actually used is charged, never more than the authorized maximum.
 */
export type Meter = {
  /** The most a call with this input may cost, in atomic units; `undefined` when it cannot be metered (then only the fixed price is offered). */
  max: (input: Price.Input) => bigint | undefined
  /** What the handler's answer to this input used, in atomic units; `undefined` when it does not say (then the maximum is charged). */
  cost: (answer: unknown, input: Price.Input) => bigint | undefined
}

/** Meters of the served entries, by catalog key (`POST /path`). */
export type Meters = Readonly<Record<string, Meter>>

/** `units × pricePerMillion / 1_000_000`, rounded up to the next atomic unit. */
export function perMillion(units: bigint, pricePerMillion: bigint): bigint {
  return (units * pricePerMillion + 999_999n) / 1_000_000n
}
