// A second process for the ledger tests: opens the ledger named by its first argument (`sqlite:<file>`, or
// `postgres:<schema>` on DATABASE_URL), answers `ready`, waits until the test closes its stdin (the start signal),
// then claims every nonce of the order file in turn, each for 1 atomic unit and bounded by the balance when one is
// given, and prints the nonces it won as JSON.
import postgresJs from 'postgres'
import type { Address, Hex } from 'viem'
import { postgres } from '../../../adapters/ledger/postgres.js'
import { sqlite } from '../../../adapters/ledger/sqlite.js'

const [backend, payer, order, balance] = process.argv.slice(2) as [string, Address, string, string | undefined]
const nonces = (await Bun.file(order).json()) as Hex[]
const [kind, location] = [backend.slice(0, backend.indexOf(':')), backend.slice(backend.indexOf(':') + 1)]
const client =
  kind === 'postgres'
    ? postgresJs(process.env.DATABASE_URL!, { max: 4, onnotice: () => {}, connection: { search_path: location } })
    : undefined
const ledger = client ? postgres({ sql: client }) : sqlite({ path: location })
// The PostgreSQL ledger migrates at first use: a read makes this process migrate before it says it is ready.
await ledger.get({ payer, nonce: '0x00' })

process.stdout.write('ready\n')
await Bun.stdin.text()

const won: Hex[] = []
for (const nonce of nonces) {
  const result = await ledger.claim({
    payer,
    nonce,
    amount: 1n,
    endpoint: 'GET /fixture',
    protocol: 'x402-v2',
    authorization: '{}',
    fingerprint: 'fixture',
    lease: `fixture-${process.pid}`,
    balance: balance === undefined ? undefined : BigInt(balance),
    claimedAt: new Date(),
  })
  if (result.ok) won.push(nonce)
}
await ledger.close()
await client?.end()
process.stdout.write(`${JSON.stringify(won)}\n`)
