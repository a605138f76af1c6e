import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http'
import type { Address, Hash, LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as Idempotency from '../../../app/payment/idempotency.js'
import * as Catalog from '../../../core/Catalog.js'
import type { Facilitator } from '../../../core/Facilitator.js'
import * as Price from '../../../core/Price.js'
import { gatewayDatabases } from '../../support/backends.js'
import { origin, paidGateway } from '../../support/paid.js'

/** What the tests make the chain do at settlement. */
const chain = {
  /** Holds every settlement this long before it goes out, in ms. */
  delayMs: 0,
  /** Sends the settlement, then throws as a dropped connection would. */
  dropAfterSend: false,
  /** Refuses the settlement outright (nothing sent). */
  refuse: false,
}

let gateway: Awaited<ReturnType<typeof paidGateway>>
/** What each new payer starts with, in atomic USDC: many calls' worth. */
const funds = 1_000_000n

beforeAll(async () => {
  gateway = await paidGateway({
    env: { SETTLEMENT_TIMEOUT_MS: '1000' },
    facilitator: (real): Facilitator => ({
      ...real,
      async settle(parameters) {
        if (chain.refuse) return { ok: false, reason: 'settlement_failed', message: 'refused by the test chain' }
        if (chain.delayMs > 0) await Bun.sleep(chain.delayMs)
        const outcome = await real.settle(parameters)
        if (chain.dropAfterSend) throw new Error('socket hang up')
        return outcome
      },
    }),
  })
})
afterAll(async () => {
  await gateway.close()
})

/** The amount a call to a fixed-price entry costs, in atomic units. */
const amountOf = (entry: Catalog.Entry) => Price.quote({ price: entry.price })
const entryOf = (method: string, path: string) =>
  Catalog.entries.find((entry) => entry.method === method && entry.path === path)!
const chainsEntry = entryOf('GET', '/api/v1/rpc/chains')
const invoiceEntry = entryOf('POST', '/api/v1/invoice/create')

/** A new payer holding exactly `amount` atomic USDC. */
async function fundedPayer(amount: bigint): Promise<LocalAccount> {
  const payer = privateKeyToAccount(generatePrivateKey())
  await gateway.devnet.fund({ address: payer.address, amount })
  return payer
}

function invoiceRequest(creator: Address, header: string, memo = 'one'): Request {
  return new Request(`${origin}/api/v1/invoice/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
    body: JSON.stringify({ creator, token: 'USDC', amount: '1000', memo }),
  })
}

async function invoicesOf(owner: Address): Promise<unknown[]> {
  return gateway.store.list('invoices', { owner })
}

/** The payer's balance once it reaches `expected` (a settlement still in flight lands), or after 5 s. */
async function balanceReaching(address: Address, expected: bigint): Promise<bigint> {
  for (let round = 0; round < 50; round++) {
    const balance = await gateway.balance(address)
    if (balance === expected) return balance
    await Bun.sleep(100)
  }
  return gateway.balance(address)
}

/** Whether another route answers `method path`: `/x/:id` matches `/x/create`, and is served bare at `/x` too. */
function servedByAnother(method: string, path: string): boolean {
  return Catalog.entries.some((entry) => {
    if (entry.method !== method) return false
    const bare = entry.path.includes('/:') ? `|${entry.path.slice(0, entry.path.indexOf('/:'))}` : ''
    return new RegExp(`^(?:${entry.path.replace(/:[A-Za-z]+/g, '[^/]+')}${bare})$`).test(path)
  })
}

describe('HEAD and foreign methods on paid routes', () => {
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
  const paid = Catalog.entries.filter((entry) => !Catalog.isFree(entry))

  test('security: HEAD on every paid GET route answers the 402 with its headers and no body, and runs nothing', async () => {
    const payer = gateway.account(1)
    const before = await gateway.balance(payer.address)
    for (const entry of paid.filter((candidate) => candidate.method === 'GET')) {
      const path = entry.path.replace(/:[A-Za-z]+/g, 'abc')
      const header = await gateway.presigned({ signer: payer, value: amountOf(entry) })
      for (const headers of [{}, { 'PAYMENT-SIGNATURE': header }] as Record<string, string>[]) {
        const response = await gateway.fetch(new Request(`${origin}${path}`, { method: 'HEAD', headers }))
        const availability = gateway.gateway.availability(entry)
        // An unavailable route answers 501/503 before any payment; an available one the offer.
        // Available: the offer, or a 400 where the placeholder id or a missing parameter is refused before it.
        const expected = availability.available ? [400, 402] : [availability.code === 'not_implemented' ? 501 : 503]
        expect({ route: Catalog.key(entry), status: expected.includes(response.status) }).toEqual({
          route: Catalog.key(entry),
          status: true,
        })
        if (response.status === 402) expect(response.headers.get('payment-required')).toBeTruthy()
        expect(await response.text()).toBe('')
      }
    }
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('security: every method that is not a paid route own answers 405 with Allow (HEAD on GET routes: 402), never 2xx or 500', async () => {
    for (const entry of paid) {
      const path = entry.path.replace(/:[A-Za-z]+/g, 'abc')
      for (const method of methods.filter((candidate) => candidate !== entry.method)) {
        if ((method === 'HEAD' && entry.method === 'GET') || servedByAnother(method === 'HEAD' ? 'GET' : method, path))
          continue
        const response = await gateway.fetch(new Request(`${origin}${path}`, { method }))
        expect({ route: Catalog.key(entry), method, status: response.status }).toEqual({
          route: Catalog.key(entry),
          method,
          status: 405,
        })
        expect(response.headers.get('allow')).toContain(entry.method)
        expect(response.headers.get('content-type')).toBe('application/problem+json')
      }
    }
  })
})

describe('settlement whose outcome is unknown', () => {
  test('behavior: a slow chain answers 503 settlement_pending with the hash; the retry gets the response, charged once', async () => {
    const payer = await fundedPayer(funds)
    const header = await gateway.presigned({ signer: payer, value: amountOf(chainsEntry) })
    const request = () => new Request(`${origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    chain.delayMs = 2_000
    let first: Response
    try {
      first = await gateway.fetch(request())
    } finally {
      chain.delayMs = 0
    }
    expect(first.status).toBe(503)
    expect(first.headers.get('retry-after')).toBe('5')
    const problem = (await first.json()) as { code: string; detail: string }
    expect(problem.code).toBe('settlement_pending')
    expect(problem.detail).not.toContain('Nothing was charged')
    const pending = decodePaymentResponseHeader(first.headers.get('payment-response')!)
    expect(pending).toMatchObject({ success: false, errorReason: 'settlement_pending' })

    expect(await balanceReaching(payer.address, funds - amountOf(chainsEntry))).toBe(funds - amountOf(chainsEntry))
    const retried = await gateway.fetch(request())
    expect(retried.status).toBe(200)
    expect(((await retried.json()) as { chains: unknown[] }).chains.length).toBeGreaterThan(0)
    const receipt = decodePaymentResponseHeader(retried.headers.get('payment-response')!)
    expect(receipt.success).toBe(true)
    const again = await gateway.fetch(request())
    expect(again.status).toBe(200)
    expect(await gateway.balance(payer.address)).toBe(funds - amountOf(chainsEntry))
  })

  test('behavior: a connection dropped after the transaction went out is pending, not "nothing charged"; the retry is served once', async () => {
    const payer = await fundedPayer(funds)
    const header = await gateway.presigned({ signer: payer, value: amountOf(invoiceEntry) })
    chain.dropAfterSend = true
    let first: Response
    try {
      first = await gateway.fetch(invoiceRequest(payer.address, header))
    } finally {
      chain.dropAfterSend = false
    }
    expect(first.status).toBe(503)
    expect(((await first.json()) as { code: string }).code).toBe('settlement_pending')
    const retried = await gateway.fetch(invoiceRequest(payer.address, header))
    expect(retried.status).toBe(200)
    const body = (await retried.json()) as { invoice: { id: string } }
    expect(await invoicesOf(payer.address)).toHaveLength(1)
    expect((await invoicesOf(payer.address))[0]).toMatchObject({ id: body.invoice.id })
    expect(await gateway.balance(payer.address)).toBe(funds - amountOf(invoiceEntry))
  })

  test('security: the same authorization for another request is a replay, refused', async () => {
    const payer = await fundedPayer(funds)
    const header = await gateway.presigned({ signer: payer, value: amountOf(invoiceEntry) })
    expect((await gateway.fetch(invoiceRequest(payer.address, header, 'one'))).status).toBe(200)
    const other = await gateway.fetch(invoiceRequest(payer.address, header, 'two'))
    expect(other.status).toBe(402)
    expect(((await other.json()) as { code: string }).code).toBe('replayed')
    expect(await invoicesOf(payer.address)).toHaveLength(1)
  })
})

describe('idempotency keys', () => {
  /** The header with x402's payment-identifier extension. */
  function withIdentifier(header: string, id: string): string {
    const payload = decodePaymentSignatureHeader(header)
    return encodePaymentSignatureHeader({
      ...payload,
      extensions: { 'payment-identifier': { info: { required: false, id } } },
    })
  }

  test('behavior: the 402 declares payment-identifier', async () => {
    const response = await gateway.fetch(new Request(`${origin}/api/v1/rpc/chains`))
    const required = decodePaymentRequiredHeader(response.headers.get('payment-required')!)
    expect(required.extensions?.['payment-identifier']).toMatchObject({ info: { required: false } })
  })

  test('behavior: x402 payment-identifier: a new authorization with the same id and request gets the kept response, uncharged', async () => {
    const payer = await fundedPayer(funds)
    const id = `pay_${crypto.randomUUID().replaceAll('-', '')}`
    const first = await gateway.fetch(
      invoiceRequest(
        payer.address,
        withIdentifier(await gateway.presigned({ signer: payer, value: amountOf(invoiceEntry) }), id),
      ),
    )
    expect(first.status).toBe(200)
    const firstBody = await first.text()
    const second = await gateway.fetch(
      invoiceRequest(
        payer.address,
        withIdentifier(await gateway.presigned({ signer: payer, value: amountOf(invoiceEntry) }), id),
      ),
    )
    expect(second.status).toBe(200)
    expect(await second.text()).toBe(firstBody)
    expect(await invoicesOf(payer.address)).toHaveLength(1)
    expect(await gateway.balance(payer.address)).toBe(funds - amountOf(invoiceEntry))

    const conflict = await gateway.fetch(
      invoiceRequest(
        payer.address,
        withIdentifier(await gateway.presigned({ signer: payer, value: amountOf(invoiceEntry) }), id),
        'other',
      ),
    )
    expect(conflict.status).toBe(409)
    expect(((await conflict.json()) as { code: string }).code).toBe('idempotency_conflict')
    expect(await gateway.balance(payer.address)).toBe(funds - amountOf(invoiceEntry))
  })

  test('error: a malformed payment-identifier is a 400 naming it, nothing charged', async () => {
    const payer = await fundedPayer(funds)
    const header = withIdentifier(await gateway.presigned({ signer: payer, value: amountOf(chainsEntry) }), 'short')
    const response = await gateway.fetch(
      new Request(`${origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } }),
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as { field: string }).field).toBe('extensions.payment-identifier.info.id')
    expect(await gateway.balance(payer.address)).toBe(funds)
  })

  test('behavior: MPP Idempotency-Key: a retry with a fresh credential gets the kept response, charged once', async () => {
    const payer = await fundedPayer(funds)
    const key = crypto.randomUUID()
    const pay = gateway.mpp(payer)
    const body = JSON.stringify({ creator: payer.address, token: 'USDC', amount: '1000', memo: 'mpp' })
    const send = () =>
      pay(`${origin}/api/v1/invoice/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': `"${key}"` },
        body,
      })
    const first = await send()
    expect(first.status).toBe(200)
    const firstBody = await first.text()
    const second = await send()
    expect(second.status).toBe(200)
    expect(await second.text()).toBe(firstBody)
    expect(second.headers.get('payment-receipt')).toBeTruthy()
    expect(await invoicesOf(payer.address)).toHaveLength(1)
    expect(await gateway.balance(payer.address)).toBe(funds - amountOf(invoiceEntry))
  })
})

describe.each(gatewayDatabases('money'))('claims within the balance, on $name', ({ open }) => {
  test('security: a payer funded for one invoice/create sends 10 at once: one is served, nine refused before the handler, one invoice', async () => {
    const { env, teardown } = await open()
    const own = await paidGateway({ env })
    try {
      const payer = privateKeyToAccount(generatePrivateKey())
      await own.devnet.fund({ address: payer.address, amount: amountOf(invoiceEntry) })
      const headers = await Promise.all(
        Array.from({ length: 10 }, () => own.presigned({ signer: payer, value: amountOf(invoiceEntry) })),
      )
      const responses = await Promise.all(
        headers.map((header) =>
          own.fetch(
            new Request(`${origin}/api/v1/invoice/create`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
              body: JSON.stringify({ creator: payer.address, token: 'USDC', amount: '1000' }),
            }),
          ),
        ),
      )
      expect(responses.map((response) => response.status).sort()).toEqual([200, ...Array(9).fill(402)])
      const codes = await Promise.all(
        responses
          .filter((response) => response.status === 402)
          .map(async (response) => ((await response.json()) as { code: string }).code),
      )
      expect(new Set(codes)).toEqual(new Set(['insufficient_funds']))
      expect(await own.store.list('invoices', { owner: payer.address })).toHaveLength(1)
      expect(await own.balance(payer.address)).toBe(0n)
    } finally {
      await own.close()
      await teardown()
    }
  })
})

describe('claims and balances', () => {
  test('security: a call whose settlement fails keeps no record it wrote', async () => {
    const payer = await fundedPayer(funds)
    chain.refuse = true
    try {
      const response = await gateway.fetch(
        invoiceRequest(payer.address, await gateway.presigned({ signer: payer, value: amountOf(invoiceEntry) })),
      )
      expect(response.status).toBe(402)
      expect(((await response.json()) as { code: string }).code).toBe('settlement_failed')
    } finally {
      chain.refuse = false
    }
    expect(await invoicesOf(payer.address)).toHaveLength(0)
    expect(await gateway.balance(payer.address)).toBe(funds)
  })

  test('behavior: a claim left by a dead process does not block its authorization: the retry is served', async () => {
    const payer = await fundedPayer(funds)
    const header = await gateway.presigned({ signer: payer, value: amountOf(chainsEntry) })
    const { payload } = decodePaymentSignatureHeader(header) as unknown as {
      payload: { authorization: { nonce: Hash } }
    }
    const request = () => new Request(`${origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    const key = { payer: payer.address, nonce: payload.authorization.nonce }
    // What a process killed mid-handler leaves: the claim, under a lease nobody renews.
    await gateway.ledger.claim({
      ...key,
      amount: amountOf(chainsEntry),
      endpoint: Catalog.key(chainsEntry),
      protocol: 'x402-v2',
      authorization: '{}',
      fingerprint: Idempotency.fingerprint({ request: request(), body: undefined }),
      lease: 'lease-of-a-killed-process',
      claimedAt: new Date(),
    })
    const served = await gateway.fetch(request())
    expect(served.status).toBe(200)
    expect((await gateway.ledger.get(key))?.state).toBe('settled')
    expect(await gateway.balance(payer.address)).toBe(funds - amountOf(chainsEntry))
  })

  test('behavior: a retry while the same call is being served is told to come back, not refused', async () => {
    const payer = await fundedPayer(funds)
    const header = await gateway.presigned({ signer: payer, value: amountOf(chainsEntry) })
    const request = () => new Request(`${origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    const responses = await Promise.all(Array.from({ length: 5 }, () => gateway.fetch(request())))
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1)
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true)
    for (const response of responses.filter((candidate) => candidate.status === 503))
      expect(['payment_in_progress', 'settlement_pending']).toContain(
        ((await response.json()) as { code: string }).code,
      )
    expect(await balanceReaching(payer.address, funds - amountOf(chainsEntry))).toBe(funds - amountOf(chainsEntry))
  })
})
