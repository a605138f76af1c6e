import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createWalletClient, erc20Abi, type Hash, type PrivateKeyAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { account, devnet } from '../../adapters/chain/devnet.js'
import { futuresOperatorIndex, futuresTreasury } from '../../adapters/chain/futures.js'
import { memory } from '../../adapters/store/memory.js'
import type * as Futures from '../../core/Futures.js'
import { manifest, pricingManifest } from '../../modules/futures/index.js'
import { usdcBalance } from '../support/chain.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'

let chain: devnet.Devnet
let treasury: Futures.Treasury
let app: ReturnType<typeof moduleGateway>
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
  app = moduleGateway(manifest, { ports: { books: memory(), futures: treasury } })
})

afterAll(async () => {
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
    const gateway = moduleGateway(manifest, { ports: { books: memory(), futures: treasury } })
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
      tier: { name: 'bronze', discountPercent: 5 },
      discountPercent: 5,
      nextTier: { name: 'silver', missing: '37.500000' },
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
      ports: { books: memory(), futures: treasury },
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
    const gateway = moduleGateway(manifest, { ports: { books: memory(), futures: treasury } })
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
    const gateway = moduleGateway(manifest, { ports: { books: memory(), futures: treasury } })
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
    const gateway = moduleGateway(manifest, { ports: { books: memory(), futures: poorTreasury } })
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
    const gateway = moduleGateway(manifest, { ports: { books: memory(), futures: readOnly } })
    const body = await refused(await gateway.post('/api/v1/compute-futures/refund', {}), 503)
    expect(body.detail).toContain('FUTURES_OPERATOR_PRIVATE_KEY')
  })
})

describe('GET /api/v1/compute-futures/pricing', () => {
  test('default: the tiers and the batch discount, with no compute model configured', async () => {
    const gateway = moduleGateway(pricingManifest)
    const body = await ok(await gateway.get('/api/v1/compute-futures/pricing', alice()))
    expect(body.tiers).toEqual([
      { name: 'none', minimum: '0.000000', discountPercent: 0 },
      { name: 'bronze', minimum: '10.000000', discountPercent: 5 },
      { name: 'silver', minimum: '50.000000', discountPercent: 10 },
      { name: 'gold', minimum: '200.000000', discountPercent: 15 },
    ])
    expect(body.models).toEqual([])
  })
})
