import { afterAll, describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory } from '../../adapters/store/memory.js'
import { parse } from '../../app/config.js'
import { stdout } from '../../app/log.js'
import { terms } from '../../app/terms.js'
import { faultyNode, rpcKey } from '../support/faults.js'
import { stubPayment, testGateway } from '../support/gateway.js'

// Chain and node failures reached from a paid handler: never a 500, never charged.

const node = faultyNode()
afterAll(() => node.stop())
const asset = terms(parse({})).asset.address
const { payment, settled } = stubPayment()
const gateway = testGateway({ store: memory(), onchain: node.onchain(asset), chains: node.chains, payment })
const payer = privateKeyToAccount(generatePrivateKey())

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return (await response.json()) as Record<string, unknown>
}

/** An escrow of `payer`, created while the node still answered nothing it needs to. */
async function escrow() {
  const response = await gateway.paid(
    'POST',
    '/api/v1/escrow/create',
    {
      depositor: payer.address,
      beneficiary: privateKeyToAccount(generatePrivateKey()).address,
      token: 'USDC',
      amount: '1000',
    },
    payer,
  )
  expect(response.status).toBe(200)
  return ((await response.json()) as { escrow: { id: string } }).escrow.id
}

describe('a chain node that fails', () => {
  const calls = {
    'rpc/call': () => gateway.paid('POST', '/api/v1/rpc/call', { chain: 'faulty', method: 'eth_blockNumber' }, payer),
    'invoice/create': () =>
      gateway.paid('POST', '/api/v1/invoice/create', { creator: payer.address, token: 'USDC', amount: '5' }, payer),
    'escrow/fund': async () => gateway.paid('POST', '/api/v1/escrow/fund', { escrowId: await escrow() }, payer),
  }

  test.each(Object.keys(calls))(
    'error: %s against a node that does not answer in time is a 504 upstream_timeout, not charged',
    async (name) => {
      node.state.mode = 'hang'
      const before = settled.length
      const response = await calls[name as keyof typeof calls]()
      const refused = await problem(response)
      expect({ status: response.status, code: refused.code }).toEqual({ status: 504, code: 'upstream_timeout' })
      // Only the escrow's own creation was paid for.
      expect(settled.length - before).toBe(name === 'escrow/fund' ? 1 : 0)
    },
  )

  test.each(Object.keys(calls))('error: %s against a node that answers HTTP 500 is never a 500', async (name) => {
    node.state.mode = 'http_error'
    const response = await calls[name as keyof typeof calls]()
    expect([502, 503]).toContain(response.status)
    expect(JSON.stringify(await problem(response))).not.toContain(node.url)
  })

  test('error: rpc/call against a node that answers HTTP 500 is a 502 upstream_failed', async () => {
    node.state.mode = 'http_error'
    const response = await calls['rpc/call']()
    expect(response.status).toBe(502)
    expect((await problem(response)).code).toBe('upstream_failed')
  })

  test('error: rpc/call to a node that refuses the connection is a 502 upstream_failed', async () => {
    const response = await gateway.paid('POST', '/api/v1/rpc/call', { chain: 'gone', method: 'eth_blockNumber' }, payer)
    expect(response.status).toBe(502)
    const refused = await problem(response)
    expect(refused.code).toBe('upstream_failed')
    expect(JSON.stringify(refused)).not.toContain(node.goneUrl)
  })
})

describe('the log of fault scenarios', () => {
  const marker = 'caller-secret-4f0c9a'
  const lines: string[] = []
  const logger = stdout('debug', (line) => lines.push(line))
  // A chain whose client library quotes its URL and request in its errors, as viem's do.
  const leaky = {
    name: 'leaky',
    chainId: 84532,
    request: async (method: string, params: readonly unknown[]) => {
      throw new Error(`request to ${node.url} failed\nRequest body: ${JSON.stringify({ method, params })}`)
    },
  }
  const { payment } = stubPayment()
  const logged = testGateway({
    store: memory(),
    onchain: node.onchain(asset),
    chains: [...node.chains, leaky],
    payment,
    logger,
  })

  test('security: holds no RPC URL, no request body and no secret, and still names each fault', async () => {
    const rpc = (chain: string) =>
      logged.paid('POST', '/api/v1/rpc/call', { chain, method: 'eth_getBalance', params: [marker] }, payer)
    for (const mode of ['hang', 'http_error'] as const) {
      node.state.mode = mode
      await rpc('faulty')
      await logged.paid(
        'POST',
        '/api/v1/invoice/create',
        { creator: payer.address, token: 'USDC', amount: '5', memo: marker },
        payer,
      )
    }
    await rpc('gone')
    expect((await rpc('leaky')).status).toBe(500)
    await logged.fetch('/api/v1/audit/log', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"action": ${marker}}`,
    })
    await logged.post('/api/v1/auth/session', { address: { toString: 1 }, secret: marker })

    const log = lines.join('')
    for (const leak of [node.url, node.goneUrl, rpcKey, marker]) expect(log).not.toContain(leak)
    const events = lines.map((line) => JSON.parse(line) as { event: string; code?: string })
    expect(events.filter((event) => event.event === 'upstream_fault').map((event) => event.code)).toEqual([
      'upstream_timeout',
      'upstream_timeout',
      'upstream_failed',
      'upstream_unavailable',
      'upstream_failed',
    ])
    expect(events.filter((event) => event.event === 'unhandled_error')).toHaveLength(1)
  })
})
