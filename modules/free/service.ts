import * as Address from '../../core/Address.js'
import * as Batch from '../../core/Batch.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as Gas from '../../core/Gas.js'
import type { Oracle } from '../../core/Oracle.js'
import * as Units from '../../core/Units.js'
import type { ConvertQuery, EstimateBatchQuery, UuidQuery, ValidateAddressQuery } from './schema.js'

/** What the free utilities need from outside. */
export type Deps = {
  /** USD price source; without it only native-unit conversions work. */
  oracle?: Oracle | undefined
}

/** Current time in seconds, milliseconds and ISO 8601. */
export function timestamp(now: Date = new Date()) {
  const milliseconds = now.getTime()
  return { seconds: Math.floor(milliseconds / 1000), milliseconds, iso: now.toISOString() }
}

/** Largest number of identifiers one call returns. */
export const maxUuids = 100

/** Random v4 UUIDs from the platform's cryptographic generator. */
export function uuid(input: UuidQuery) {
  const count = input.count === undefined ? 1 : Number(input.count)
  if (!/^\d+$/.test(input.count ?? '1') || count < 1 || count > maxUuids)
    throw new ValidationError({ field: 'count', message: `must be a whole number from 1 to ${maxUuids}` })
  const uuids = Array.from({ length: count }, () => crypto.randomUUID())
  return { uuids, count, version: 4 }
}

/** Fixed-point scale of cross-asset arithmetic (decimal places). */
const scale = 36n

/**
 * Converts an amount. Native units of one asset (wei/gwei/ether, lamports/SOL, drops/XRP, stroops/XLM) convert
 * exactly with bigint arithmetic; anything else goes through the oracle's USD prices and says which it used.
 */
export async function convert(deps: Deps, input: ConvertQuery) {
  const { amount, from, to } = input
  if (Units.isNativeUnit(from) && Units.isNativeUnit(to) && Units.family(from) === Units.family(to))
    return { ...Units.convert({ amount, from, to }), rates: null }

  const source = toAsset(from, amount, 'from')
  const target = toAsset(to, '0', 'to')
  const [sourceUsd, targetUsd] = await Promise.all([usd(deps, source.symbol, 'from'), usd(deps, target.symbol, 'to')])
  const value = (source.whole * sourceUsd.scaled) / targetUsd.scaled
  const result =
    target.decimals === undefined
      ? trim(value, scale)
      : Units.convert({
          amount: trim(value / 10n ** (scale - BigInt(target.decimals)), BigInt(target.decimals)),
          from: target.wholeUnit!,
          to,
        }).amount
  return {
    amount: result,
    from,
    to,
    exact: false,
    rates: { [source.symbol]: sourceUsd.quote, [target.symbol]: targetUsd.quote },
  }
}

/** Checks an address against every family (or one) and says why the others do not match. */
export function validateAddress(input: ValidateAddressQuery) {
  return Address.validate({ address: input.address, ...(input.family ? { families: [input.family] } : {}) })
}

/** Checks a BPA 1.0 batch payload (schema only, no chain calls). */
export function validateBatch(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError({ field: 'body', message: 'must be a JSON object (a BPA 1.0 payload)' })
  return Batch.validate(body)
}

/** Rough gas of a batch by recipient count and chain, from the model batch estimate uses. */
export function estimateBatch(input: EstimateBatchQuery) {
  const chain = Batch.resolveChain(input.chain)
  const token = Batch.resolveToken({ chain, token: input.token })
  const recipientCount = Number(input.recipientCount)
  const estimate = Gas.estimate({ recipientCount, isETH: token.isETH, chain })
  return {
    chain,
    token: token.symbol ?? token.address,
    recipientCount,
    estimatedGas: estimate.gas.toString(),
    baseGas: estimate.base.toString(),
    perRecipientGas: estimate.perRecipient.toString(),
    // No chain is read here, so the rate is the protocol's default; batch estimate reads it from the contract.
    feePercent: BatchPayment.feePercent(Batch.defaultFeeBps),
    note:
      'Worst-case gas ceiling with every recipient cold, from the same model batch estimate uses. The cost in ' +
      'native currency is this gas times the live gas price; the 0.3% protocol fee is charged on the batch total.',
  }
}

type Asset = { symbol: string; whole: bigint; decimals: number | undefined; wholeUnit: string | undefined }

function toAsset(unit: string, amount: string, field: 'from' | 'to'): Asset {
  if (!/^[A-Za-z][A-Za-z0-9]{0,15}$/.test(unit))
    throw new ValidationError({ field, message: 'must be a unit or symbol' })
  if (Units.isNativeUnit(unit)) {
    const whole = Units.wholeUnitOf(unit)
    const converted = Units.convert({ amount, from: unit, to: whole.name })
    return {
      symbol: whole.symbol,
      whole: toScaled(converted.amount, 'amount'),
      decimals: whole.decimals,
      wholeUnit: whole.name,
    }
  }
  return { symbol: unit.toUpperCase(), whole: toScaled(amount, 'amount'), decimals: undefined, wholeUnit: undefined }
}

/** The USD price of `symbol`; an unknown one is refused naming `field`, the query parameter that named it. */
async function usd(deps: Deps, symbol: string, field: 'from' | 'to') {
  if (symbol === 'USD') return { scaled: 10n ** scale, quote: { usd: '1', source: 'definition' } }
  if (!deps.oracle)
    throw new UpstreamUnavailableError(
      'Fiat and cross-asset conversion need a price oracle and none is configured on this gateway; ' +
        'native-unit conversions (wei/gwei/ether, lamports/SOL, drops/XRP, stroops/XLM) work without one.',
    )
  const quote = await deps.oracle.usdPrice(symbol)
  if (!quote.ok) {
    if (quote.reason === 'unknown_asset') throw new ValidationError({ field, message: quote.message })
    throw new UpstreamUnavailableError(quote.message)
  }
  return {
    scaled: toScaled(quote.usd, 'price'),
    quote: { usd: quote.usd, source: quote.source, observedAt: quote.observedAt.toISOString() },
  }
}

function toScaled(text: string, field: string): bigint {
  const match = /^(\d{1,78})(?:\.(\d{1,36}))?$/.exec(text)
  if (!match) throw new ValidationError({ field, message: 'must be a non-negative decimal number' })
  return BigInt(match[1]!) * 10n ** scale + BigInt((match[2] ?? '').padEnd(Number(scale), '0'))
}

function trim(value: bigint, decimals: bigint): string {
  const unit = 10n ** decimals
  const fraction = (value % unit).toString().padStart(Number(decimals), '0').replace(/0+$/, '')
  return fraction === '' ? (value / unit).toString() : `${value / unit}.${fraction}`
}
