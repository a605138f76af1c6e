import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { privateKeyToAccount } from 'viem/accounts'
import { account } from '../../adapters/chain/devnet.js'
import { check } from '../../app/client-types.js'
import { ClientError, createClient } from '../../client/index.js'
import { origin, paidGateway } from '../support/paid.js'

// Devnet account #4 pays: funded with USDC at genesis.
const payer = privateKeyToAccount(account({ index: 4 }).privateKey)
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway()
})
afterAll(async () => {
  await gateway?.close()
})

/** The gateway in process, with every request it was sent. */
function recorded(answer?: (request: Request, forwarded: () => Promise<Response>) => Promise<Response>) {
  const requests: Request[] = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    requests.push(request.clone())
    const forwarded = () => gateway.fetch(request)
    return answer ? answer(request, forwarded) : forwarded()
  }) as typeof globalThis.fetch
  return { fetch, requests }
}

const paymentOf = (request: Request) => request.headers.get('payment-signature') ?? request.headers.get('authorization')

describe('createClient', () => {
  test('default: pays a call with x402, answers the data with its receipt, costs exactly the price', async () => {
    const { fetch, requests } = recorded()
    const client = createClient({ url: origin, account: payer, fetch })
    const before = await gateway.balance(payer.address)
    const answer = await client.call('GET /api/v1/rpc/chains')
    expect(answer.status).toBe(200)
    expect(answer.data).toMatchObject({ chains: [{ key: 'devnet' }] })
    expect(answer.receipt).toMatchObject({ protocol: 'x402', payer: payer.address, network: 'eip155:84532' })
    expect(answer.paid).toBe(1000n)
    expect(client.spent()).toBe(1000n)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({
      hash: answer.receipt!.transaction as `0x${string}`,
    })
    expect(receipt.status).toBe('success')
    const paid = requests.filter((request) => paymentOf(request))
    expect(paid).toHaveLength(1)
    expect(paid[0]!.headers.get('idempotency-key')).toBe(answer.idempotencyKey)
  })

  test('behavior: pays with MPP, with a body, path built from the endpoint', async () => {
    const client = createClient({ url: origin, account: payer, fetch: gateway.fetch, protocol: 'mpp' })
    const before = await gateway.balance(payer.address)
    const answer = await client.call('POST /api/v1/rpc/call', {
      body: { chain: 'devnet', method: 'eth_chainId', params: [] },
    })
    expect(answer.status).toBe(200)
    expect(answer.data.result).toBe('0x14a34')
    expect(answer.receipt?.protocol).toBe('mpp')
    expect(answer.paid).toBe(1000n)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
  })

  test('behavior: carries the idempotency key it is given, and a fresh one per call otherwise', async () => {
    const { fetch, requests } = recorded()
    const client = createClient({ url: origin, account: payer, fetch })
    const given = await client.call('GET /api/v1/rpc/chains', { idempotencyKey: 'agent-call-0001' })
    const fresh = await client.call('GET /api/v1/rpc/chains')
    expect(given.idempotencyKey).toBe('agent-call-0001')
    expect(fresh.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
    const keys = requests
      .filter((request) => paymentOf(request))
      .map((request) => request.headers.get('idempotency-key'))
    expect(keys).toEqual(['agent-call-0001', fresh.idempotencyKey])
  })

  test('behavior: a 503 settlement_pending is sent again with the same payment, charged once', async () => {
    let pending = true
    const { fetch, requests } = recorded(async (request, forwarded) => {
      const response = await forwarded()
      if (!paymentOf(request) || !pending) return response
      pending = false
      // The stand-in loses the answer of a call the gateway settled, as a slow chain would: 503 once.
      return Response.json(
        { type: 'about:blank', title: 'Settlement pending', status: 503, code: 'settlement_pending' },
        { status: 503, headers: { 'retry-after': '0', 'content-type': 'application/problem+json' } },
      )
    })
    const client = createClient({ url: origin, account: payer, fetch })
    const before = await gateway.balance(payer.address)
    const answer = await client.call('GET /api/v1/rpc/chains')
    expect(answer.status).toBe(200)
    expect(answer.receipt?.protocol).toBe('x402')
    const paid = requests.filter((request) => paymentOf(request)).map(paymentOf)
    expect(paid).toHaveLength(2)
    expect(paid[1]).toBe(paid[0]!)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
  })

  test('error: a call above maxPerCall is refused before signing and costs nothing', async () => {
    for (const protocol of ['x402', 'mpp'] as const) {
      const { fetch, requests } = recorded()
      const client = createClient({ url: origin, account: payer, fetch, protocol, maxPerCall: 999n })
      const before = await gateway.balance(payer.address)
      const refused = await client.call('GET /api/v1/rpc/chains').catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(ClientError)
      expect(refused).toMatchObject({ code: 'max_per_call', amount: 1000n })
      expect(requests.filter((request) => paymentOf(request))).toEqual([])
      expect(client.spent()).toBe(0n)
      expect(await gateway.balance(payer.address)).toBe(before)
    }
  })

  test('error: a call past the budget is refused before signing; the calls within it are paid', async () => {
    const { fetch, requests } = recorded()
    const client = createClient({ url: origin, account: payer, fetch, budget: 2500n })
    const before = await gateway.balance(payer.address)
    await client.call('GET /api/v1/rpc/chains')
    await client.call('GET /api/v1/rpc/chains')
    const refused = await client.call('GET /api/v1/rpc/chains').catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'budget', amount: 1000n })
    expect(requests.filter((request) => paymentOf(request))).toHaveLength(2)
    expect(client.spent()).toBe(2000n)
    expect(await gateway.balance(payer.address)).toBe(before - 2000n)
  })

  test("behavior: the original gateway's path of an endpoint answers as the endpoint", async () => {
    const client = createClient({ url: origin, account: payer, fetch: gateway.fetch })
    const [alias, canonical] = await Promise.all([
      client.call('GET /bittensor/v1/models'),
      client.call('GET /decentralized/v1/models'),
    ])
    expect(alias.status).toBe(canonical.status)
    expect(alias.paid).toBe(canonical.paid)
    expect((alias.data as { code?: string }).code).toBe((canonical.data as { code?: string }).code)
  })
})

describe('client/endpoints.ts', () => {
  test('behavior: is the catalog, as `bun app/client-types.ts` writes it', () => {
    const problem = check()
    if (problem) console.error(problem)
    expect(problem).toBeUndefined()
  })
})
