import { type Address, bytesToHex, getAddress } from 'viem'
import { BadRequestError, NotFoundError, ValidationError } from '../../core/Errors.js'
import type { HistoricalPrices } from '../../core/HistoricalPrice.js'
import type { Store } from '../../core/Store.js'
import * as Tax from '../../core/Tax.js'
import * as Upstream from '../../core/Upstream.js'
import type { CalculateBody } from './schema.js'

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

/** The transactions of a calculate body, parsed, checked and sorted; a 400 naming index and field otherwise. */
export function parse(deps: Deps, body: CalculateBody): Tax.Transaction[] {
  if (body.transactions.length > deps.maxTransactions)
    throw new ValidationError({
      field: 'transactions',
      message: `${body.transactions.length} transactions; one calculation takes at most ${deps.maxTransactions}`,
    })
  return Tax.parse(body.transactions)
}

/**
 * Calculates gains by the chosen method and stores the report as the caller's. Transactions without a USD value
 * are priced from the historical price source, each price recorded with its source; when any cannot be priced the
 * call fails naming every such transaction (nothing is charged, nothing is assumed zero): a 400 when the source has
 * no price for it, the upstream's error when the source failed.
 */
export async function calculate(deps: Deps, caller: Address, body: CalculateBody) {
  const transactions = parse(deps, body)
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
  const reportId = `tax_${bytesToHex(crypto.getRandomValues(new Uint8Array(16))).slice(2)}`
  const summary = summaryOf(report, transactions.length)
  const value: Stored = {
    reportId,
    createdAt: new Date(deps.now()).toISOString(),
    summary,
    events: eventsOf(report),
    prices,
  }
  await deps.store.insert<Stored>({
    collection: reportsCollection,
    id: reportId,
    owners: [getAddress(caller)],
    value,
    createdAt: new Date(deps.now()),
  })
  return { reportId, summary, prices }
}

/** The events of the caller's report; someone else's is a 404. */
export async function report(deps: Deps, caller: Address, reportId: string) {
  const record = await deps.store.get<Stored>(reportsCollection, reportId)
  if (!record?.owners.includes(getAddress(caller))) throw new NotFoundError(`No tax report ${reportId} of yours.`)
  const { events, summary, prices, createdAt } = record.value
  return { reportId, createdAt, summary, events, total: events.length, prices }
}

/** A report as stored. */
type Stored = {
  reportId: string
  createdAt: string
  summary: ReturnType<typeof summaryOf>
  events: ReturnType<typeof eventsOf>
  prices: PriceUsed[]
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
