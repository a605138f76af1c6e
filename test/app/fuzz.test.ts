import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { memory } from '../../adapters/store/memory.js'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import { type Case, cases, filler } from '../support/fuzz.js'
import type { Onchain } from '../support/gateway.js'
import { testGateway } from '../support/gateway.js'
import { origin, paidGateway } from '../support/paid.js'

// Every route of the catalog against the bounded schema fuzzer, without and with payments. Invariants: no 5xx but the
// deliberate 501-504, every request answered, no problem repeats a long caller string, and with payments the USDC
// the payee received on chain is exactly the price of the calls that were served.

/** The amount a call to a fixed-price entry costs, in atomic units. */
const amountOf = (entry: Catalog.Entry) => Price.quote({ price: entry.price })

/** An answer slower than this is reported as a hang (a generous bound for a loaded machine, not a timing check). */
const hangMs = 20_000

/** The devnet's funded account #1 pays; #2 is the other party. */
const parties = {
  payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  other: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
} as const

/** Sends one case and reads the whole answer, or reports a hang. */
async function answer(
  handle: (request: Request) => Promise<Response>,
  fuzz: Case,
  headers: Record<string, string> = {},
) {
  const request = new Request(`${origin}${fuzz.path}`, {
    method: fuzz.method,
    headers: { ...headers, ...(fuzz.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(fuzz.body === undefined ? {} : { body: fuzz.body }),
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer')), hangMs)
  })
  try {
    return await Promise.race([
      (async () => {
        const response = await handle(request)
        return { status: response.status, headers: response.headers, text: await response.text() }
      })(),
      hung,
    ])
  } catch (error) {
    return { status: 0, headers: new Headers(), text: String(error) }
  } finally {
    clearTimeout(timer)
  }
}

/** What is wrong with one answer, if anything. */
function violation(answered: { status: number; headers: Headers; text: string }): string | undefined {
  if (answered.status === 0) return `hang or fault: ${answered.text}`
  if (answered.status >= 500 && ![501, 502, 503, 504].includes(answered.status))
    return `status ${answered.status}: ${answered.text.slice(0, 300)}`
  if (answered.status >= 400 && answered.text.includes(filler.repeat(40)))
    return `status ${answered.status} repeats a long caller string`
  return undefined
}

describe('schema fuzzer', () => {
  test('behavior: the cases are deterministic and bounded', () => {
    for (const entry of Catalog.entries) {
      const first = cases(entry, parties)
      expect(first.length).toBeLessThanOrEqual(30)
      expect(cases(entry, parties)).toEqual(first)
    }
  })

  test('without payments: every route answers every case, never with an unexpected 5xx', async () => {
    // The stateful modules mounted, so their validation runs; the chain stand-in is never reached (no call is paid).
    const onchain: Onchain = {
      chainId: 84532,
      transfers: { find: async () => [], blockNumber: async () => 0n },
      escrow: { read: async () => undefined, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', chainId: 84532 },
      tokens: [{ symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 }],
    }
    const gateway = testGateway({ store: memory(), onchain })
    const failures: string[] = []
    let sent = 0
    for (const entry of Catalog.entries)
      for (const fuzz of cases(entry, parties)) {
        const problem = violation(await answer(gateway.handle, fuzz))
        sent++
        if (problem) failures.push(`${fuzz.method} ${fuzz.path.slice(0, 80)} (${fuzz.name}): ${problem}`)
      }
    expect(failures).toEqual([])
    expect(sent).toBeGreaterThan(Catalog.entries.length * 5)
  }, 60_000)

  describe('with payments, on the devnet', () => {
    let gateway: Awaited<ReturnType<typeof paidGateway>>
    beforeAll(async () => {
      gateway = await paidGateway()
    })
    afterAll(async () => {
      await gateway.close()
    })

    test('behavior: no unexpected 5xx, and the payee receives exactly the price of the calls served', async () => {
      const payer = gateway.account(1)
      expect(payer.address).toBe(parties.payer)
      const payeeBefore = await gateway.balance(gateway.terms.payTo)
      const failures: string[] = []
      let owed = 0n
      let served = 0
      for (const entry of Catalog.entries) {
        const available = gateway.gateway.availability(entry).available
        const paid = !Catalog.isFree(entry) && entry.price.type === 'fixed'
        // Every case on the routes that can run; a few on the others, to see that nothing is charged there.
        for (const fuzz of cases(entry, parties, { limit: available ? 30 : 3 })) {
          const headers: Record<string, string> = paid
            ? { 'PAYMENT-SIGNATURE': await gateway.presigned({ signer: payer, value: amountOf(entry) }) }
            : {}
          const answered = await answer(gateway.gateway.handle, fuzz, headers)
          const problem = violation(answered)
          if (problem) failures.push(`${fuzz.method} ${fuzz.path.slice(0, 80)} (${fuzz.name}): ${problem}`)
          if (!paid || answered.status < 200 || answered.status >= 300) continue
          if (!answered.headers.get('payment-response'))
            failures.push(`${fuzz.method} ${fuzz.path.slice(0, 80)} (${fuzz.name}): served without a receipt`)
          owed += amountOf(entry)
          served++
        }
      }
      expect(failures).toEqual([])
      expect(served).toBeGreaterThan(10)
      expect((await gateway.balance(gateway.terms.payTo)) - payeeBefore).toBe(owed)
    }, 120_000)
  })
})
