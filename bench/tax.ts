import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sqlite } from '../adapters/store/sqlite.js'
import type * as Tax from '../core/Tax.js'
import * as Service from '../modules/tax/service.js'

// The tax row of `bun run bench`: `tax/calculate`'s work for 10,000 transactions (parse and check, FIFO matching,
// the report stored in the SQLite store `npm start` uses), in ms, against reading the same request body
// (`JSON.parse` of its text), in the same round. Run alone: `bun bench/tax.ts`.

/** Transactions per calculation. */
const count = 10_000

/** `tax/calculate` time for {@link count} transactions over `rounds` rounds, each on a fresh store. */
export async function row(rounds: number) {
  const figures: number[] = []
  const baselines: number[] = []
  const text = JSON.stringify({ transactions: transactions(count) })
  for (let round = 0; round < rounds; round++) {
    const directory = mkdtempSync(join(tmpdir(), 'bench-tax-'))
    const store = sqlite({ path: join(directory, 'store.sqlite') })
    const deps: Service.Deps = { store, prices: undefined, maxTransactions: count, now: Date.now }
    let started = performance.now()
    const body = JSON.parse(text)
    baselines.push(performance.now() - started)
    started = performance.now()
    const { summary } = await Service.calculate(deps, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', body)
    figures.push(performance.now() - started)
    if (summary.totalTransactions !== count) throw new Error(`calculated ${summary.totalTransactions} transactions`)
    await store.close()
    rmSync(directory, { recursive: true, force: true })
  }
  return {
    figure: `tax/calculate of ${count.toLocaleString('en-US')} transactions (3 assets, FIFO, report stored in SQLite)`,
    baseline: 'JSON.parse of the same request body',
    unit: 'ms',
    figures,
    baselines,
    target: { relation: '<=' as const, ratio: 100 },
  }
}

/** Buys, sells, fees and income over three assets, two hours apart, every sell of less than is held. */
function transactions(total: number): Tax.Input[] {
  const held = new Map<string, number>()
  const start = Date.UTC(2021, 0, 1)
  return Array.from({ length: total }, (_, index) => {
    const asset = ['ETH', 'BTC', 'SOL'][index % 3]!
    const time = new Date(start + index * 7_200_000).toISOString()
    const holding = held.get(asset) ?? 0
    const kind =
      holding > 2 && index % 4 === 3 ? (index % 8 === 7 ? 'fee' : 'sell') : index % 10 === 0 ? 'income' : 'buy'
    const amount = kind === 'buy' || kind === 'income' ? 1 + (index % 7) / 4 : holding / 3
    held.set(asset, kind === 'buy' || kind === 'income' ? holding + amount : holding - Number(amount.toFixed(12)))
    const value = (amount * (1000 + (index % 500))).toFixed(6)
    return { kind, asset, amount: amount.toFixed(12), time, usdValue: value, feeUsd: '0.25' }
  })
}

if (import.meta.main) console.log(await row(3))
