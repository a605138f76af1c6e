import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createWalletClient,
  decodeFunctionData,
  encodeFunctionResult,
  erc20Abi,
  type Hex,
  numberToHex,
  parseAbi,
  parseEther,
  parseUnits,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { contracts } from '../../adapters/chain/devnet.js'
import * as TokenList from '../../core/TokenList.js'
import { paidGateway } from '../support/paid.js'

const multicallAbi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'function aggregate3(Call3[] calls) payable returns ((bool success, bytes returnData)[])',
])

/** An Ethereum node stand-in answering `aggregate3` eth_calls: 2 ETH, token i holds i+1 whole units, USDT fails. */
function ethereumStandIn() {
  const calls: Record<string, number> = {}
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const { id, method, params } = (await request.json()) as { id: number; method: string; params: unknown[] }
      calls[method] = (calls[method] ?? 0) + 1
      if (method !== 'eth_call')
        return Response.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'method not found' } })
      const { data } = params[0] as { data: Hex }
      const { args } = decodeFunctionData({ abi: multicallAbi, data })
      const results = args[0].map((call, index) => {
        if (index === 0) return { success: true, returnData: numberToHex(parseEther('2'), { size: 32 }) }
        const token = TokenList.ethereum[index - 1]!
        if (token.symbol === 'USDT') return { success: false, returnData: '0x' as Hex }
        expect(call.target).toBe(token.address)
        return { success: true, returnData: numberToHex(parseUnits(String(index), token.decimals), { size: 32 }) }
      })
      const result = encodeFunctionResult({ abi: multicallAbi, functionName: 'aggregate3', result: results })
      return Response.json({ jsonrpc: '2.0', id, result })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) }
}

const ethereum = ethereumStandIn()
let closed: Awaited<ReturnType<typeof paidGateway>>
let served: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  ;[closed, served] = await Promise.all([paidGateway(), paidGateway({ env: { CHAIN_RPC_ETHEREUM: ethereum.url } })])
})
afterAll(async () => {
  await Promise.all([closed.close(), served.close()])
  ethereum.stop()
})

describe('core/TokenList', () => {
  test('behavior: the devnet list is the devnet contracts, at their deterministic addresses', () => {
    expect(Object.fromEntries(TokenList.devnet.map((token) => [token.symbol, token.address]))).toEqual({
      ...contracts().tokens,
    })
  })
})

describe('GET /api/v1/tokens', () => {
  test('default: free, the curated list of base (the devnet here) and ethereum, with the batch contract', async () => {
    const response = await closed.fetch('http://gateway.test/api/v1/tokens')
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(Object.keys(body.chains)).toEqual(['base', 'ethereum'])
    expect(body.chains.base).toMatchObject({ chain: 'base', chainId: closed.devnet.chainId, native: { symbol: 'ETH' } })
    expect(body.chains.base.tokens.map((token: any) => token.symbol)).toEqual(['USDC', 'USDT', 'EURC', 'DAI', 'WETH'])
    expect(body.chains.base.tokens[0]).toEqual({ symbol: 'USDC', address: closed.devnet.token.address, decimals: 6 })
    expect(body.chains.ethereum).toMatchObject({ chainId: 1 })
    expect(body).toMatchObject({ fee: '0.3%', feeBps: 30, maxRecipients: 200 })
    // The original's `contract`: the batch contract batch payments on base go through (the devnet's here).
    expect(body.contract).toBe(closed.devnet.batch.address)
    expect(body.chains.base.contract).toBe(closed.devnet.batch.address)
    expect(body.chains.ethereum.contract).toBeUndefined()
    expect(body.popularTokens).toEqual({
      ETH: { native: true, decimals: 18 },
      ...Object.fromEntries(
        TokenList.devnet.map((token) => [token.symbol, { address: token.address, decimals: token.decimals }]),
      ),
    })
    expect(body.chains.ethereum.tokens).toContainEqual({
      symbol: 'DAI',
      address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
      decimals: 18,
    }) // What swaps and prices take by symbol on base: the devnet keeps its own tokens.
    expect(body.tokens).toEqual([...TokenList.devnet])
    expect(body.tokenList).toMatchObject({ package: '@uniswap/default-token-list' })
  })
})

describe('GET /api/v1/balances', () => {
  test('default: after real transfers on the devnet, exact balances; ethereum on a closed port is unavailable; charged 0.005', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address
    await closed.devnet.fund({ address: wallet, amount: 1_234_567n })
    const sender = closed.account(3)
    const client = createWalletClient({
      account: sender,
      chain: closed.devnet.chain,
      transport: closed.devnet.transport,
    })
    const hash = await client.writeContract({
      address: closed.devnet.tokens.DAI!.address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [wallet, parseUnits('1.5', 18)],
    })
    await closed.devnet.publicClient.waitForTransactionReceipt({ hash })
    const payer = closed.account(1)
    const before = await closed.balance(payer.address)
    const response = await closed.paid(
      payer,
      'GET',
      `/api/v1/balances?address=${wallet.toLowerCase()}&chains=base,ethereum`,
    )
    expect(response.status).toBe(200)
    expect(before - (await closed.balance(payer.address))).toBe(5_000n)
    const body = (await response.json()) as any
    expect(body.address).toBe(wallet)
    const base = body.chains.base
    expect(base).toMatchObject({ available: true, chainId: closed.devnet.chainId })
    expect(base.native).toEqual({ symbol: 'ETH', decimals: 18, raw: '0', formatted: '0' })
    const bySymbol = Object.fromEntries(base.tokens.map((token: any) => [token.symbol, token]))
    expect(bySymbol.USDC).toMatchObject({ raw: '1234567', formatted: '1.234567', decimals: 6 })
    expect(bySymbol.DAI).toMatchObject({ raw: '1500000000000000000', formatted: '1.5', decimals: 18 })
    expect(bySymbol.WETH).toMatchObject({ raw: '0', formatted: '0' })
    expect(body.chains.ethereum).toMatchObject({ chain: 'ethereum', chainId: 1, available: false })
    expect(body.chains.ethereum.reason).toContain('could not be reached')
    // The original gateway's list of base: ETH always, then the tokens held, each in whole tokens and raw units.
    expect(body).toMatchObject({ network: 'base', chainId: closed.devnet.chainId, tokenCount: 3 })
    expect(body.balances).toEqual([
      { symbol: 'ETH', address: 'native', decimals: 18, balance: '0', balanceRaw: '0' },
      { symbol: 'USDC', address: closed.devnet.token.address, decimals: 6, balance: '1.234567', balanceRaw: '1234567' },
      {
        symbol: 'DAI',
        address: closed.devnet.tokens.DAI!.address,
        decimals: 18,
        balance: '1.5',
        balanceRaw: '1500000000000000000',
      },
    ])
    const all = await closed.paid(payer, 'GET', `/api/v1/balances?address=${wallet}&chains=base&showAll=true`)
    expect(((await all.json()) as any).balances.map((balance: any) => balance.symbol)).toEqual([
      'ETH',
      'USDC',
      'USDT',
      'EURC',
      'DAI',
      'WETH',
    ])
  })

  test("behavior: as the original gateway's clients call it, tokens (custom addresses) lists ETH and those tokens, each's symbol and decimals as it answers", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address
    await closed.devnet.fund({ address: wallet, amount: 2_500_000_000n })
    const usdc = closed.devnet.token.address
    const dai = closed.devnet.tokens.DAI!.address
    // No token at this address: its reads fail, and the original's answer says so for it alone.
    const nothing = '0x000000000000000000000000000000000000dEaD'
    const response = await closed.paid(
      closed.account(1),
      'GET',
      `/api/v1/balances?address=${wallet}&tokens=${usdc.toLowerCase()},${dai},${nothing}&showAll=true`,
    )
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body.balances).toEqual([
      { symbol: 'ETH', address: 'native', decimals: 18, balance: '0', balanceRaw: '0' },
      { symbol: 'USDC', address: usdc, decimals: 6, balance: '2500', balanceRaw: '2500000000' },
      { symbol: 'DAI', address: dai, decimals: 18, balance: '0', balanceRaw: '0' },
      { address: nothing, error: 'Failed to query token' },
    ])
    expect(body.tokenCount).toBe(4)
    const held = await closed.paid(closed.account(1), 'GET', `/api/v1/balances?address=${wallet}&tokens=${dai},${usdc}`)
    expect(((await held.json()) as any).balances.map((balance: any) => balance.symbol)).toEqual(['ETH', 'USDC'])
  })

  test('behavior: a funded account holds native ETH; only the chains asked for are read', async () => {
    const holder = closed.account(4).address
    const response = await closed.paid(closed.account(1), 'GET', `/api/v1/balances?address=${holder}&chains=base`)
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(Object.keys(body.chains)).toEqual(['base'])
    expect(BigInt(body.chains.base.native.raw)).toBeGreaterThan(0n)
  })

  test('default: ethereum through a JSON-RPC stand-in: one aggregate3 eth_call, a failed balanceOf reported per token', async () => {
    const wallet = served.account(5).address
    const before = ethereum.calls.eth_call ?? 0
    const response = await served.paid(served.account(1), 'GET', `/api/v1/balances?address=${wallet}`)
    expect(response.status).toBe(200)
    expect(ethereum.calls.eth_call).toBe(before + 1)
    const { chains } = (await response.json()) as any
    expect(chains.base.available).toBe(true)
    expect(chains.ethereum).toMatchObject({ available: true, chainId: 1 })
    expect(chains.ethereum.native).toEqual({ symbol: 'ETH', decimals: 18, raw: '2000000000000000000', formatted: '2' })
    expect(chains.ethereum.tokens).toEqual([
      { ...TokenList.ethereum[0], raw: '1000000', formatted: '1' },
      { ...TokenList.ethereum[1], raw: null, formatted: null, reason: 'balanceOf failed' },
      { ...TokenList.ethereum[2], raw: '3000000000000000000', formatted: '3' },
      { ...TokenList.ethereum[3], raw: '4000000000000000000', formatted: '4' },
    ])
  })

  test('error: when no chain answers it is a 503 and nothing is charged', async () => {
    const payer = closed.account(2)
    const before = await closed.balance(payer.address)
    const response = await closed.paid(payer, 'GET', `/api/v1/balances?address=${payer.address}&chains=ethereum`)
    expect(response.status).toBe(503)
    expect(await closed.balance(payer.address)).toBe(before)
  })

  const checksummed = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
  test.each([
    ['address', `address=${checksummed.replace('f39F', 'F39f')}`],
    ['address', 'address=0x1234'],
    ['address', 'chains=base'],
    ['chains', `address=${checksummed}&chains=base,solana`],
    ['chains', `address=${checksummed}&chains=base,base`],
    ['tokens', `address=${checksummed}&tokens=0x1234`],
    ['tokens', `address=${checksummed}&tokens=${checksummed.replace('f39F', 'F39f')}`],
    ['tokens', `address=${checksummed}&chains=ethereum&tokens=${checksummed}`],
  ])('error: a bad %s is a 400 naming it, and nothing is charged (%s)', async (field, query) => {
    const payer = closed.account(2)
    const before = await closed.balance(payer.address)
    const response = await closed.paid(payer, 'GET', `/api/v1/balances?${query}`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as any).field).toBe(field)
    expect(await closed.balance(payer.address)).toBe(before)
  })

  test('error: tokens without base among the chains is a 400 before any payment is asked for', async () => {
    const response = await closed.fetch(
      `http://gateway.test/api/v1/balances?address=${checksummed}&chains=ethereum&tokens=${checksummed}`,
    )
    expect(response.status).toBe(400)
    expect(((await response.json()) as any).field).toBe('tokens')
  })

  test('error: without payment it is a 402', async () => {
    const response = await closed.fetch(`http://gateway.test/api/v1/balances?address=${checksummed}`)
    expect(response.status).toBe(402)
  })
})
