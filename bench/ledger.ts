import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgresJs from 'postgres'
import { getAddress, type Hex, toHex } from 'viem'
import { postgres } from '../adapters/ledger/postgres.js'
import { sqlite } from '../adapters/ledger/sqlite.js'
import { serialize } from '../core/Authorization.js'
import type { Ledger } from '../core/Ledger.js'

// The ledger rows of `bun run bench`: balance-bounded claims per second (the claim every paid call makes, each a
// new authorization of one of 50 payers, 50 in flight) on PostgreSQL (DATABASE_URL, a schema of its own, durable
// commits as the gateway makes them) against the embedded SQLite file, in the same round. Run alone:
// `DATABASE_URL=... bun bench/ledger.ts`.

/** Payers, and claims in flight (one per payer). */
const payers = Array.from({ length: 50 }, (_, index) => getAddress(toHex(index + 1, { size: 20 })))

/** Claims per second on `ledger` for `durationMs`, one worker per payer, each claiming new nonces one at a time. */
async function claimsPerSecond(ledger: Ledger, durationMs: number): Promise<number> {
  let claims = 0
  const lease = 'bench'
  const deadline = performance.now() + durationMs
  const started = performance.now()
  await Promise.all(
    payers.map(async (payer) => {
      while (performance.now() < deadline) {
        const nonce = toHex(crypto.getRandomValues(new Uint8Array(32))) as Hex
        const result = await ledger.claim({
          payer,
          nonce,
          amount: 1_000n,
          endpoint: 'GET /api/v1/rpc/chains',
          protocol: 'x402-v2',
          authorization: serialize({
            from: payer,
            to: payer,
            value: 1_000n,
            validAfter: 0n,
            validBefore: 2n ** 40n,
            nonce,
            signature: `0x${'11'.repeat(65)}`,
          }),
          fingerprint: 'bench',
          lease,
          balance: 10n ** 15n,
          balanceAt: new Date(),
          claimedAt: new Date(),
        })
        if (!result.ok) throw new Error(`A bench claim was refused: ${result.reason}.`)
        claims++
      }
    }),
  )
  return claims / ((performance.now() - started) / 1000)
}

/** Runs `task` with a one-connection client on `url`, then closes it. */
export async function withPostgres<result>(
  url: string,
  task: (sql: postgresJs.Sql) => Promise<result>,
): Promise<result> {
  const sql = postgresJs(url, { max: 1, onnotice: () => {} })
  try {
    return await task(sql)
  } finally {
    await sql.end()
  }
}

/** Claims/s on PostgreSQL and on SQLite in each of `rounds` rounds; `undefined` without DATABASE_URL. */
export async function rounds(parameters: { rounds: number; durationMs: number }) {
  const url = process.env.DATABASE_URL
  if (!url) return undefined
  const schema = `bench_ledger_${Date.now()}`
  await withPostgres(url, (admin) => admin.unsafe(`CREATE SCHEMA ${schema}`))
  const sql = postgresJs(url, { max: 10, onnotice: () => {}, connection: { search_path: schema } })
  const directory = mkdtempSync(join(tmpdir(), 'bench-ledger-'))
  const onPostgres = postgres({ sql })
  const onSqlite = sqlite({ path: join(directory, 'ledger.sqlite') })
  try {
    // Warm-up: migrations, prepared statements, the file's pages.
    await claimsPerSecond(onPostgres, 500)
    await claimsPerSecond(onSqlite, 500)
    const results: { postgres: number; sqlite: number }[] = []
    for (let round = 0; round < parameters.rounds; round++)
      results.push({
        postgres: await claimsPerSecond(onPostgres, parameters.durationMs),
        sqlite: await claimsPerSecond(onSqlite, parameters.durationMs),
      })
    return results
  } finally {
    await onPostgres.close()
    await onSqlite.close()
    await sql.end()
    await withPostgres(url, (admin) => admin.unsafe(`DROP SCHEMA ${schema} CASCADE`))
    rmSync(directory, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const results = await rounds({ rounds: 3, durationMs: 3_000 })
  if (!results) throw new Error('Set DATABASE_URL to a PostgreSQL database to compare the ledgers.')
  for (const { postgres, sqlite } of results)
    process.stdout.write(`claims/s: PostgreSQL ${postgres.toFixed(0)}, SQLite ${sqlite.toFixed(0)}\n`)
}
