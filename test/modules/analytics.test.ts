import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http as httpTransport,
  parseEther,
  parseUnits,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { deployerIndex, account as devnetAccount } from '../../adapters/chain/devnet.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { blockscout } from '../../adapters/history/blockscout.js'
import { http } from '../../adapters/rpc/http.js'
import * as analytics from '../../modules/analytics/index.js'
import * as Service from '../../modules/analytics/service.js'
import { startBlockscout } from '../adapters/history/blockscout-fixture.js'
import { moduleGateway } from '../support/gateway.js'
import { sequence } from '../support/history.js'
import { origin, paidGateway } from '../support/paid.js'

// The analytics endpoints on the embedded devnet: real transfers, deployments and an EIP-7702 delegation, indexed
// by the gateway's own indexer and paid through the normal flow.

let gateway: Awaited<ReturnType<typeof paidGateway>>
let done: Awaited<ReturnType<typeof sequence>>
let eoa: Address
const entryPoint = getAddress('0x0000000071727de22e5e9d8baf0edac6f37da032')

beforeAll(async () => {
  gateway = await paidGateway()
  done = await sequence(gateway.devnet, gateway.account(3), entryPoint)
  // A plain EOA: funded by account #3, then sends some back once.
  const own = privateKeyToAccount(generatePrivateKey())
  eoa = own.address
  const send = async (from: typeof own, to: Address, value: bigint) => {
    const wallet = createWalletClient({
      account: from,
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    await gateway.devnet.publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to, value }) })
  }
  await send(gateway.account(3), eoa, parseEther('1'))
  await send(own, gateway.account(3).address, parseEther('0.1'))
})
afterAll(async () => {
  await gateway.close()
})

/** A paid GET by account #2: status, body and what it cost the payer. */
async function paidGet(path: string) {
  const payer = gateway.account(2)
  const before = await gateway.balance(payer.address)
  const response = await gateway.paid(payer, 'GET', path)
  const body = (await response.json()) as any
  return { status: response.status, body, cost: before - (await gateway.balance(payer.address)) }
}

describe('GET /api/v1/analytics/txhistory', () => {
  test('default: the indexed history, newest first, with amounts as strings; 0.008 USDC paid', async () => {
    const { status, body, cost } = await paidGet(`/api/v1/analytics/txhistory?address=${done.fresh}`)
    expect(status).toBe(200)
    expect(cost).toBe(8_000n)
    const payer = gateway.account(3).address
    expect(body).toMatchObject({
      address: done.fresh,
      chain: `eip155:${gateway.devnet.chainId}`,
      source: 'indexer',
      count: 4,
      complete: true,
    })
    expect(body.transactions.map((transaction: { hash: string }) => transaction.hash)).toEqual([
      done.delegation,
      done.back,
      done.usdc,
      done.eth,
    ])
    const [delegation, back, usdc, eth] = body.transactions
    expect(delegation).toMatchObject({ from: done.fresh, to: done.fresh, status: 'success', method: null })
    expect(back).toMatchObject({
      from: done.fresh,
      to: payer,
      value: { raw: '250000000000000000', formatted: '0.25' },
      method: null,
      transfers: [],
    })
    expect(usdc).toMatchObject({
      from: payer,
      to: gateway.devnet.token.address,
      value: { raw: '0', formatted: '0' },
      method: { selector: '0xa9059cbb', name: 'transfer' },
      transfers: [
        {
          token: gateway.devnet.token.address,
          symbol: 'USDC',
          decimals: 6,
          from: payer,
          to: done.fresh,
          amount: { raw: '12500000', formatted: '12.5' },
        },
      ],
    })
    expect(eth).toMatchObject({ from: payer, to: done.fresh, value: { raw: '1500000000000000000', formatted: '1.5' } })
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({ hash: done.eth })
    const block = await gateway.devnet.publicClient.getBlock({ blockNumber: receipt.blockNumber })
    expect(eth.block).toBe(receipt.blockNumber.toString())
    expect(eth.time).toBe(new Date(Number(block.timestamp) * 1000).toISOString())
    expect(eth.fee.raw).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString())
  })

  test('behavior: limit keeps the newest', async () => {
    const { status, body } = await paidGet(`/api/v1/analytics/txhistory?address=${done.fresh}&limit=2`)
    expect(status).toBe(200)
    expect(body.transactions.map((transaction: { hash: string }) => transaction.hash)).toEqual([
      done.delegation,
      done.back,
    ])
    expect(body.complete).toBe(false)
  })

  test('behavior: a lowercase address is accepted and answered checksummed', async () => {
    const { status, body } = await paidGet(`/api/v1/analytics/txhistory?address=${eoa.toLowerCase()}`)
    expect(status).toBe(200)
    expect(body.address).toBe(eoa)
    expect(body.count).toBe(2)
  })
})

describe('GET /api/v1/analytics/wallet', () => {
  test('default: an EOA, from its code, nonce and history; 0.01 USDC paid', async () => {
    const { status, body, cost } = await paidGet(`/api/v1/analytics/wallet?address=${eoa}`)
    expect(status).toBe(200)
    expect(cost).toBe(10_000n)
    const funder = gateway.account(3).address
    expect(body.classification).toEqual({
      type: 'eoa',
      delegate: null,
      smartAccount: false,
      proxy: null,
      walletType: 'new',
      profile: 'general',
      txCount: 1,
      tokenCount: 0,
    })
    expect(body.activity).toMatchObject({ nonce: 1, transactionsRead: 2, transfersRead: 0, historyComplete: true })
    expect(BigInt(body.activity.indexedTo)).toBeGreaterThanOrEqual(BigInt(body.activity.lastActive.block))
    expect(body.counterparties).toEqual([{ address: funder, transactions: 2 }])
    expect(body.tokens).toEqual([])
    expect(body.age.firstSeen.hash).toBe(body.facts.find((fact: any) => fact.fact === 'first transaction').value)
    expect(body.facts).toContainEqual({ fact: 'code size in bytes', value: 0, source: 'chain: eth_getCode' })
    expect(body.facts).toContainEqual({ fact: 'nonce', value: 1, source: 'chain: eth_getTransactionCount' })
    expect(body.age.createdBy).toBeNull()
  })

  test('behavior: the devnet USDC is a contract, created by the deployer, not a smart account', async () => {
    const { status, body } = await paidGet(`/api/v1/analytics/wallet?address=${gateway.devnet.token.address}`)
    expect(status).toBe(200)
    expect(body.classification).toMatchObject({ type: 'contract', delegate: null, smartAccount: false })
    const deployer = devnetAccount({ index: deployerIndex }).address
    expect(body.age.createdBy.creator).toBe(deployer)
    expect(body.facts).toContainEqual({ fact: 'creator', value: deployer, source: 'indexer' })
    expect(body.facts).toContainEqual({
      fact: 'ERC-4337 entryPoint()',
      value: 'no address answered',
      source: 'chain: eth_call',
    })
    const code = await gateway.devnet.publicClient.getCode({ address: gateway.devnet.token.address })
    expect(body.facts).toContainEqual({
      fact: 'code size in bytes',
      value: (code!.length - 2) / 2,
      source: 'chain: eth_getCode',
    })
  })

  test('behavior: an account delegated by EIP-7702 names its delegate, a smart account by entryPoint()', async () => {
    const { status, body } = await paidGet(`/api/v1/analytics/wallet?address=${done.fresh}`)
    expect(status).toBe(200)
    expect(body.classification).toEqual({
      type: 'eip7702-delegated',
      delegate: done.account.address,
      smartAccount: true,
      proxy: null,
      walletType: 'new',
      profile: 'general',
      txCount: 3,
      tokenCount: 1,
    })
    expect(body.facts).toContainEqual({
      fact: 'EIP-7702 delegation designator (0xef0100) to',
      value: done.account.address,
      source: 'chain: eth_getCode',
    })
    expect(body.facts).toContainEqual({ fact: 'ERC-4337 entryPoint()', value: entryPoint, source: 'chain: eth_call' })
    expect(body.tokens).toEqual([
      {
        token: gateway.devnet.token.address,
        symbol: 'USDC',
        decimals: 6,
        transfers: 1,
        received: { raw: '12500000', formatted: '12.5' },
        sent: { raw: '0', formatted: '0' },
      },
    ])
    expect(body.counterparties).toEqual([{ address: gateway.account(3).address, transactions: 3 }])
    // The ETH back and the delegation, whose own authorization raised the nonce once more (EIP-7702).
    expect(body.activity.nonce).toBe(3)
  })

  test('behavior: a contract answering entryPoint() is a smart account; a silent one is not', async () => {
    const account = await paidGet(`/api/v1/analytics/wallet?address=${done.account.address}`)
    const silent = await paidGet(`/api/v1/analytics/wallet?address=${done.silent.address}`)
    expect(account.body.classification).toMatchObject({ type: 'contract', smartAccount: true })
    expect(silent.body.classification).toMatchObject({ type: 'contract', smartAccount: false })
    expect(silent.body.age.createdBy).toEqual({ creator: gateway.account(3).address, transaction: done.silent.hash })
  })
})

describe("GET /api/v1/analytics/wallet as the original gateway's clients read it", () => {
  test('behavior: balances (eth, tokens, stablecoinsUSD), classification and activity from the chain and the history', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    await gateway.devnet.fund({ address: wallet.address, amount: 2_500_000_000n })
    const client = createWalletClient({
      account: gateway.account(3),
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    const dai = gateway.devnet.tokens.DAI!.address
    await gateway.devnet.publicClient.waitForTransactionReceipt({
      hash: await client.writeContract({
        address: dai,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [wallet.address, parseUnits('1000.509', 18)],
      }),
    })
    const from = Number(await gateway.devnet.publicClient.getBlockNumber())
    const { status, body } = await paidGet(`/api/v1/analytics/wallet?address=${wallet.address}`)
    expect(status).toBe(200)
    expect(body.balances.eth).toEqual({ balance: '0', balanceRaw: '0' })
    const bySymbol = Object.fromEntries(body.balances.tokens.map((token: any) => [token.symbol, token]))
    expect(bySymbol.USDC).toEqual({
      symbol: 'USDC',
      address: gateway.devnet.token.address,
      balance: '2500',
      balanceRaw: '2500000000',
      hasBalance: true,
    })
    expect(bySymbol.DAI).toMatchObject({ balance: '1000.509', balanceRaw: '1000509000000000000000', hasBalance: true })
    expect(bySymbol.WETH).toMatchObject({ balance: '0', hasBalance: false })
    // 2,500 USDC and 1,000.509 DAI at face value, to the cent rounded down: more than 1,000, so a stablecoin holder.
    expect(body.balances.stablecoinsUSD).toBe('3500.50')
    expect(body.classification).toMatchObject({
      walletType: 'virgin',
      profile: 'stablecoin-holder',
      txCount: 0,
      tokenCount: 2,
    })
    expect(body.chainId).toBe(gateway.devnet.chainId)
    // The block the answer was read at: the call's own settlement (or another test's transaction) may mine one after.
    expect(body.currentBlock).toBeGreaterThanOrEqual(from)
    expect(body.currentBlock).toBeLessThanOrEqual(Number(await gateway.devnet.publicClient.getBlockNumber()))
    // Its history is the two transfers it received: the first is its first transaction, the latest a moment ago.
    expect(body.activity.firstTransaction.hash).toBe(body.age.firstSeen.hash)
    expect(body.activity).toMatchObject({ isActive: true, activeDays: 0 })
  })

  test('behavior: activity of a wallet with transactions: first and last, age and whether it is active', async () => {
    const { body } = await paidGet(`/api/v1/analytics/wallet?address=${eoa}`)
    expect(body.activity.firstTransaction).toEqual({
      hash: body.age.firstSeen.hash,
      timestamp: body.age.firstSeen.time,
      block: Number(body.age.firstSeen.block),
    })
    expect(body.activity.lastTransaction.hash).toBe(body.activity.lastActive.hash)
    expect(body.activity).toMatchObject({ isActive: true, walletAge: { days: 0, months: 0 }, activeDays: 0 })
    expect(body.activity.walletAge.firstSeen).toBe(body.age.firstSeen.time)
  })
})

describe('Service.originalOf', () => {
  const listed = [{ symbol: 'USDC', address: getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'), decimals: 6 }]
  test.each([
    [0, 0n, 0n, 'virgin', 'general'],
    [4, 0n, 0n, 'new', 'general'],
    [5, 0n, 10_000_000_001n, 'casual', 'treasury'],
    [499, 11n * 10n ** 18n, 1_000_000_001n, 'active', 'stablecoin-holder'],
    [500, 11n * 10n ** 18n, 1_000_000_000n, 'power-user', 'eth-whale'],
  ])('vector: %d transactions (with ETH and USDC held) is %s wallet', (txCount, native, usdc, walletType, profile) => {
    const { classification } = Service.originalOf({
      balances: { native, listed: [{ ...listed[0]!, raw: usdc }], unlisted: [] },
      txCount,
      oldest: undefined,
      newest: undefined,
      nowMs: 0,
    })
    expect(classification).toMatchObject({ walletType, profile, txCount })
  })
})

describe('bad input', () => {
  const mixed = '0x70997970c51812dc3a010c7d01b50e0d17dc79C8'
  test.each([
    ['txhistory', 'address', `address=${mixed}`],
    ['txhistory', 'address', 'address=0x1234'],
    ['txhistory', 'address', 'address=vitalik.eth'],
    ['txhistory', 'address', ''],
    ['txhistory', 'limit', `address=${mixed.toLowerCase()}&limit=0`],
    ['txhistory', 'limit', `address=${mixed.toLowerCase()}&limit=101`],
    ['txhistory', 'limit', `address=${mixed.toLowerCase()}&limit=ten`],
    ['wallet', 'address', `address=${mixed}`],
    ['wallet', 'address', 'address=0xZZ97970c51812dc3a010c7d01b50e0d17dc79c8'],
  ])('error: %s with a bad %s is a 400 naming it, and nothing is charged (%s)', async (endpoint, field, query) => {
    const { status, body, cost } = await paidGet(`/api/v1/analytics/${endpoint}?${query}`)
    expect(status).toBe(400)
    expect(body.field).toBe(field)
    expect(cost).toBe(0n)
  })

  test('error: without payment it is a 402', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/analytics/wallet?address=${eoa}`)
    expect(response.status).toBe(402)
  })
})

describe('without a history', () => {
  test('error: the endpoints answer 503 before payment and discovery lists them unavailable with the reason', async () => {
    const bare = moduleGateway(analytics.manifest)
    const response = await bare.get(`/api/v1/analytics/txhistory?address=${eoa}`)
    expect(response.status).toBe(503)
    expect(((await response.json()) as any).detail).toContain('needs a transaction history')
    expect(bare.settled).toHaveLength(0)
    const manifest = (await (await bare.handle(new Request(`${origin}/.well-known/x402.json`))).json()) as any
    const entry = manifest.resources.find((resource: any) => resource.path === '/api/v1/analytics/wallet')
    expect(entry.available).toBe(false)
    expect(JSON.stringify(entry)).toContain('needs a transaction history')
  })
})

describe('on Blockscout', () => {
  // The module as it runs on Base: history from a Blockscout instance (a local stand-in), chain reads from a node
  // (a closed local port: txhistory reads none).
  const base = 8453
  const closed = 'http://127.0.0.1:9'
  const wallet: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const friend: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
  const hash = `0x${'ab'.repeat(32)}` as const
  let server: ReturnType<typeof startBlockscout>
  let family: ReturnType<typeof moduleGateway>

  beforeAll(() => {
    server = startBlockscout()
    server.address({ hash: wallet })
    server.transaction({
      hash,
      block: 30_000_000,
      order: 4,
      timestamp: '2026-11-20T10:00:00.000000Z',
      from: friend,
      to: wallet,
      created: null,
      value: '2500000000000000',
      fee: '1234',
      status: 'ok',
      input: '0x',
    })
    family = moduleGateway(analytics.manifest, {
      payer: gateway.account(2),
      ports: {
        history: blockscout({ url: server.url, retries: 0 }),
        chains: [http({ name: 'base', chainId: base, url: closed })],
        onchain: {
          chainId: base,
          transfers: transfers({ client: createPublicClient({ transport: httpTransport(closed) }) }),
          tokens: [],
        },
      },
    })
  })
  afterAll(() => server.stop())

  test("default: the history is Blockscout's, paid once", async () => {
    const response = await family.get(`/api/v1/analytics/txhistory?address=${wallet}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      address: wallet,
      chain: 'eip155:8453',
      source: 'blockscout',
      complete: true,
      indexedTo: null,
      transactions: [
        {
          hash,
          block: '30000000',
          time: '2026-11-20T10:00:00.000Z',
          from: friend,
          to: wallet,
          value: { raw: '2500000000000000', formatted: '0.0025' },
          fee: { raw: '1234', formatted: '0.000000000000001234' },
          method: null,
        },
      ],
    })
    expect(family.settled).toHaveLength(1)
  })

  test('error: Blockscout failing is an upstream error, and nothing is settled', async () => {
    server.state.failWith = 500
    const settled = family.settled.length
    // Another address than the test before, whose answer the adapter still holds in its cache.
    const response = await family.get(`/api/v1/analytics/txhistory?address=${friend}`)
    server.state.failWith = undefined
    expect(response.status).toBeGreaterThanOrEqual(502)
    expect(((await response.json()) as any).detail).toContain(
      'Blockscout answered the address transactions with HTTP 500',
    )
    expect(family.settled).toHaveLength(settled)
  })
})
