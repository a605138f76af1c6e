// A second process for the sqlite ledger test: opens the file, answers `ready`, waits until the test closes its
// stdin (the start signal), then claims every nonce of the order file in turn and prints the nonces it won as JSON.
import type { Address, Hex } from 'viem'
import { sqlite } from '../../../adapters/ledger/sqlite.js'

const [path, payer, order] = process.argv.slice(2) as [string, Address, string]
const nonces = (await Bun.file(order).json()) as Hex[]
const ledger = sqlite({ path })

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
    claimedAt: new Date(),
  })
  if (result.ok) won.push(nonce)
}
await ledger.close()
process.stdout.write(`${JSON.stringify(won)}\n`)
