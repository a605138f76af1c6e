import { afterAll, describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory } from '../../adapters/store/memory.js'
import { parse } from '../../app/config.js'
import { terms } from '../../app/terms.js'
import { faultyNode } from '../support/faults.js'
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
    { depositor: payer.address, beneficiary: privateKeyToAccount(generatePrivateKey()).address, token: 'USDC', amount: '1000' },
    payer,
  )
  expect(response.status).toBe(200)
  return ((await response.json()) as { escrow: { id: string } }).escrow.id
}

describe('a chain node that fails', () => {
  const calls = {
    'rpc/call': () => gateway.paid('POST', '/api/v1/rpc/call', { chain: 'faulty', method: 'eth_blockNumber' }, payer),
    'invoice/create': () => gateway.paid('POST', '/api/v1/invoice/create', { creator: payer.address, token: 'USDC', amount: '5' }, payer),
    'escrow/fund': async () => gateway.paid('POST', '/api/v1/escrow/fund', { escrowId: await escrow() }, payer),
  }

  test.each(Object.keys(calls))('error: %s against a node that does not answer in time is a 504 upstream_timeout, not charged', async (name) => {
    node.state.mode = 'hang'
    const before = settled.length
    const response = await calls[name as keyof typeof calls]()
    const refused = await problem(response)
    expect({ status: response.status, code: refused.code }).toEqual({ status: 504, code: 'upstream_timeout' })
    // Only the escrow's own creation was paid for.
    expect(settled.length - before).toBe(name === 'escrow/fund' ? 1 : 0)
  })

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
