import { hexToBigInt, isHex } from 'viem'
import * as Address from '../../core/Address.js'
import * as Batch from '../../core/Batch.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Gas from '../../core/Gas.js'
import type { Oracle } from '../../core/Oracle.js'
import * as Rpc from '../../core/Rpc.js'
import * as Units from '../../core/Units.js'
import type { ConvertQuery, EstimateBatchQuery, UuidQuery, ValidateAddressQuery } from './schema.js'

/** What the free utilities need from outside. */
export type Deps = {
  /** USD price source; without it only native-unit conversions work. */
  oracle?: Oracle | undefined
  /** The settlement chain's node (`base`), whose gas price prices a batch estimate; without it the gas has no price. */
  settlement?: Rpc.Endpoint | undefined
}

/** Current time in seconds (`unix`, `seconds`), milliseconds (`unixMs`, `milliseconds`) and ISO 8601. */
export function timestamp(now: Date = new Date()) {
  const milliseconds = now.getTime()
  const seconds = Math.floor(milliseconds / 1000)
  return { unix: seconds, unixMs: milliseconds, iso: now.toISOString(), seconds, milliseconds }
}

/** Largest number of identifiers one call returns. */
export const maxUuids = 100

/**
 * Random v4 UUIDs from the platform's cryptographic generator: `uuids` is the one identifier itself when `count` is 1
 * and the array otherwise, as the original gateway answers; `uuidList` is always the array.
 */
export function uuid(input: UuidQuery) {
  const count = input.count === undefined ? 1 : Number(input.count)
  if (!/^\d+$/.test(input.count ?? '1') || count < 1 || count > maxUuids)
    throw new ValidationError({ field: 'count', message: `must be a whole number from 1 to ${maxUuids}` })
  const uuidList = Array.from({ length: count }, () => crypto.randomUUID())
  return { uuids: count === 1 ? uuidList[0]! : uuidList, uuidList, count, version: 4 }
}

/** Fixed-point scale of cross-asset arithmetic (decimal places). */
const scale = 36n

/**
 * Converts an amount. Native units of one asset (wei/gwei/ether, lamports/SOL, drops/XRP, stroops/XLM) convert
 * exactly with bigint arithmetic; anything else goes through the oracle's USD prices and says which it used. The
 * answer carries the original gateway's `input`, `output` and `type` (amounts as exact decimal strings) beside ours.
 */
export async function convert(deps: Deps, input: ConvertQuery) {
  const { amount, from, to } = input
  const original = (result: string, type: 'unit_conversion' | 'price_conversion') => ({
    input: { amount: trimDecimal(amount), currency: from.toLowerCase() },
    output: { amount: result, currency: to.toLowerCase() },
    type,
  })
  if (Units.isNativeUnit(from) && Units.isNativeUnit(to) && Units.family(from) === Units.family(to)) {
    const converted = Units.convert({ amount, from, to })
    return { ...original(converted.amount, 'unit_conversion'), ...converted, rates: null }
  }

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
    ...original(result, 'price_conversion'),
    rate: trim((sourceUsd.scaled * 10n ** scale) / targetUsd.scaled, scale),
    amount: result,
    from,
    to,
    exact: false,
    rates: { [source.symbol]: sourceUsd.quote, [target.symbol]: targetUsd.quote },
  }
}

/** The original gateway's `chain` spellings of each address family (its lib/address-validation.ts). */
const familyOfChain: Readonly<Record<string, Address.Family>> = {
  evm: 'evm',
  unichain: 'evm',
  plasma: 'evm',
  bob: 'evm',
  solana: 'solana',
  sol: 'solana',
  xrp: 'xrp',
  ripple: 'xrp',
  xrpl: 'xrp',
  stellar: 'stellar',
  xlm: 'stellar',
}

/** The family a `chain` of the original gateway names, any EVM chain spelling meaning `evm`; 400 naming `chain` otherwise. */
function familyOf(chain: string): Address.Family {
  const key = chain.trim().toLowerCase()
  if (Object.hasOwn(familyOfChain, key)) return familyOfChain[key]!
  if (EvmChain.nameOf(key) !== undefined) return 'evm'
  throw new ValidationError({
    field: 'chain',
    message: `unknown chain "${chain}"; give an EVM chain (evm, base, ethereum, ...), solana, xrp or stellar`,
  })
}

/** The original gateway's `format` of each of our formats. */
const originalFormat: Readonly<Record<string, string>> = {
  evm_checksummed: 'ERC-55',
  evm_unchecksummed: 'ERC-55',
  solana: 'base58',
  xrp_classic: 'classic',
  xrp_x_address: 'x-address',
  stellar_account: 'ed25519',
  stellar_muxed: 'muxed',
}

/**
 * Checks an address against every family (or one, by `family` or the original gateway's `chain`) and says why the
 * others do not match; beside our `matches` and `results`, the original's `chain` (the first matching family or
 * `null`), `checksummed` (the EIP-55 form of an EVM address, the address itself elsewhere), `format`, `input` and
 * `requestedChain`.
 */
export function validateAddress(input: ValidateAddressQuery) {
  if (input.chain !== undefined && input.family !== undefined)
    throw new ValidationError({ field: 'family', message: 'give `chain` or `family`, not both' })
  const family = input.family ?? (input.chain === undefined ? undefined : familyOf(input.chain))
  const verdict = Address.validate({ address: input.address, ...(family ? { families: [family] } : {}) })
  const chain = verdict.matches[0] ?? null
  const result = chain === null ? undefined : verdict.results[chain]
  const valid = result?.valid ? result : undefined
  return {
    ...verdict,
    chain,
    checksummed: valid === undefined ? null : 'normalized' in valid ? valid.normalized : verdict.address,
    format: valid === undefined ? null : originalFormat[valid.format]!,
    ...(valid === undefined ? { error: 'Address does not match any supported chain format' } : {}),
    input: verdict.address,
    requestedChain: input.chain ?? input.family ?? 'auto-detect',
  }
}

/** Checks a BPA 1.0 batch payload (schema only, no chain calls). */
export function validateBatch(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError({ field: 'body', message: 'must be a JSON object (a BPA 1.0 payload)' })
  return Batch.validate(body)
}

/** Decimals of a USD amount of `GET /free/estimate-batch`: it is paid in USDC. */
const usdDecimals = 6

/** What `GET /free/estimate-batch` says of how rough its figures are (the original gateway's `precision`). */
const precision = 'rough: the worst-case gas ceiling at the live gas price; use /api/v1/batch/estimate for a live quote'

/**
 * Rough cost of a batch by recipient count (`recipients` or `recipientCount`) and chain, from the gas model batch
 * estimate uses, priced at the settlement chain's live gas price and the oracle's ETH price when both answer. The
 * original gateway's `estimate` object (USD amounts as exact decimal strings) sits beside our flat gas figures.
 */
export async function estimateBatch(deps: Deps, input: EstimateBatchQuery) {
  if (input.recipients !== undefined && input.recipientCount !== undefined)
    throw new ValidationError({ field: 'recipientCount', message: 'give `recipients` or `recipientCount`, not both' })
  const count = input.recipients ?? input.recipientCount
  const field = input.recipientCount === undefined ? 'recipients' : 'recipientCount'
  if (count === undefined)
    throw new ValidationError({ field: 'recipients', message: 'required: the number of recipients, 1 to 200' })
  const chain = Batch.resolveChain(
    input.chain === undefined ? undefined : (EvmChain.nameOf(input.chain) ?? input.chain),
  )
  const token = Batch.resolveToken({ chain, token: input.token })
  const recipientCount = Number(count)
  if (recipientCount < 1 || recipientCount > Batch.maxRecipients)
    throw new ValidationError({ field, message: `must be a whole number from 1 to ${Batch.maxRecipients}` })
  const estimate = Gas.estimate({ recipientCount, isETH: token.isETH, chain })
  const total =
    input.amount === undefined
      ? undefined
      : Units.fromDecimal({ value: input.amount, decimals: usdDecimals, field: 'amount' })
  const protocolFee = total === undefined ? undefined : Batch.fee({ total }).fee
  const gasUsd = await gasCostUsd(deps, chain, estimate.gas)
  const usd = (value: bigint | undefined) => (value === undefined ? null : Units.toDecimal(value, usdDecimals))
  return {
    estimate: {
      chain,
      recipients: recipientCount,
      totalAmount: usd(total),
      protocolFeeBps: Number(Batch.defaultFeeBps),
      protocolFeeUSD: usd(protocolFee),
      estimatedGasUSD: 'usd' in gasUsd ? usd(gasUsd.usd) : null,
      estimatedTotalCostUSD: protocolFee !== undefined && 'usd' in gasUsd ? usd(protocolFee + gasUsd.usd) : null,
      precision,
      bpaVersion: Batch.version,
      ...('reason' in gasUsd ? { gasPriceUnavailable: gasUsd.reason } : {}),
    },
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

/**
 * USD cost of `gas` on `chain` in atomic USD (6 decimals, rounded up): the node's `eth_gasPrice` times the oracle's ETH
 * price; why not, when the chain is not the settlement chain, or the node or the oracle does not answer.
 */
async function gasCostUsd(deps: Deps, chain: Batch.Chain, gas: bigint): Promise<{ usd: bigint } | { reason: string }> {
  if (chain !== 'base' || !deps.settlement) return { reason: `no node of ${chain} is configured for the free estimate` }
  if (!deps.oracle) return { reason: 'no price oracle is configured on this gateway' }
  const [answer, quote] = await Promise.all([
    Rpc.attempt(deps.settlement, 'eth_gasPrice', []),
    deps.oracle.usdPrice('ETH'),
  ])
  if ('error' in answer || !isHex(answer.result)) return { reason: `eth_gasPrice did not answer on ${chain}` }
  if (!quote.ok) return { reason: quote.message }
  return { usd: Gas.cost({ gas, gasPrice: hexToBigInt(answer.result), usdPerEther: quote.usd, usdDecimals }).usd }
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

/** A non-negative decimal string without leading zeros of its integer or trailing zeros of its fraction. */
function trimDecimal(text: string): string {
  return trim(toScaled(text, 'amount'), scale)
}

function trim(value: bigint, decimals: bigint): string {
  const unit = 10n ** decimals
  const fraction = (value % unit).toString().padStart(Number(decimals), '0').replace(/0+$/, '')
  return fraction === '' ? (value / unit).toString() : `${value / unit}.${fraction}`
}
