import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  decodeFunctionData,
  formatEther,
  formatGwei,
  formatUnits,
  type Hex,
  numberToHex,
  parseAbi,
  parseTransaction,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type * as Rpc from '../../core/Rpc.js'
import * as Service from '../../modules/chaindata/service.js'
import { feedSetter } from '../support/feeds.js'
import { paidGateway } from '../support/paid.js'

/** The L1 data fee the stand-in's GasPriceOracle answers, in wei. */
const l1Fee = 41_234_567_890n

/** What the stand-in's GasPriceOracle was asked to price, decoded. */
const priced: ReturnType<typeof parseTransaction>[] = []

/** `getL1Fee(bytes)` of an OP-stack GasPriceOracle predeploy, as the stand-in answers it. */
function l1FeeOf(call: { to?: string; data?: Hex }) {
  if (call.to?.toLowerCase() !== '0x420000000000000000000000000000000000000f') return undefined
  const { args } = decodeFunctionData({
    abi: parseAbi(['function getL1Fee(bytes data) view returns (uint256)']),
    data: call.data!,
  })
  priced.push(parseTransaction(args[0]))
  return numberToHex(l1Fee, { size: 32 })
}

/** A JSON-RPC node stand-in answering in the node's shapes, counting the calls per method. */
function standIn(parameters: { timestamp: () => number }) {
  const calls: Record<string, number> = {}
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const { id, method, params } = (await request.json()) as { id: number; method: string; params: unknown[] }
      calls[method] = (calls[method] ?? 0) + 1
      const result =
        method === 'eth_feeHistory'
          ? {
              oldestBlock: '0x64',
              baseFeePerGas: [...Array.from({ length: 20 }, () => '0x3b9aca00'), '0x77359400'],
              gasUsedRatio: Array.from({ length: 20 }, () => 0.5),
              reward: Array.from({ length: 20 }, (_, index) => [
                index % 2 === 0 ? '0x1' : '0x3',
                '0x3b9aca00',
                '0x77359400',
              ]),
            }
          : method === 'eth_getBlockByNumber'
            ? { number: '0x77', timestamp: `0x${parameters.timestamp().toString(16)}`, hash: `0x${'ab'.repeat(32)}` }
            : method === 'eth_getTransactionCount'
              ? params[1] === 'pending'
                ? '0x8'
                : '0x7'
              : method === 'eth_call'
                ? l1FeeOf(params[0] as { to?: string; data?: Hex })
                : undefined
      if (result === undefined)
        return Response.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'method not found' } })
      return Response.json({ jsonrpc: '2.0', id, result })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) }
}

/** A local port nothing listens on. */
async function closedPort() {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const url = `http://127.0.0.1:${server.port}`
  await server.stop(true)
  return url
}

const now = () => Math.floor(Date.now() / 1000)
let stale = false
const live = standIn({ timestamp: now })
const old = standIn({ timestamp: () => (stale ? now() - 3_600 : now()) })
let gateway: Awaited<ReturnType<typeof paidGateway>>
let dead: string

beforeAll(async () => {
  dead = await closedPort()
  gateway = await paidGateway({
    env: {
      CHAIN_RPC_ETHEREUM: live.url,
      CHAIN_RPC_ARBITRUM: live.url,
      CHAIN_RPC_POLYGON: old.url,
      CHAIN_RPC_OPTIMISM: live.url,
      CHAIN_RPC_AVALANCHE: live.url,
      CHAIN_RPC_BSC: dead,
    },
  })
})
afterAll(async () => {
  await gateway.close()
  live.stop()
  old.stop()
})

const names = ['base', 'ethereum', 'arbitrum', 'polygon', 'optimism', 'avalanche', 'bsc']

describe('GET /free/gas', () => {
  test('default: every chain answered independently, the dead one reported unavailable with its reason', async () => {
    const response = await gateway.fetch('http://gateway.test/free/gas')
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(Object.keys(body.gas)).toEqual(names)
    expect(body.percentiles).toEqual({ slow: 10, standard: 50, fast: 90 })
    expect(body.blocks).toBe(20)
    // The devnet, read in process as `base`.
    expect(body.gas.base).toMatchObject({ chain: 'base', available: true, chainId: gateway.devnet.chainId })
    expect(BigInt(body.gas.base.baseFeePerGas.wei)).toBeGreaterThan(0n)
    expect(body.gas.ethereum).toEqual({
      chain: 'ethereum',
      name: 'Ethereum',
      chainId: 1,
      available: true,
      block: '119',
      baseFeePerGas: { wei: '2000000000', gwei: '2' },
      // The original gateway's gas price: the next base fee (2 gwei) plus the standard tip (1 gwei).
      gasPriceWei: '3000000000',
      gasPriceGwei: 3,
      slow: {
        maxPriorityFeePerGas: { wei: '2', gwei: '0.000000002' },
        maxFeePerGas: { wei: '4000000002', gwei: '4.000000002' },
      },
      standard: {
        maxPriorityFeePerGas: { wei: '1000000000', gwei: '1' },
        maxFeePerGas: { wei: '5000000000', gwei: '5' },
      },
      fast: { maxPriorityFeePerGas: { wei: '2000000000', gwei: '2' }, maxFeePerGas: { wei: '6000000000', gwei: '6' } },
    })
    expect(body.gas.bsc).toMatchObject({ chain: 'bsc', chainId: 56, available: false })
    expect(body.gas.bsc.reason).toContain('could not be reached')
    expect(body.gas.bsc.reason).not.toContain(dead)
  })

  test('behavior: an OP-stack chain adds the L1 data fee of a typical transfer, priced by its GasPriceOracle', async () => {
    const body = (await (await gateway.fetch('http://gateway.test/free/gas')).json()) as any
    expect(body.gas.optimism.l1DataFee).toEqual({
      available: true,
      transaction: 'ERC-20 transfer',
      wei: '41234567890',
      gwei: '41.23456789',
    })
    // The oracle priced an unsigned EIP-1559 ERC-20 transfer for Optimism's chain id.
    const transaction = priced.at(-1)!
    expect(transaction).toMatchObject({ type: 'eip1559', chainId: 10 })
    expect(transaction.data?.slice(0, 10)).toBe('0xa9059cbb')
    // The devnet standing in for Base has no predeploy, and says so; chains off the OP stack carry no such field.
    expect(body.gas.base.l1DataFee).toEqual({ available: false, reason: expect.stringContaining('not an OP-stack') })
    expect(body.gas.arbitrum.l1DataFee).toBeUndefined()
  })

  test('behavior: a second call within 15 s is the cached answer, with its age, and reaches no node', async () => {
    const before = live.calls.eth_feeHistory ?? 0
    const first = (await (await gateway.fetch('http://gateway.test/free/gas')).json()) as any
    const second = (await (await gateway.fetch('http://gateway.test/free/gas')).json()) as any
    expect(second.cached).toBe(true)
    expect(second.age).toBeGreaterThanOrEqual(0)
    expect(second.updatedAt).toBe(first.updatedAt)
    expect(second.gas).toEqual(first.gas)
    expect(live.calls.eth_feeHistory ?? 0).toBeLessThanOrEqual(before + 4)
    const after = live.calls.eth_feeHistory
    await gateway.fetch('http://gateway.test/free/gas')
    expect(live.calls.eth_feeHistory).toBe(after)
  })
})

describe('GET /api/v1/oracle/gas', () => {
  test('error: without payment it is a 402 and reaches no node', async () => {
    const response = await gateway.fetch('http://gateway.test/api/v1/oracle/gas')
    expect(response.status).toBe(402)
  })

  test('default: paid through the real flow, it charges exactly 0.005 USDC and answers the gas object', async () => {
    const payer = gateway.account(3)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/oracle/gas')
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(Object.keys(body.chains)).toEqual(names)
    expect(body.chains.ethereum.available).toBe(true)
    expect(body.chains.bsc.available).toBe(false)
    expect(before - (await gateway.balance(payer.address))).toBe(5_000n)
  })

  test("behavior: the original gateway's gas of base, estimates and ethPriceUSD, from the devnet's gas and ETH feed", async () => {
    await feedSetter(gateway)('ETH', '3000')
    const response = await gateway.paid(gateway.account(4), 'GET', '/api/v1/oracle/gas')
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    const base = body.chains.base
    expect(body.gas).toEqual({
      gasPrice: { wei: base.gasPriceWei, gwei: formatGwei(BigInt(base.gasPriceWei)) },
      maxFeePerGas: base.standard.maxFeePerGas,
      maxPriorityFeePerGas: base.standard.maxPriorityFeePerGas,
      baseFee: base.baseFeePerGas,
    })
    expect(body.ethPriceUSD).toBe(3000)
    expect(body.chainId).toBe(gateway.devnet.chainId)
    expect(Object.keys(body.estimates)).toEqual([
      'ethTransfer',
      'erc20Transfer',
      'erc20Approve',
      'uniswapSwap',
      'spraayBatch5',
      'spraayBatch50',
    ])
    const price = BigInt(base.gasPriceWei)
    for (const estimate of Object.values(body.estimates) as any[]) {
      const wei = BigInt(estimate.gasUnits) * price
      expect(estimate.costETH).toBe(formatEther(wei))
      // USD = wei x 3000 / 10^18, in micro-dollars rounded up.
      expect(estimate.costUSD).toBe(formatUnits((wei * 3000n + 10n ** 12n - 1n) / 10n ** 12n, 6))
    }
    expect(body.estimates.ethTransfer.gasUnits).toBe(21_000)
  })
})

describe('GET /free/chain-status', () => {
  test('default: height, latest block age and liveness per chain; the dead chain unavailable', async () => {
    stale = true
    const response = await gateway.fetch('http://gateway.test/free/chain-status')
    stale = false
    expect(response.status).toBe(200)
    const { chains } = (await response.json()) as any
    expect(Object.keys(chains)).toEqual(names)
    expect(chains.base).toMatchObject({ available: true, chainId: gateway.devnet.chainId })
    expect(chains.base.height).toBeGreaterThanOrEqual(0)
    expect(chains.ethereum).toMatchObject({ available: true, height: 119, live: true, liveWithinSeconds: 120 })
    expect(chains.ethereum.latestBlockAge).toBeLessThanOrEqual(5)
    expect(chains.polygon).toMatchObject({ available: true, live: false })
    expect(chains.polygon.latestBlockAge).toBeGreaterThanOrEqual(3_600)
    expect(chains.bsc).toMatchObject({ available: false, live: false })
    expect(chains.bsc.reason).toContain('could not be reached')
  })
})

describe('GET /free/nonce', () => {
  const address = privateKeyToAccount(`0x${'11'.repeat(32)}`).address

  test('default: latest and pending transaction counts from the node, never cached', async () => {
    const before = live.calls.eth_getTransactionCount ?? 0
    for (let round = 0; round < 2; round++) {
      const response = await gateway.fetch(`http://gateway.test/free/nonce?address=${address}&chain=ethereum`)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        chain: 'ethereum',
        name: 'Ethereum',
        chainId: 1,
        address,
        nonce: 7,
        latest: 7,
        pending: 8,
      })
    }
    expect(live.calls.eth_getTransactionCount).toBe(before + 4)
  })

  test('behavior: base reads the devnet; an all-lowercase address is accepted', async () => {
    const payer = gateway.account(1).address
    const response = await gateway.fetch(`http://gateway.test/free/nonce?address=${payer.toLowerCase()}&chain=base`)
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body.address).toBe(payer)
    expect(body.pending).toBeGreaterThanOrEqual(body.latest)
  })

  test("behavior: as the original gateway's clients call it, without a chain it is base, and eth-mainnet is ethereum", async () => {
    const payer = gateway.account(1).address
    const response = await gateway.fetch(`http://gateway.test/free/nonce?address=${payer}`)
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body).toMatchObject({ chain: 'base', chainId: gateway.devnet.chainId })
    expect(body.nonce).toBe(body.latest)
    const spelled = await gateway.fetch(`http://gateway.test/free/nonce?address=${address}&chain=eth-mainnet`)
    expect(await spelled.json()).toMatchObject({ chain: 'ethereum', nonce: 7 })
  })

  test('error: a dead chain is an upstream problem, not a 200', async () => {
    const response = await gateway.fetch(`http://gateway.test/free/nonce?address=${address}&chain=bsc`)
    expect([502, 503, 504]).toContain(response.status)
  })

  const mixed = address.slice(0, 2) + address.slice(2).replace(/[a-f]/, (letter) => letter.toUpperCase())
  const broken = address === mixed ? address.replace(/[A-F]/, (letter) => letter.toLowerCase()) : mixed
  test.each([
    ['address', `address=${broken}&chain=ethereum`],
    ['address', 'address=0x1234&chain=ethereum'],
    ['address', `address=${broken}&chain=nowhere`],
    ['address', 'chain=ethereum'],
    ['chain', `address=${address}&chain=nowhere`],
  ])('error: a bad %s is a 400 naming it, before any node is asked (%s)', async (field, query) => {
    const before = live.calls.eth_getTransactionCount ?? 0
    const response = await gateway.fetch(`http://gateway.test/free/nonce?${query}`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as any).field).toBe(field)
    expect(live.calls.eth_getTransactionCount ?? 0).toBe(before)
  })
})

describe('Service.gas', () => {
  function endpoint(counter: { calls: number }): Rpc.Endpoint {
    return {
      name: 'stand-in',
      chainId: 1,
      request: async (method) => {
        if (method !== 'eth_feeHistory') return { ok: false, reason: 'failed', status: 502, message: 'not served' }
        counter.calls++
        return {
          ok: true,
          result: { oldestBlock: '0x1', baseFeePerGas: ['0x1', '0x2'], reward: [['0x1', '0x2', '0x3']] },
        }
      },
    }
  }

  /** Deps on seven stand-in chains counting their reads, with a clock the test moves. */
  function clocked() {
    const counter = { calls: 0 }
    const clock = { time: 1_000_000 }
    const deps = Service.from({
      settlement: endpoint(counter),
      ethereum: endpoint(counter),
      connect: () => endpoint(counter),
      urls: {},
      now: () => clock.time,
    })
    return { counter, deps, clock }
  }

  test('behavior: cached for 15 s by the clock, then read again', async () => {
    const { counter, deps, clock } = clocked()
    expect((await Service.gas(deps)).cached).toBe(false)
    expect(counter.calls).toBe(7)
    clock.time += 14_999
    expect(await Service.gas(deps)).toMatchObject({ cached: true, age: 14 })
    expect(counter.calls).toBe(7)
    clock.time += 1
    expect((await Service.gas(deps)).cached).toBe(false)
    expect(counter.calls).toBe(14)
  })

  test('behavior: the served response is the answer, byte for byte, cached or read anew', async () => {
    const { counter, deps, clock } = clocked()
    const cached: boolean[] = []
    for (const step of [0, 3_000, 20_000]) {
      clock.time += step
      const served = await Service.gasResponse(deps)
      expect(served.headers.get('content-type')).toBe('application/json;charset=utf-8')
      const text = await served.text()
      cached.push(JSON.parse(text).cached)
      // The answer read right after is the cached one; it differs in that flag alone.
      expect(text).toBe(JSON.stringify({ ...(await Service.gas(deps)), cached: cached.at(-1) }))
    }
    expect(cached).toEqual([false, true, false])
    expect(counter.calls).toBe(14)
  })

  test('error: when no chain answers, the call fails (and a paid call charges nothing)', async () => {
    const down: Rpc.Endpoint = {
      name: 'down',
      chainId: 1,
      request: async () => ({ ok: false, reason: 'failed', status: 502, message: 'down' }),
    }
    const deps = Service.from({ settlement: down, ethereum: down, connect: () => down, urls: {} })
    await expect(Service.gas(deps)).rejects.toThrow('No chain answered eth_feeHistory')
  })
})
