import { describe, expect, test } from 'bun:test'
import { memory } from '../../adapters/store/memory.js'
import type { Onchain } from '../../app/modules.js'
import { testGateway } from '../support/gateway.js'

// Input rules the gateway applies to every route, before any module hook and before any payment is asked for.

const token = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
/** A settlement chain that is never reached: every case here is refused before a handler runs. */
const onchain: Onchain = {
  chainId: 84532,
  transfers: { find: async () => [], blockNumber: async () => 0n },
  escrow: { read: async () => undefined, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', chainId: 84532 },
  tokens: [{ symbol: 'USDC', address: token, decimals: 6 }],
}
const gateway = testGateway({ store: memory(), onchain })
const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return (await response.json()) as Record<string, unknown>
}

describe('a value that cannot be turned into a string', () => {
  const poisoned = { toString: 1 }
  test.each([
    ['/api/v1/escrow/create', { depositor: poisoned, beneficiary: address, token: 'USDC', amount: '1' }, 'depositor'],
    ['/api/v1/escrow/fund', { escrowId: poisoned }, 'escrowId'],
    ['/api/v1/invoice/create', { creator: address, token: poisoned, amount: '1' }, 'token'],
    ['/api/v1/auth/session', { address: poisoned }, 'address'],
    ['/api/v1/audit/log', { action: poisoned, actor: address, resource: 'invoice:1' }, 'action'],
    ['/api/v1/audit/log', { action: 5, actor: address, resource: { toString: {} } }, 'action'],
  ])('error: in a string field of %s is a 400 naming the field, never a 500', async (path, body, field) => {
    const response = await gateway.post(path, body)
    expect(response.status).toBe(400)
    const refused = await problem(response)
    expect(refused.code).toBe('validation_failed')
    expect(refused.field).toBe(field)
  })

  test('behavior: inside a field that takes any JSON object it is accepted as data', async () => {
    // Audit details take any object: the entry is valid, so the only refusal left is the missing payment setup.
    const response = await gateway.post('/api/v1/audit/log', { action: 'a', actor: address, resource: 'r', details: { toString: 1 } })
    expect(response.status).toBe(503)
  })
})
