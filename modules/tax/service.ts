import { type Address, bytesToHex, getAddress } from 'viem'
import { BadRequestError, NotFoundError, ValidationError } from '../../core/Errors.js'
import type { HistoricalPrices } from '../../core/HistoricalPrice.js'
import type { Store } from '../../core/Store.js'
import * as Tax from '../../core/Tax.js'
import * as Upstream from '../../core/Upstream.js'
import type { CalculateBody, eventTypes, TransactionInput } from './schema.js'

/** Collection of the reports. */
export const reportsCollection = 'tax_reports'

/** Price-source ids of common symbols, used for a transaction that gives no USD value and no `priceId`. */
export const knownIds: Readonly<Record<string, string>> = {
  BTC: 'coingecko:bitcoin',
  ETH: 'coingecko:ethereum',
  WETH: 'coingecko:weth',
  SOL: 'coingecko:solana',
  USDC: 'coingecko:usd-coin',
  USDT: 'coingecko:tether',
  DAI: 'coingecko:dai',
  // The original gateway's further symbols (its SYMBOL_TO_CG_ID), so its clients' assets are priced here too.
  WBTC: 'coingecko:wrapped-bitcoin',
  CBBTC: 'coingecko:coinbase-wrapped-btc',
  MATIC: 'coingecko:matic-network',
  POL: 'coingecko:polygon-ecosystem-token',
  BNB: 'coingecko:binancecoin',
  AVAX: 'coingecko:avalanche-2',
  XRP: 'coingecko:ripple',
  ARB: 'coingecko:arbitrum',
  OP: 'coingecko:optimism',
  LINK: 'coingecko:chainlink',
  UNI: 'coingecko:uniswap',
  AAVE: 'coingecko:aave',
  CRV: 'coingecko:curve-dao-token',
  MKR: 'coingecko:maker',
  LDO: 'coingecko:lido-dao',
  PEPE: 'coingecko:pepe',
  SHIB: 'coingecko:shiba-inu',
  DOGE: 'coingecko:dogecoin',
  TAO: 'coingecko:bittensor',
  TRUMP: 'coingecko:official-trump',
  PYUSD: 'coingecko:paypal-usd',
  EURC: 'coingecko:euro-coin',
}

/** What the tax module needs from outside. */
export type Deps = {
  /** Durable records: reports. */
  store: Store
  /** Historical USD prices for transactions that give none; absent, such transactions are reported missing. */
  prices: HistoricalPrices | undefined
  /** Most transactions one calculation takes. */
  maxTransactions: number
  /** Current time, epoch ms. */
  now: () => number
}

/** A USD price the gateway looked up (transactions with `usdValue` or `price` use the caller's), and its source. */
export type PriceUsed = {
  /** Transaction index. */
  index: number
  /** Asset. */
  asset: string
  /** USD per unit, decimal string. */
  usd: string
  /** The price source, e.g. `defillama`. */
  source: string
  /** Id asked of the source. */
  priceId: string
  /** When the source's price is from (ISO 8601). */
  at: string
}

/** Fields of the lot form only. */
const lotFields = ['kind', 'time', 'usdValue', 'price', 'feeUsd', 'priceId'] as const

/** Fields of the original gateway's per-transaction form only. */
const eachFields = [
  'type',
  'acquisitionDate',
  'disposalDate',
  'priceAtAcquisition',
  'priceAtDisposal',
  'costBasisUsd',
  'proceedsUsd',
  'holdingDays',
  'txHash',
  'timestamp',
] as const

/** One transaction of the original gateway's per-transaction form, parsed: exact values, its place in the input. */
export type Each = {
  /** Place in the input. */
  index: number
  /** What the transaction was, as given (see {@link eventTypes}). */
  type: (typeof eventTypes)[number]
  /** Asset symbol, upper case. */
  asset: string
  /** Quantity, scaled by 10^18. */
  amount: bigint
  /** When acquired, epoch ms. */
  acquired: number | undefined
  /** When disposed of, epoch ms. */
  disposed: number | undefined
  /** USD per unit when acquired, scaled. */
  priceAtAcquisition: bigint | undefined
  /** USD per unit when disposed of, scaled. */
  priceAtDisposal: bigint | undefined
  /** USD cost of the whole amount, scaled. */
  costBasisUsd: bigint | undefined
  /** USD proceeds of the whole amount, scaled. */
  proceedsUsd: bigint | undefined
  /** Whole days held, as given. */
  holdingDays: number | undefined
  /** Hash, echoed. */
  txHash: string | null
  /** When the event is reported, as given. */
  timestamp: string | number | undefined
}

/** The transactions of a calculate body, parsed and checked, in their form; a 400 naming index and field otherwise. */
export type Parsed = { form: 'lots'; transactions: Tax.Transaction[] } | { form: 'each'; transactions: Each[] }

/**
 * The transactions of a calculate body, parsed and checked: the lot form (any transaction with `kind` or `time`) sorted
 * for lot matching, or the original gateway's per-transaction form; one form per body. A 400 naming index and field
 * otherwise.
 */
export function parse(deps: Deps, body: CalculateBody): Parsed {
  if (body.transactions.length > deps.maxTransactions)
    throw new ValidationError({
      field: 'transactions',
      message: `${body.transactions.length} transactions; one calculation takes at most ${deps.maxTransactions}`,
    })
  const lots = body.transactions.some((transaction) => transaction.kind !== undefined || transaction.time !== undefined)
  const refuse = (fields: readonly (keyof TransactionInput)[], message: string) => {
    for (const [index, transaction] of body.transactions.entries())
      for (const name of fields)
        if (transaction[name] !== undefined)
          throw new ValidationError({ field: `transactions.${index}.${name}`, message })
  }
  if (!lots) {
    refuse(lotFields, 'belongs to the lot form (with kind and time)')
    if (body.method !== undefined)
      throw new ValidationError({
        field: 'method',
        message: 'matches lots in the lot form (with kind and time); per-transaction gains have no lots to match',
      })
    return { form: 'each', transactions: body.transactions.map(toEach) }
  }
  refuse(
    eachFields,
    "belongs to the original gateway's per-transaction form; this body is in the lot form (kind, time)",
  )
  const inputs = body.transactions.map((transaction, index): Tax.Input => {
    for (const name of ['kind', 'time'] as const)
      if (transaction[name] === undefined)
        throw new ValidationError({
          field: `transactions.${index}.${name}`,
          message: 'required in the lot form (another transaction of this body has kind or time)',
        })
    const { kind, time, amount, ...rest } = transaction
    return { ...rest, kind: kind!, time: time!, amount: typeof amount === 'number' ? String(amount) : amount }
  })
  return { form: 'lots', transactions: Tax.parse(inputs) }
}

/** One transaction of the per-transaction form, checked. */
function toEach(input: TransactionInput, index: number): Each {
  const field = (name: string) => `transactions.${index}.${name}`
  const scaled = (value: number | string | undefined, name: string, options: { positive?: boolean } = {}) =>
    value === undefined
      ? undefined
      : Tax.toScaled(typeof value === 'number' ? String(value) : value, field(name), options)
  const asset = input.asset.trim().toUpperCase()
  if (asset.length === 0 || asset.length > 20)
    throw new ValidationError({ field: field('asset'), message: 'a symbol of 1 to 20 characters' })
  return {
    index,
    type: (input.type ?? 'swap') as Each['type'],
    asset,
    amount: scaled(input.amount, 'amount', { positive: true })!,
    acquired: toTime(input.acquisitionDate, field('acquisitionDate')),
    disposed: toTime(input.disposalDate, field('disposalDate')),
    priceAtAcquisition: scaled(input.priceAtAcquisition, 'priceAtAcquisition'),
    priceAtDisposal: scaled(input.priceAtDisposal, 'priceAtDisposal'),
    costBasisUsd: scaled(input.costBasisUsd, 'costBasisUsd'),
    proceedsUsd: scaled(input.proceedsUsd, 'proceedsUsd'),
    holdingDays: input.holdingDays === undefined ? undefined : Math.floor(input.holdingDays),
    txHash: input.txHash ?? null,
    timestamp: input.timestamp,
  }
}

/** A date as the original gateway reads it (ISO 8601, or unix seconds, or milliseconds above 10^12) in epoch ms. */
function toTime(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined
  const time =
    typeof value === 'number'
      ? value > 1e12
        ? value
        : value * 1000
      : /^\d{4}-\d{2}-\d{2}/.test(value)
        ? Date.parse(value)
        : NaN
  // A Date holds at most 8.64e15 ms either side of 1970; past that there is no date to report.
  if (!Number.isFinite(time) || Math.abs(time) > 8.64e15)
    throw new ValidationError({ field, message: 'not an ISO 8601 date or a unix time in seconds or milliseconds' })
  return time
}

/**
 * Calculates gains by the chosen method and stores the report as the caller's. Transactions without a USD value
 * are priced from the historical price source, each price recorded with its source; when any cannot be priced the
 * call fails naming every such transaction (nothing is charged, nothing is assumed zero): a 400 when the source has
 * no price for it, the upstream's error when the source failed.
 */
export async function calculate(deps: Deps, caller: Address, body: CalculateBody) {
  const parsed = parse(deps, body)
  if (parsed.form === 'each') return calculateEach(deps, caller, parsed.transactions)
  const { transactions } = parsed
  const method = body.method ?? 'fifo'
  const prices: PriceUsed[] = []
  const missing: { index: number; asset: string; time: string; reason: string }[] = []
  let outage: Upstream.Failure | undefined
  // Only the transactions without a USD value are priced (at once); the others keep the caller's.
  // A transfer out moves lots with their basis: its USD value is never used, so it is never looked up.
  const priced: (Tax.Priced | undefined)[] = transactions.map((transaction) =>
    transaction.usd !== undefined
      ? (transaction as Tax.Priced)
      : transaction.kind === 'transfer_out'
        ? { ...transaction, usd: 0n }
        : undefined,
  )
  await Promise.all(
    transactions.map(async (transaction, position): Promise<void> => {
      if (priced[position] !== undefined) return
      const { index, asset } = transaction
      const time = new Date(transaction.time).toISOString()
      const id = transaction.priceId ?? knownIds[asset.toUpperCase()]
      if (!id) {
        missing.push({ index, asset, time, reason: 'no usdValue, price or priceId, and no known price id for it' })
        return
      }
      if (!deps.prices) {
        missing.push({ index, asset, time, reason: 'no historical price source is configured' })
        return
      }
      const quote = await deps.prices.price({ id, time: transaction.time })
      if (!quote.ok) {
        if (quote.reason !== 'rejected') outage ??= quote
        missing.push({ index, asset, time, reason: `${deps.prices.name}: ${quote.message.replace(/\.$/, '')}` })
        return
      }
      const unit = Tax.toScaled(quote.usd, `transactions.${index}.price`)
      prices.push({ index, asset, usd: quote.usd, source: quote.source, priceId: id, at: quote.at })
      priced[position] = { ...transaction, usd: (transaction.amount * unit) / 10n ** BigInt(Tax.decimals) }
    }),
  )
  if (missing.length > 0) {
    missing.sort((a, b) => a.index - b.index)
    // A source that failed (not one that has no price) is an outage: 502/503/504, with the same list.
    if (outage)
      throw Upstream.toError({
        ...outage,
        message: `${outage.message} Prices are missing for ${missing.length} transaction(s); nothing is charged.`,
      })
    throw new BadRequestError(
      `No USD price for ${missing.length} transaction(s): ${missing
        .slice(0, 5)
        .map((entry) => `transactions.${entry.index} (${entry.asset}): ${entry.reason}`)
        .join('; ')}. Give usdValue or price for them; nothing is charged.`,
      { details: { missingPrices: missing } },
    )
  }
  const report = Tax.calculate({ transactions: priced as Tax.Priced[], method })
  prices.sort((a, b) => a.index - b.index)
  const reportId = newReportId()
  const events = eventsOf(report)
  const summary = {
    ...summaryOf(report, transactions.length),
    // The original gateway's figures, in USD as JSON numbers rounded to the cent, beside the exact strings above.
    totalTransactions: transactions.length,
    totalGainLossUsd: toCents(report.total.gain),
    shortTermGainLoss: toCents(report.shortTerm.gain),
    longTermGainLoss: toCents(report.longTerm.gain),
  }
  await store(deps, caller, { reportId, createdAt: new Date(deps.now()).toISOString(), summary, events, prices })
  return { reportId, summary, events, prices }
}

/** Records the report as the caller's. */
async function store(deps: Deps, caller: Address, value: Stored): Promise<void> {
  await deps.store.insert<Stored>({
    collection: reportsCollection,
    id: value.reportId,
    owners: [getAddress(caller)],
    value,
    createdAt: new Date(deps.now()),
  })
}

/** A new report id. */
function newReportId(): string {
  return `tax_${bytesToHex(crypto.getRandomValues(new Uint8Array(16))).slice(2)}`
}

/** Most reports the list of `tax/report` without a `reportId` holds: the newest. */
export const listLimit = 100

/** The caller's report `reportId` with its events (someone else's is a 404); without an id, the caller's reports. */
export async function report(deps: Deps, caller: Address, reportId: string | undefined) {
  if (reportId === undefined) {
    const records = await deps.store.list<Stored>(reportsCollection, { owner: getAddress(caller), limit: listLimit })
    const reports = records.map(({ value }) => ({
      reportId: value.reportId,
      transactions: value.events.length,
      createdAt: value.createdAt,
    }))
    return {
      reports,
      totalReports: reports.length,
      note: `Your reports, newest first (at most ${listLimit}); pass ?reportId=tax_... to retrieve one in full.`,
    }
  }
  const record = await deps.store.get<Stored>(reportsCollection, reportId)
  if (!record?.owners.includes(getAddress(caller))) throw new NotFoundError(`No tax report ${reportId} of yours.`)
  const { events, summary, prices, createdAt } = record.value
  return { reportId, createdAt, summary, events, total: events.length, totalEvents: events.length, prices }
}

/** A report as stored: the lot form's or the per-transaction form's. */
type Stored = {
  reportId: string
  createdAt: string
  summary: object
  events: readonly object[]
  prices: PriceUsed[]
}

/** Why a per-transaction price is what it is, in the original gateway's words. */
type PriceSource = 'caller-provided' | 'lookup' | 'unavailable' | 'none'

/**
 * The original gateway's per-transaction report: each transaction's cost basis (its own, or amount times the price at
 * acquisition) against its proceeds (likewise at disposal), its gain and holding period (more than 365 days is long
 * term). A price neither given nor found leaves that transaction's figures null with a warning, as the original does;
 * a price source that failed fails the call, naming the transactions (nothing is charged).
 */
async function calculateEach(deps: Deps, caller: Address, transactions: Each[]) {
  const prices: PriceUsed[] = []
  const missing: { index: number; asset: string; time: string; reason: string }[] = []
  let outage: Upstream.Failure | undefined
  const lookup = async (transaction: Each, time: number): Promise<bigint | undefined> => {
    const { index, asset } = transaction
    const id = knownIds[asset]
    if (!id || !deps.prices) return undefined
    const quote = await deps.prices.price({ id, time })
    if (!quote.ok) {
      if (quote.reason !== 'rejected') outage ??= quote
      missing.push({
        index,
        asset,
        time: new Date(time).toISOString(),
        reason: `${deps.prices.name}: ${quote.message}`,
      })
      return undefined
    }
    prices.push({ index, asset, usd: quote.usd, source: quote.source, priceId: id, at: quote.at })
    return Tax.toScaled(quote.usd, `transactions.${index}.price`)
  }
  const resolve = async (
    transaction: Each,
    given: bigint | undefined,
    override: bigint | undefined,
    time: number | undefined,
  ): Promise<{ price: bigint | undefined; source: PriceSource }> => {
    if (given !== undefined || override !== undefined) return { price: given, source: 'caller-provided' }
    if (time === undefined) return { price: undefined, source: 'none' }
    const price = await lookup(transaction, time)
    return { price, source: price === undefined ? 'unavailable' : 'lookup' }
  }
  const resolved = await Promise.all(
    transactions.map(async (transaction) => ({
      acquisition: await resolve(
        transaction,
        transaction.priceAtAcquisition,
        transaction.costBasisUsd,
        transaction.acquired,
      ),
      disposal: await resolve(transaction, transaction.priceAtDisposal, transaction.proceedsUsd, transaction.disposed),
    })),
  )
  if (outage) {
    missing.sort((a, b) => a.index - b.index)
    throw Upstream.toError({
      ...outage,
      message: `${outage.message} Prices are missing for ${missing.length} transaction(s); nothing is charged.`,
    })
  }
  const warnings: string[] = []
  const scale = 10n ** BigInt(Tax.decimals)
  const rows = transactions.map((transaction, position) => {
    const { acquisition, disposal } = resolved[position]!
    const { index, type, asset, amount } = transaction
    const own: string[] = []
    const basis =
      transaction.costBasisUsd ?? (acquisition.price === undefined ? undefined : (amount * acquisition.price) / scale)
    if (basis === undefined)
      own.push(
        'cost basis unavailable: supply priceAtAcquisition, costBasisUsd, or an acquisitionDate of an asset with a known price',
      )
    let proceeds =
      transaction.proceedsUsd ?? (disposal.price === undefined ? undefined : (amount * disposal.price) / scale)
    if (proceeds === undefined && acquisition.price !== undefined && type !== 'sale') {
      proceeds = (amount * acquisition.price) / scale
      own.push('no disposal price; proceeds set to cost basis (zero gain assumed)')
    } else if (proceeds === undefined)
      own.push(
        'proceeds unavailable: supply priceAtDisposal, proceedsUsd, or a disposalDate of an asset with a known price',
      )
    const gain = basis !== undefined && proceeds !== undefined ? proceeds - basis : undefined
    const { acquired, disposed } = transaction
    const holdingDays =
      transaction.holdingDays ??
      (acquired !== undefined && disposed !== undefined && disposed >= acquired
        ? Math.floor((disposed - acquired) / 86_400_000)
        : null)
    const holdingPeriod = holdingDays === null ? 'unknown' : holdingDays > 365 ? 'long' : 'short'
    if (own.length > 0) warnings.push(`transactions[${index}] (${asset}): ${own.join('; ')}`)
    const iso = (time: number | undefined) => (time === undefined ? undefined : new Date(time).toISOString())
    const event = {
      index,
      type,
      txHash: transaction.txHash,
      timestamp: transaction.timestamp ?? iso(disposed) ?? iso(acquired) ?? new Date(deps.now()).toISOString(),
      asset,
      amount: Number(Tax.toDecimal(amount)),
      costBasisUsd: basis === undefined ? null : toCents(basis),
      proceedsUsd: proceeds === undefined ? null : toCents(proceeds),
      gainLoss: gain === undefined ? null : toCents(gain),
      holdingDays,
      holdingPeriod,
      priceSources: { acquisition: acquisition.source, disposal: disposal.source },
      ...(own.length > 0 ? { warnings: own } : {}),
      quantity: Tax.toDecimal(amount),
      costBasis: basis === undefined ? null : Tax.toDecimal(basis),
      proceeds: proceeds === undefined ? null : Tax.toDecimal(proceeds),
      gain: gain === undefined ? null : Tax.toDecimal(gain),
    }
    return { event, gain, holdingPeriod }
  })
  const events = rows.map(({ event }) => event)
  const realized = rows.filter((row) => row.gain !== undefined)
  const inPeriod = (period?: string) => realized.filter((row) => period === undefined || row.holdingPeriod === period)
  const total = (period?: string) => inPeriod(period).reduce((sum, row) => sum + row.gain!, 0n)
  const summary = {
    totalTransactions: events.length,
    transactionsWithFullData: realized.length,
    transactionsMissingData: events.length - realized.length,
    totalGainLossUsd: toCents(total()),
    shortTermGainLoss: toCents(total('short')),
    longTermGainLoss: toCents(total('long')),
    unknownTermGainLoss: toCents(total('unknown')),
    shortTermCount: inPeriod('short').length,
    longTermCount: inPeriod('long').length,
    unknownTermCount: inPeriod('unknown').length,
    gain: Tax.toDecimal(total()),
    currency: 'USD',
  }
  prices.sort((a, b) => a.index - b.index)
  const reportId = newReportId()
  await store(deps, caller, { reportId, createdAt: new Date(deps.now()).toISOString(), summary, events, prices })
  return {
    reportId,
    summary,
    events,
    prices,
    method: 'transaction-level realized P&L (per-tx cost basis vs proceeds in USD)',
    priceSource: `Historical USD prices from ${deps.prices?.name ?? 'no configured source'} for known symbols where no price is given.`,
    ...(warnings.length > 0 ? { warnings } : {}),
  }
}

/** A scaled USD amount as a JSON number of dollars rounded to the cent (half away from zero), as the original answers. */
function toCents(value: bigint): number {
  const unit = 10n ** BigInt(Tax.decimals - 2)
  const half = unit / 2n
  const cents = value < 0n ? -((-value + half) / unit) : (value + half) / unit
  return Number(cents) / 100
}

const totalsOf = (totals: Tax.Totals) => ({
  proceeds: Tax.toDecimal(totals.proceeds),
  costBasis: Tax.toDecimal(totals.basis),
  gain: Tax.toDecimal(totals.gain),
})

function summaryOf(report: Tax.Report, transactions: number) {
  return {
    method: report.method,
    transactions,
    disposals: report.disposals.length,
    ...totalsOf(report.total),
    shortTerm: totalsOf(report.shortTerm),
    longTerm: totalsOf(report.longTerm),
    income: Tax.toDecimal(report.incomeUsd),
    holdings: Object.fromEntries(
      Object.entries(report.holdings).map(([asset, holding]) => [
        asset,
        { amount: Tax.toDecimal(holding.amount), costBasis: Tax.toDecimal(holding.basis) },
      ]),
    ),
    currency: 'USD',
  }
}

function eventsOf(report: Tax.Report) {
  const time = (ms: number) => new Date(ms).toISOString()
  const disposals = report.disposals.map((disposal) => ({
    type: 'disposal' as const,
    index: disposal.index,
    kind: disposal.kind,
    asset: disposal.asset,
    time: time(disposal.time),
    amount: Tax.toDecimal(disposal.amount),
    proceeds: Tax.toDecimal(disposal.proceeds),
    costBasis: Tax.toDecimal(disposal.basis),
    gain: Tax.toDecimal(disposal.gain),
    lots: disposal.lots.map((lot) => ({
      lot: lot.lot,
      acquired: time(lot.acquired),
      amount: Tax.toDecimal(lot.amount),
      costBasis: Tax.toDecimal(lot.basis),
      proceeds: Tax.toDecimal(lot.proceeds),
      gain: Tax.toDecimal(lot.proceeds - lot.basis),
      term: lot.longTerm ? ('long' as const) : ('short' as const),
    })),
  }))
  const income = report.income.map((entry) => ({
    type: 'income' as const,
    index: entry.index,
    asset: entry.asset,
    time: time(entry.time),
    amount: Tax.toDecimal(entry.amount),
    usd: Tax.toDecimal(entry.usd),
  }))
  return [...disposals, ...income].sort((a, b) => a.time.localeCompare(b.time) || a.index - b.index)
}
