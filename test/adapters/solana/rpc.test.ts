import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { solanaRpc } from '../../../adapters/solana/rpc.js'
import { clocked } from '../../support/vendor.js'
import { bonk, solanaRpcStandIn, usdc, wsol } from './stand-ins.js'

const server = solanaRpcStandIn()
afterAll(() => server.stop())
beforeEach(() => {
  server.faults.length = 0
  server.received.length = 0
  server.state.decimals = undefined
})

/** The adapter on the stand-in, with a clock whose sleeps are recorded, not waited. */
function node(options: Partial<solanaRpc.Parameters> = {}) {
  const time = clocked()
  return { time, mints: solanaRpc({ url: server.url, now: time.now, sleep: time.sleep, ...options }) }
}

describe('solanaRpc: decimals', () => {
  test("default: a mint's decimals from getTokenSupply, 9 for wSOL and 6 for USDC", async () => {
    const { mints } = node()
    expect(await mints.decimals(wsol)).toEqual({ ok: true, decimals: 9 })
    expect(await mints.decimals(usdc)).toEqual({ ok: true, decimals: 6 })
    expect(server.received.map((request) => request.route)).toEqual(['POST /', 'POST /'])
    expect(JSON.parse(server.received[1]!.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'getTokenSupply',
      params: [usdc],
    })
  })

  test('behavior: decimals are read once per mint, then kept for a day', async () => {
    const { mints, time } = node()
    await mints.decimals(usdc)
    expect(await mints.decimals(usdc)).toEqual({ ok: true, decimals: 6 })
    expect(server.received).toHaveLength(1)
    time.clock.now += 24 * 60 * 60 * 1_000
    expect(await mints.decimals(usdc)).toEqual({ ok: true, decimals: 6 })
    expect(server.received).toHaveLength(2)
  })

  test("behavior: an account that is not a mint is not_found with the node's message, and is asked again", async () => {
    const { mints } = node()
    const answer = {
      ok: false,
      reason: 'not_found',
      message: 'Invalid param: not a Token mint (JSON-RPC -32602)',
    } as const
    expect(await mints.decimals(bonk)).toEqual(answer)
    expect(await mints.decimals(bonk)).toEqual(answer)
    expect(server.received).toHaveLength(2)
  })

  test('error: a node answering 500 is a failure once its retry is spent, and nothing is kept', async () => {
    const { mints } = node()
    server.faults.push({ status: 500 }, { status: 500 })
    expect(await mints.decimals(usdc)).toMatchObject({ ok: false, status: 500 })
    expect(server.received).toHaveLength(2)
    expect(await mints.decimals(usdc)).toEqual({ ok: true, decimals: 6 })
  })

  test('error: a node that does not answer is a failure', async () => {
    const { mints } = node({ url: 'http://127.0.0.1:9/', retries: 0 })
    expect(await mints.decimals(usdc)).toMatchObject({ ok: false, message: 'The Solana node could not be reached.' })
  })

  test('error: decimals that are not a u8 are a failure, never kept', async () => {
    const { mints } = node()
    server.state.decimals = 6.5
    expect(await mints.decimals(usdc)).toMatchObject({
      ok: false,
      reason: 'failed',
      message: 'The Solana node answered getTokenSupply without readable decimals.',
    })
    server.state.decimals = undefined
    expect(await mints.decimals(usdc)).toEqual({ ok: true, decimals: 6 })
    expect(server.received).toHaveLength(2)
  })
})
