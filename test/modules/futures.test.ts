import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  erc20Abi,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { account, devnet } from '../../adapters/chain/devnet.js'
import { futuresOperatorIndex, futuresTreasury } from '../../adapters/chain/futures.js'
import { openai } from '../../adapters/compute/openai.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory } from '../../adapters/store/memory.js'
import { postgres } from '../../adapters/store/postgres.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import * as Compute from '../../core/Compute.js'
import * as Futures from '../../core/Futures.js'
import type * as Module from '../../core/Module.js'
import type { Store } from '../../core/Store.js'
import { manifest, pricingManifest } from '../../modules/futures/index.js'
import { journalOf } from '../../modules/futures/service.js'
import { type Fixture, postgresFixture, sqliteFixture } from '../support/backends.js'
import { fundedWallet, usdcBalance } from '../support/chain.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'
import { openaiStub } from '../support/openai.js'
import { paidGateway } from '../support/paid.js'

let chain: devnet.Devnet
let treasury: Futures.Treasury
let app: ReturnType<typeof moduleGateway>
let stub: ReturnType<typeof openaiStub>
let compute: Module.Ports['compute']
const operator = privateKeyToAccount(account({ index: futuresOperatorIndex }).privateKey)

beforeAll(async () => {
  chain = await devnet()
  treasury = futuresTreasury({
    client: chain.publicClient,
    chainId: chain.chainId,
    token: chain.token.address,
    depositAddress: operator.address,
    operator: { account: operator, chain: chain.chain, transport: chain.transport },
  })
  app = moduleGateway(manifest, { ports: { store: memory(), futures: treasury } })
  stub = openaiStub()
  compute = {
    models: Compute.fromJson(
      JSON.stringify({
        'small-model': { kind: 'text', upstream: 'openai', upstreamModel: 'small-model', price: '0.003' },
        'large-model': { kind: 'text', upstream: 'openai', upstreamModel: 'large-model', price: '0.10' },
        'drawing-model': {
          kind: 'image',
          upstream: 'openai',
          upstreamModel: 'drawing-model',
          prices: { '512x512': '0.02', '1024x1024': '0.08' },
        },
        'video-model': { kind: 'video', upstream: 'replicate', upstreamModel: 'owner/video', price: '0.40' },
      }),
    ),
    direct: openai({ baseUrl: stub.url }),
  }
})

afterAll(async () => {
  stub.stop()
  await chain.close()
})

const signer = (index: number): PrivateKeyAccount => privateKeyToAccount(chain.accounts[index]!.privateKey)
const alice = () => signer(1)
const bob = () => signer(2)

/** Sends `amount` devnet USDC from `from` to `to`, mined; its hash. */
async function sendUsdc(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<Hash> {
  const wallet = createWalletClient({ account: from, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.writeContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, amount],
  })
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return hash
}

/** A deposit of `amount` from `from` through the gateway, paid by `from`. */
async function deposit(gateway: typeof app, from: PrivateKeyAccount, amount: bigint) {
  const transaction = await sendUsdc(from, operator.address, amount)
  return ok(await gateway.post('/api/v1/compute-futures/deposit', { transaction }, from))
}

describe('POST /api/v1/compute-futures/deposit', () => {
  test('default: credits a verified USDC transfer to the deposit address, once, and picks the tier', async () => {
    const depositor = signer(3)
    const gateway = moduleGateway(manifest, { ports: { store: memory(), futures: treasury } })
    const transaction = await sendUsdc(depositor, operator.address, 12_500_000n)
    const body = await ok(await gateway.post('/api/v1/compute-futures/deposit', { transaction }, depositor))
    expect(body).toMatchObject({
      credited: '12.500000',
      transaction,
      sequence: 1,
      depositor: depositor.address,
      chainId: chain.chainId,
      depositAddress: operator.address,
      balances: { available: '12.500000', deposited: '12.500000', spent: '0.000000', jobs: 0 },
      tier: 'builder',
      tierDetails: { name: 'builder', discountPercent: 5 },
      discountPercent: 5,
      nextTier: { name: 'scale', missing: '37.500000' },
    })
    expect(body.id).toMatch(/^cfe_[0-9a-f]{24}$/)
    const settled = gateway.settled.length

    // The same transaction again: refused, and the call is not charged.
    const again = await refused(await gateway.post('/api/v1/compute-futures/deposit', { transaction }, depositor), 409)
    expect(again.detail).toContain('credited already')
    expect(gateway.settled.length).toBe(settled)
    const balance = await ok(await gateway.get(`/api/v1/compute-futures/balance?id=${body.id}`, depositor))
    expect(balance.balances.available).toBe('12.500000')
  })

  test('security: a transaction another wallet sent credits nobody', async () => {
    const transaction = await sendUsdc(alice(), operator.address, 1_000_000n)
    const settled = app.settled.length
    const body = await refused(await app.post('/api/v1/compute-futures/deposit', { transaction }, bob()), 403)
    expect(body.detail).toContain(alice().address)
    expect(app.settled.length).toBe(settled)
    // Its sender may still deposit it.
    const credited = await ok(await app.post('/api/v1/compute-futures/deposit', { transaction }, alice()))
    expect(credited.credited).toBe('1.000000')
  })

  test('error: a transaction that pays someone else, or none at all', async () => {
    const elsewhere = await sendUsdc(alice(), bob().address, 1_000_000n)
    const body = await refused(
      await app.post('/api/v1/compute-futures/deposit', { transaction: elsewhere }, alice()),
      409,
    )
    expect(body.detail).toContain('deposit address')
    await refused(
      await app.post('/api/v1/compute-futures/deposit', { transaction: `0x${'ab'.repeat(32)}` }, alice()),
      404,
    )
  })

  test('error: a malformed hash is a 400 before payment', async () => {
    const body = await refused(await app.post('/api/v1/compute-futures/deposit', { transaction: '0x1234' }), 400)
    expect(body.code).toBe('validation_failed')
  })

  test('error: Solana deposits answer 503 before payment, saying why', async () => {
    const body = await refused(
      await app.post('/api/v1/compute-futures/deposit', { transaction: `0x${'cd'.repeat(32)}`, chain: 'solana' }),
      503,
    )
    expect(body.detail).toContain('Solana')
  })

  test('behavior: confirmations short of the configured count are a 409, not charged', async () => {
    const strict = moduleGateway(manifest, {
      ports: { store: memory(), futures: treasury },
      env: { FUTURES_CONFIRMATIONS: '3' },
    })
    const transaction = await sendUsdc(alice(), operator.address, 1_000_000n)
    const body = await refused(await strict.post('/api/v1/compute-futures/deposit', { transaction }, alice()), 409)
    expect(body).toMatchObject({ confirmations: 1, required: 3 })
    expect(strict.settled.length).toBe(0)
    // Two more blocks, and it is credited.
    await chain.request('evm_mine', [])
    await chain.request('evm_mine', [])
    await ok(await strict.post('/api/v1/compute-futures/deposit', { transaction }, alice()))
  })
})

describe('GET /api/v1/compute-futures/balance', () => {
  test('security: another payer gets a 404 for an account that is not theirs, and for their own missing one', async () => {
    const { id } = await deposit(app, alice(), 2_000_000n)
    const body = await refused(await app.get(`/api/v1/compute-futures/balance?id=${id}`, bob()), 404)
    expect(body.code).toBe('not_found')
    await refused(await app.get('/api/v1/compute-futures/balance', signer(4)), 404)
  })

  test('error: no payment, a 402', async () => {
    const response = await app.get('/api/v1/compute-futures/balance')
    expect(response.status).toBe(402)
  })
})

describe('POST /api/v1/compute-futures/refund', () => {
  test('default: sends unused credit back to the depositor as a real USDC transfer, recorded with its hash', async () => {
    const depositor = signer(5)
    const gateway = moduleGateway(manifest, { ports: { store: memory({ queue: memoryQueue() }), futures: treasury } })
    const { id } = await deposit(gateway, depositor, 3_000_000n)
    const before = await usdcBalance(chain, depositor.address)
    const body = await ok(await gateway.post('/api/v1/compute-futures/refund', { amount: '1.25' }, depositor))
    expect(body).toMatchObject({ id, status: 'sent', to: depositor.address, amount: '1.250000' })
    expect(body.balances).toMatchObject({ available: '1.750000', refunding: '0.000000', refunded: '1.250000' })
    expect(await usdcBalance(chain, depositor.address)).toBe(before + 1_250_000n)
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: body.transaction })
    expect(receipt.from.toLowerCase()).toBe(operator.address.toLowerCase())

    // The rest, then nothing left.
    const rest = await ok(await gateway.post('/api/v1/compute-futures/refund', {}, depositor))
    expect(rest.amount).toBe('1.750000')
    expect(await usdcBalance(chain, depositor.address)).toBe(before + 3_000_000n)
    await refused(await gateway.post('/api/v1/compute-futures/refund', {}, depositor), 409)

    const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
    expect(history.entries.map((entry: any) => [entry.kind, entry.amount, entry.balances.available])).toEqual([
      ['deposit', '3.000000', '3.000000'],
      ['hold', '1.250000', '1.750000'],
      ['refund', '1.250000', '1.750000'],
      ['hold', '1.750000', '0.000000'],
      ['refund', '1.750000', '0.000000'],
    ])
    expect(history.entries[2].transaction).toBe(body.transaction)
    expect(history.entries[2]).toMatchObject({ debit: 'refunding', credit: 'usdc' })
  })

  test('security: another payer cannot refund an account that is not theirs', async () => {
    const { id } = await deposit(app, alice(), 1_000_000n)
    const before = await usdcBalance(chain, bob().address)
    await refused(await app.post('/api/v1/compute-futures/refund', { id }, bob()), 404)
    expect(await usdcBalance(chain, bob().address)).toBe(before)
  })

  test('error: more than the available credit is a 409 and nothing moves', async () => {
    const depositor = signer(6)
    const gateway = moduleGateway(manifest, { ports: { store: memory({ queue: memoryQueue() }), futures: treasury } })
    await deposit(gateway, depositor, 1_000_000n)
    const settled = gateway.settled.length
    await refused(await gateway.post('/api/v1/compute-futures/refund', { amount: '1.000001' }, depositor), 409)
    expect(gateway.settled.length).toBe(settled)
    const balance = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(balance.balances).toMatchObject({ available: '1.000000', refunding: '0.000000' })
  })

  test('behavior: a transfer the operator cannot send gives the credit back, uncharged', async () => {
    // An operator key with neither USDC nor ether: the transfer's simulation fails, nothing is broadcast.
    const broke = privateKeyToAccount(generatePrivateKey())
    const poorTreasury = futuresTreasury({
      client: chain.publicClient,
      chainId: chain.chainId,
      token: chain.token.address,
      depositAddress: broke.address,
      operator: { account: broke, chain: chain.chain, transport: chain.transport },
    })
    const depositor = signer(7)
    const gateway = moduleGateway(manifest, {
      ports: { store: memory({ queue: memoryQueue() }), futures: poorTreasury },
    })
    const transaction = await sendUsdc(depositor, broke.address, 2_000_000n)
    await ok(await gateway.post('/api/v1/compute-futures/deposit', { transaction }, depositor))
    // The operator sweeps nothing, but its wallet cannot pay gas: the refund fails before broadcast.
    const settled = gateway.settled.length
    const body = await refused(await gateway.post('/api/v1/compute-futures/refund', {}, depositor), 502)
    expect(body.detail).toContain('available again')
    expect(gateway.settled.length).toBe(settled)
    const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
    expect(history.entries.map((entry: any) => entry.kind)).toEqual(['deposit', 'hold', 'reverse'])
    expect(history.entries.at(-1).balances).toMatchObject({ available: '2.000000', refunding: '0.000000' })
  })

  test('error: with no operator key, refunds answer 503 before payment', async () => {
    const readOnly = futuresTreasury({
      client: chain.publicClient,
      chainId: chain.chainId,
      token: chain.token.address,
      depositAddress: operator.address,
    })
    const gateway = moduleGateway(manifest, { ports: { store: memory(), futures: readOnly } })
    const body = await refused(await gateway.post('/api/v1/compute-futures/refund', {}), 503)
    expect(body.detail).toContain('FUTURES_OPERATOR_PRIVATE_KEY')
  })
})

/** A gateway of the futures family on `books`, with the compute runner on the OpenAI stand-in. */
const withCompute = (books: Store = memory()) =>
  moduleGateway(manifest, { ports: { store: books, futures: treasury, compute } })

/** A fresh account of `depositor` with `credit` deposited, and one text job on `model` executed on it. */
async function executed(depositor: PrivateKeyAccount, credit: bigint, model: string, prompt: string) {
  const gateway = withCompute()
  await deposit(gateway, depositor, credit)
  stub.reset()
  const body = await ok(
    await gateway.post('/api/v1/compute-futures/execute', { job: { kind: 'text', model, prompt } }, depositor),
  )
  return { gateway, body }
}

describe('POST /api/v1/compute-futures/execute', () => {
  test('default: runs the job and debits its cost less the tier discount', async () => {
    const depositor = signer(8)
    const { gateway, body } = await executed(depositor, 20_000_000n, 'large-model', 'Say hello.')
    expect(body).toMatchObject({
      kind: 'text',
      model: 'large-model',
      price: '0.100000',
      discountPercent: 5,
      cost: '0.095000',
      balances: { available: '19.905000', reserved: '0.000000', spent: '0.095000', jobs: 1 },
      result: { text: 'Hello there.', finishReason: 'stop' },
    })
    // The original gateway's answer beside ours: its billing (human, with the raw twins) and its job.
    const history = await ok(await gateway.get('/api/v1/compute-futures/history?from=2', depositor))
    expect(body).toMatchObject({
      status: 'completed',
      billing: {
        basePrice: '$0.1',
        basePriceRaw: '100000',
        discount: '5%',
        charged: '$0.095 USDC',
        chargedRaw: '95000',
        balanceRemaining: '$19.905 USDC',
        balanceRemainingRaw: '19905000',
        drawdownTx: null,
        settlement: 'ledger',
        ledgerEntry: { sequence: 3, hash: history.entries[1].hash },
      },
      compute: {
        type: 'text-inference',
        model: 'large-model',
        modelLabel: 'large-model',
        provider: 'openai',
        result: body.result,
      },
      contract: { address: operator.address },
      timestamp: history.entries[1].at,
    })
    expect(stub.last().body).toMatchObject({
      model: 'large-model',
      messages: [{ role: 'user', content: 'Say hello.' }],
    })
    expect(history.entries).toMatchObject([
      { sequence: 2, kind: 'reserve', amount: '0.095000', job: body.job, model: 'large-model' },
      {
        sequence: 3,
        kind: 'charge',
        amount: '0.095000',
        debit: 'reserved',
        credit: 'revenue',
        job: body.job,
        model: 'large-model',
        price: '0.100000',
        discountPercent: 5,
        balances: { available: '19.905000' },
      },
    ])
    expect(history.next).toBeNull()
    expect(history.usage).toEqual([
      {
        futuresId: history.id,
        jobType: 'text-inference',
        model: 'large-model',
        basePrice: '0.100000',
        discount: '0.0500',
        effectivePrice: '0.095000',
        balanceAfter: '19.905000',
        timestamp: expect.any(String),
      },
    ])
    expect(history.onChain).toMatchObject({ balance: '19.905 USDC', totalDrawn: '0.095 USDC', jobCount: 1 })
  })

  test('behavior: without a tier discount the billing says none, and amounts are exact, never rounded', async () => {
    const { body } = await executed(signer(9), 1_000_000n, 'small-model', 'hi')
    expect(body.billing).toMatchObject({
      basePrice: '$0.003',
      discount: 'none',
      charged: '$0.003 USDC',
      chargedRaw: '3000',
      balanceRemaining: '$0.997 USDC',
      balanceRemainingRaw: '997000',
    })
  })

  test('behavior: a failed job is not debited, and its call is not charged', async () => {
    const depositor = signer(9)
    const gateway = withCompute()
    await deposit(gateway, depositor, 1_000_000n)
    const settled = gateway.settled.length
    stub.reset()
    stub.state.answer = () => Response.json({ error: { message: 'overloaded' } }, { status: 500 })
    const response = await gateway.post(
      '/api/v1/compute-futures/execute',
      { job: { kind: 'text', model: 'small-model', prompt: 'hi' } },
      depositor,
    )
    stub.reset()
    expect(response.status).toBe(502)
    expect(gateway.settled.length).toBe(settled)
    const balance = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(balance.balances).toMatchObject({ available: '1.000000', reserved: '0.000000', spent: '0.000000' })
    const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
    expect(history.entries.map((entry: any) => entry.kind)).toEqual(['deposit', 'reserve', 'release'])
  })

  test('error: credit short of the cost is a 409, not charged, and the job never runs', async () => {
    const depositor = signer(0)
    const gateway = withCompute()
    await deposit(gateway, depositor, 50_000n)
    stub.reset()
    const settled = gateway.settled.length
    const body = await refused(
      await gateway.post(
        '/api/v1/compute-futures/execute',
        { job: { kind: 'text', model: 'large-model', prompt: 'hi' } },
        depositor,
      ),
      409,
    )
    expect(body).toMatchObject({ available: '50000', required: '100000' })
    expect(stub.received.length).toBe(0)
    expect(gateway.settled.length).toBe(settled)
  })

  test('security: another payer cannot spend an account that is not theirs', async () => {
    const gateway = withCompute()
    const { id } = await deposit(gateway, alice(), 1_000_000n)
    stub.reset()
    await refused(
      await gateway.post(
        '/api/v1/compute-futures/execute',
        { id, job: { kind: 'text', model: 'small-model', prompt: 'hi' } },
        bob(),
      ),
      404,
    )
    expect(stub.received.length).toBe(0)
  })

  test('error: unknown models, asynchronous models and bad jobs are 400s before payment', async () => {
    const gateway = withCompute()
    for (const job of [
      { kind: 'text', model: 'nope', prompt: 'hi' },
      { kind: 'video', model: 'video-model', prompt: 'a cat' },
      { kind: 'image', model: 'drawing-model', prompt: 'a cat', size: '2x2' },
      { kind: 'text', model: 'small-model' },
    ]) {
      const response = await gateway.post('/api/v1/compute-futures/execute', { job })
      expect(response.status).toBe(400)
    }
  })

  test('error: with no compute upstream, 503 before payment', async () => {
    const body = await refused(
      await app.post('/api/v1/compute-futures/execute', { job: { kind: 'text', model: 'small-model', prompt: 'hi' } }),
      503,
    )
    expect(body.detail).toContain('COMPUTE_MODELS')
  })
})

const databases: (readonly [string, () => Promise<Fixture<Store>>])[] = [
  ['embedded SQLite', async () => sqliteFixture('futures', (path) => sqlite({ path }))],
  ...(process.env.DATABASE_URL
    ? [['PostgreSQL', () => postgresFixture(process.env.DATABASE_URL!, 'futures', (sql) => postgres({ sql }))] as const]
    : []),
]

describe.each(databases)('execute under contention (%s)', (_, fixture) => {
  test('behavior: 50 concurrent jobs on two store connections never take the balance below zero', async () => {
    const database = await fixture()
    try {
      const depositor = await fundedWallet(chain, 10_000_000n)
      // Two gateways, each on its own connection to one database: two processes as far as the ledger can tell.
      const [first, second] = [withCompute(database.open()), withCompute(database.open())]
      // 2.05 USDC, below the first tier: twenty jobs at 0.10 fit, the twenty-first does not.
      await deposit(first, depositor, 2_050_000n)
      stub.reset()
      const job = { kind: 'text', model: 'large-model', prompt: 'hi' }
      const statuses = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index % 2 === 0 ? first : second)
            .post('/api/v1/compute-futures/execute', { job }, depositor)
            .then((response) => response.status),
        ),
      )
      expect(statuses.filter((status) => status === 200).length).toBe(20)
      expect(statuses.filter((status) => status === 409).length).toBe(30)
      const balance = await ok(await second.get('/api/v1/compute-futures/balance', depositor))
      expect(balance.balances).toMatchObject({
        available: '0.050000',
        reserved: '0.000000',
        spent: '2.000000',
        jobs: 20,
      })

      // Every entry, in order: no balance below zero, and the books balance after each movement.
      const store = database.open()
      const entries = await store.entries<any>(journalOf(balance.id))
      expect(entries.length).toBe(41)
      for (const entry of entries) {
        const balances = Futures.deserialize(entry.value.balances)
        expect(balances.available >= 0n && balances.reserved >= 0n).toBe(true)
        const accounts = Futures.accountsOf(balances)
        expect(accounts.usdc).toBe(accounts.available + accounts.reserved + accounts.refunding + accounts.revenue)
      }
    } finally {
      await database.teardown()
    }
  })
})

describe('GET /api/v1/compute-futures/pricing', () => {
  test('default: the tiers and the batch discount, with no compute model configured', async () => {
    const gateway = moduleGateway(pricingManifest)
    const body = await ok(await gateway.get('/api/v1/compute-futures/pricing', alice()))
    expect(body.tiers).toEqual([
      { name: 'starter', minimum: '0.000000', discountPercent: 0, minDeposit: '$0', discount: '0%' },
      { name: 'builder', minimum: '10.000000', discountPercent: 5, minDeposit: '$10', discount: '5%' },
      { name: 'scale', minimum: '50.000000', discountPercent: 10, minDeposit: '$50', discount: '10%' },
      { name: 'enterprise', minimum: '200.000000', discountPercent: 15, minDeposit: '$200', discount: '15%' },
    ])
    expect(body.models).toEqual([])
    expect(body.bulk).toMatchObject({ discountPercent: 10, maxJobs: 50 })
    expect(body.deposit).toBeNull()
  })

  test('behavior: where deposits go, before any deposit: in pricing, the payment manifest and OpenAPI', async () => {
    const gateway = moduleGateway([manifest, pricingManifest], { ports: { store: memory(), futures: treasury } })
    const body = await ok(await gateway.get('/api/v1/compute-futures/pricing', alice()))
    const deposit = {
      base: { chainId: chain.chainId, token: chain.token.address, depositAddress: operator.address },
      solana: null,
    }
    expect(body.deposit).toEqual(deposit)
    const payments = (await (await gateway.fetch('/.well-known/x402.json')).json()) as any
    const resource = payments.resources.find((entry: any) => entry.path === '/api/v1/compute-futures/deposit')
    expect(resource).toMatchObject({ method: 'POST', available: true, deposit })
    const openapi = (await (await gateway.fetch('/openapi.json')).json()) as any
    expect(openapi.paths['/api/v1/compute-futures/deposit'].post['x-deposit']).toEqual(deposit)
    expect(openapi.paths['/api/v1/compute-futures/balance'].get['x-deposit']).toBeUndefined()
  })

  test("behavior: every synchronous model's list price and its cost in each tier", async () => {
    const gateway = moduleGateway(pricingManifest, { ports: { compute } })
    const body = await ok(await gateway.get('/api/v1/compute-futures/pricing', alice()))
    expect(body.models).toContainEqual({
      model: 'large-model',
      kind: 'text',
      size: 'default',
      price: '0.100000',
      costs: { starter: '0.100000', builder: '0.095000', scale: '0.090000', enterprise: '0.085000' },
    })
    expect(body.models.map((model: any) => `${model.model} ${model.size}`)).toEqual([
      'small-model default',
      'large-model default',
      'drawing-model 512x512',
      'drawing-model 1024x1024',
    ])
  })
})

describe('on the gateway `npm start` boots', () => {
  test("default: the embedded devnet's operator #17 takes a deposit, the ledger answers, and a refund is sent", async () => {
    const booted = await paidGateway()
    try {
      const depositor = booted.account(3)
      const depositAddress = account({ index: futuresOperatorIndex }).address
      const wallet = createWalletClient({
        account: depositor,
        chain: booted.devnet.chain,
        transport: booted.devnet.transport,
      })
      const transaction = await wallet.writeContract({
        address: booted.devnet.token.address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [depositAddress, 15_000_000n],
      })
      await booted.devnet.publicClient.waitForTransactionReceipt({ hash: transaction })
      const before = await booted.balance(depositor.address)

      const credited = await ok(
        await booted.paid(depositor, 'POST', '/api/v1/compute-futures/deposit', { transaction }),
      )
      expect(credited).toMatchObject({ credited: '15.000000', depositAddress, tier: 'builder' })
      const refunded = await ok(await booted.paid(depositor, 'POST', '/api/v1/compute-futures/refund', { amount: '5' }))
      expect(refunded.status).toBe('sent')
      const pricing = await ok(await booted.paid(depositor, 'GET', '/api/v1/compute-futures/pricing'))
      expect(pricing.tiers).toHaveLength(4)
      expect(pricing.deposit.base.depositAddress).toBe(depositAddress)
      // The refund came back; the three calls cost 0.01 + 0.01 + 0.001, settled on chain.
      expect(await booted.balance(depositor.address)).toBe(before + 5_000_000n - 21_000n)
      // No compute catalog on the defaults: execute says so before payment.
      const execute = await booted.fetch('http://gateway.test/api/v1/compute-futures/execute', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ job: { kind: 'text', model: 'any', prompt: 'hi' } }),
      })
      expect(execute.status).toBe(503)
    } finally {
      await booted.close()
    }
  })
})

describe('compute futures: the original gateway’s calls', () => {
  test('behavior: deposit by depositor and amount "2500" answers the unsigned transfer of 2,500 USDC to the deposit address', async () => {
    const depositor = signer(6)
    const body = await ok(
      await app.post('/api/v1/compute-futures/deposit', { depositor: depositor.address, amount: '2500' }, depositor),
    )
    expect(body).toMatchObject({
      status: 'sign_required',
      amount: '2500',
      amountRaw: '2500000000',
      depositAddress: operator.address,
      afterDeposit: { balance: `GET /api/v1/compute-futures/balance?address=${depositor.address}` },
    })
    expect(body.tiers.map((tier: any) => tier.name)).toEqual(['starter', 'builder', 'scale', 'enterprise'])
    const [transfer] = body.transactions
    expect(transfer).toMatchObject({ to: chain.token.address, value: '0x0', chainId: chain.chainId })
    expect(decodeFunctionData({ abi: erc20Abi, data: transfer.data })).toEqual({
      functionName: 'transfer',
      args: [operator.address, 2_500_000_000n],
    })
  })

  test('behavior: the transfer it hands out, signed and sent, is credited by its hash; balance and history by address in the original’s fields', async () => {
    const depositor = signer(7)
    const gateway = moduleGateway(manifest, { ports: { store: memory(), futures: treasury } })
    const asked = await ok(
      await gateway.post('/api/v1/compute-futures/deposit', { depositor: depositor.address, amount: 12.5 }, depositor),
    )
    const wallet = createWalletClient({ account: depositor, chain: chain.chain, transport: chain.transport })
    const transaction = await wallet.sendTransaction({
      to: asked.transactions[0].to as Address,
      data: asked.transactions[0].data as Hex,
    })
    await chain.publicClient.waitForTransactionReceipt({ hash: transaction })
    const credited = await ok(await gateway.post('/api/v1/compute-futures/deposit', { transaction }, depositor))
    expect(credited).toMatchObject({ credited: '12.500000', tier: 'builder' })
    const balance = await ok(
      await gateway.get(`/api/v1/compute-futures/balance?address=${depositor.address}`, depositor),
    )
    expect(balance).toMatchObject({
      address: depositor.address,
      balance: '12.5 USDC',
      balanceRaw: '12500000',
      deposited: '12.5 USDC',
      totalDrawn: '0 USDC',
      totalRefunded: '0 USDC',
      jobCount: 0,
      tier: 'builder',
      discount: '5% discount',
      discountBps: 500,
    })
    const history = await ok(
      await gateway.get(`/api/v1/compute-futures/history?address=${depositor.address}`, depositor),
    )
    expect(history).toMatchObject({
      address: depositor.address,
      onChain: { balance: '12.5 USDC', jobCount: 0, tier: 'builder' },
      usage: [],
    })
    expect(
      (await refused(await gateway.get(`/api/v1/compute-futures/balance?address=${depositor.address}`, bob()), 404))
        .status,
    ).toBe(404)
  })

  test('behavior: its MCP server’s forms: expiresInDays accepted and not applied (credit does not expire), the depositor’s address as id', async () => {
    const depositor = signer(7)
    const gateway = moduleGateway(manifest, { ports: { store: memory(), futures: treasury } })
    const asked = await ok(
      await gateway.post(
        '/api/v1/compute-futures/deposit',
        { depositor: depositor.address, amount: '3', expiresInDays: 30 },
        depositor,
      ),
    )
    expect(asked).toMatchObject({ status: 'sign_required', amountRaw: '3000000', creditExpiry: { expiresAt: null } })
    expect(asked.creditExpiry.note).toContain('does not expire')
    const transaction = await sendUsdc(depositor, operator.address, 3_000_000n)
    const credited = await ok(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, expiresInDays: 30 }, depositor),
    )
    expect(credited).toMatchObject({ credited: '3.000000', creditExpiry: { expiresAt: null } })
    // As the original reads `address || id`: the tool sends the address as `id`, in any case.
    for (const id of [depositor.address, depositor.address.toLowerCase()]) {
      const balance = await ok(await gateway.get(`/api/v1/compute-futures/balance?id=${id}`, depositor))
      expect(balance).toMatchObject({ id: credited.id, address: depositor.address, balance: '3 USDC' })
      const history = await ok(await gateway.get(`/api/v1/compute-futures/history?id=${id}&limit=10`, depositor))
      expect(history).toMatchObject({ id: credited.id, address: depositor.address, usage: [] })
    }
    // Another wallet's address as `id` is someone else's account: not found, as any other's.
    await refused(await gateway.get(`/api/v1/compute-futures/balance?id=${depositor.address}`, bob()), 404)
  })

  test('behavior: pricing in the original’s shape beside ours', async () => {
    const gateway = moduleGateway(pricingManifest, { ports: { compute } })
    const body = await ok(await gateway.get('/api/v1/compute-futures/pricing', alice()))
    expect(body.batchDiscount).toBe('10% (via /compute/batch)')
    expect(body.pricing['text-inference']).toContainEqual({
      model: 'large-model',
      size: 'default',
      label: 'large-model',
      provider: 'openai',
      basePrice: '$0.100000',
      tierPrices: {
        starter: '$0.100000 (0% off)',
        builder: '$0.095000 (5% off)',
        scale: '$0.090000 (10% off)',
        enterprise: '$0.085000 (15% off)',
      },
    })
  })

  test('error: more decimals than USDC has, under 1 USDC, amount with transaction, expiresInDays not a whole number of days, address with id: 400 before payment', async () => {
    for (const [path, body, field] of [
      ['/api/v1/compute-futures/deposit', { amount: '2500.0000001' }, 'amount'],
      ['/api/v1/compute-futures/deposit', { amount: '0.5' }, 'amount'],
      ['/api/v1/compute-futures/deposit', { amount: '5', transaction: `0x${'ab'.repeat(32)}` }, 'amount'],
      ['/api/v1/compute-futures/deposit', { amount: '5', expiresInDays: 0.5 }, 'expiresInDays'],
    ] as const) {
      const refusedBody = await refused(await app.post(path, body), 400)
      expect(JSON.stringify(refusedBody)).toContain(field)
    }
    const both = await app.get(`/api/v1/compute-futures/balance?address=${alice().address}&id=cfe_${'0'.repeat(24)}`)
    expect(both.status).toBe(400)
    // `id` is a CFE id or an address, nothing else.
    await refused(await app.get('/api/v1/compute-futures/history?id=0x1234'), 400)
  })

  test('security: a deposit or refund for another depositor is refused; the payer owns the account', async () => {
    const body = await refused(
      await app.post('/api/v1/compute-futures/deposit', { depositor: alice().address, amount: '5' }, bob()),
      403,
    )
    expect(body.detail).toContain(alice().address)
    await refused(await app.post('/api/v1/compute-futures/refund', { depositor: alice().address }, bob()), 403)
  })
})
