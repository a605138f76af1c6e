import { describe, expect, test } from 'bun:test'
import type * as Rpc from '../../core/Rpc.js'
import * as rpc from '../../modules/rpc/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers } from '../support/module.js'

/** A node on Base that answers every call with block 0x10, and records what it was asked. */
function baseNode() {
  const asked: { method: string; params: readonly unknown[] }[] = []
  const node: Rpc.Endpoint = {
    name: 'base',
    chainId: 8453,
    request: async (method, params) => {
      asked.push({ method, params })
      return { ok: true, result: '0x10' }
    },
  }
  return { node, asked }
}

describe('POST /api/v1/rpc/call', () => {
  test("behavior: called as the original gateway's clients call it, it answers chain, chainId and method beside result", async () => {
    const { node, asked } = baseNode()
    const gateway = moduleGateway(rpc.manifest, { ports: { chains: [node] }, payer: payers.alice })
    const body = await ok(await gateway.post('/api/v1/rpc/call', { chain: 'base', method: 'eth_blockNumber' }))
    expect(body).toEqual({
      jsonrpc: '2.0',
      chain: 'base',
      chainId: 8453,
      method: 'eth_blockNumber',
      result: '0x10',
      error: null,
    })
    expect(asked).toEqual([{ method: 'eth_blockNumber', params: [] }])
    expect(gateway.settled).toHaveLength(1)
  })

  test("behavior: on the devnet, the original gateway's base (any spelling) is the settlement chain", async () => {
    const devnet: Rpc.Endpoint = {
      name: 'devnet',
      chainId: 84532,
      request: async () => ({ ok: true, result: '0x20' }),
    }
    const gateway = moduleGateway(rpc.manifest, { ports: { chains: [devnet] }, payer: payers.alice })
    for (const chain of ['devnet', 'base', 'base-mainnet'])
      expect(await ok(await gateway.post('/api/v1/rpc/call', { chain, method: 'eth_blockNumber' }))).toMatchObject({
        chain: 'devnet',
        chainId: 84532,
        result: '0x20',
      })
    const unknown = await gateway.post('/api/v1/rpc/call', { chain: 'ethereum', method: 'eth_blockNumber' })
    expect({ status: unknown.status, field: (await unknown.json()).field }).toEqual({ status: 400, field: 'chain' })
    expect(gateway.settled).toHaveLength(3)
  })
})

describe('GET /api/v1/rpc/chains', () => {
  test("behavior: each chain carries key, the name rpc/call takes, as the original gateway's list does", async () => {
    const { node } = baseNode()
    const gateway = moduleGateway(rpc.manifest, { ports: { chains: [node] }, payer: payers.alice })
    const body = await ok(await gateway.get('/api/v1/rpc/chains'))
    expect(body.chains).toEqual([{ key: 'base', name: 'base', chainId: 8453, network: 'eip155:8453' }])
  })
})
