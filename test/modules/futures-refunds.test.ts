import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  erc20Abi,
  type Hash,
  maxUint256,
  type PrivateKeyAccount,
  parseGwei,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { account, devnet } from '../../adapters/chain/devnet.js'
import { futuresOperatorIndex, futuresTreasury } from '../../adapters/chain/futures.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory } from '../../adapters/store/memory.js'
import { postgres } from '../../adapters/store/postgres.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import * as Futures from '../../core/Futures.js'
import type { Claim } from '../../core/Queue.js'
import type { Store } from '../../core/Store.js'
import { manifest } from '../../modules/futures/index.js'
import {
  type Deps,
  holdTtlMs,
  journalOf,
  missingAfterMs,
  reconcile,
  refundQueue,
  refunds,
} from '../../modules/futures/service.js'
import { type Fixture, postgresFixture, sqliteFixture } from '../support/backends.js'
import { fundedWallet, usdcBalance } from '../support/chain.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'

// Refunds whose call never learned what became of their transfer: the devnet mines only when told to (automine off,
// no empty blocks on reads), so a receipt wait times out while the transfer waits in the mempool.

let chain: devnet.Devnet
let treasury: Futures.Treasury
const operator = privateKeyToAccount(account({ index: futuresOperatorIndex }).privateKey)

beforeAll(async () => {
  chain = await devnet()
  treasury = futuresTreasury({
    client: chain.publicClient,
    chainId: chain.chainId,
    token: chain.token.address,
    depositAddress: operator.address,
    operator: { account: operator, chain: chain.chain, transport: chain.transport },
    receiptTimeoutMs: 200,
  })
})

afterAll(async () => {
  await chain.close()
})

afterEach(async () => {
  await chain.request('evm_setAutomine', [true])
})

const signer = (index: number): PrivateKeyAccount => privateKeyToAccount(chain.accounts[index]!.privateKey)

/** Sends `amount` devnet USDC from `from` to `to`, mined; its hash. */
async function sendUsdc(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<Hash> {
  const wallet = createWalletClient({ account: from, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.writeContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, amount],
  })
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
  return hash
}

/** A gateway of the futures family on `books`, the depositor's account credited with `amount`. */
async function funded(books: Store, depositor: PrivateKeyAccount, amount: bigint) {
  const gateway = moduleGateway(manifest, { ports: { store: books, futures: treasury } })
  const transaction = await sendUsdc(depositor, operator.address, amount)
  const { id } = await ok(await gateway.post('/api/v1/compute-futures/deposit', { transaction }, depositor))
  return { gateway, id: id as string }
}

/** A refund of `amount` (USD) whose receipt wait times out with the transfer in the mempool: its 504's details. */
async function unknownRefund(gateway: Awaited<ReturnType<typeof funded>>['gateway'], depositor: PrivateKeyAccount) {
  await chain.request('evm_setAutomine', [false])
  const body = await refused(await gateway.post('/api/v1/compute-futures/refund', { amount: '1' }, depositor), 504)
  expect(body.detail).toContain('never sent again')
  return body as { refund: string; transaction: Hash }
}

const deps = (books: Store, now?: Date): Deps => ({
  books,
  treasury,
  confirmations: 1n,
  ...(now ? { now: () => now } : {}),
})
const later = (ms: number) => new Date(Date.now() + ms)
const withQueue = () => memory({ queue: memoryQueue() })

/** The kinds of the account's journal, each with its amount. */
async function kinds(books: Store, id: string) {
  const entries = await books.entries<{ kind: string; amount: string }>(journalOf(id))
  return entries.map((entry) => `${entry.value.kind} ${entry.value.amount}`)
}

describe('reconcile', () => {
  test('default: a refund whose receipt wait timed out is recorded as refunded once its transfer is mined', async () => {
    const books = withQueue()
    const depositor = signer(1)
    const { gateway, id } = await funded(books, depositor, 3_000_000n)
    const before = await usdcBalance(chain, depositor.address)
    const { refund, transaction } = await unknownRefund(gateway, depositor)
    const held = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(held.balances).toMatchObject({ available: '2.000000', refunding: '1.000000', refunded: '0.000000' })

    // Still in the mempool: the worker looks again later, and moves nothing.
    expect(await reconcile(deps(books), refund)).toMatchObject({ retryAt: expect.any(Date) })
    await chain.request('evm_mine', [])
    expect(await reconcile(deps(books), refund)).toEqual({ done: true })
    expect(await reconcile(deps(books), refund)).toEqual({ done: true })

    expect(await usdcBalance(chain, depositor.address)).toBe(before + 1_000_000n)
    const balance = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(balance.balances).toMatchObject({ available: '2.000000', refunding: '0.000000', refunded: '1.000000' })
    const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
    expect(history.entries.at(-1)).toMatchObject({ kind: 'refund', amount: '1.000000', job: refund, transaction })
    expect(await kinds(books, id)).toEqual(['deposit 3000000', 'hold 1000000', 'refund 1000000'])
    expect((await books.get<Futures.Refund>(refunds, refund))?.value).toMatchObject({
      state: 'refunded',
      signed: { hash: transaction },
      sequence: 3,
    })
  })

  test('behavior: a dropped transfer is waited for, then its credit comes back once the node has not known it long enough', async () => {
    const books = withQueue()
    const depositor = signer(2)
    const { gateway, id } = await funded(books, depositor, 2_000_000n)
    const before = await usdcBalance(chain, depositor.address)
    const { refund, transaction } = await unknownRefund(gateway, depositor)
    await chain.request('hardhat_dropTransaction', [transaction])
    await chain.request('evm_setAutomine', [true])

    expect(await reconcile(deps(books), refund)).toMatchObject({ retryAt: expect.any(Date) })
    expect(await kinds(books, id)).toEqual(['deposit 2000000', 'hold 1000000'])
    expect(await reconcile(deps(books, later(missingAfterMs + 1_000)), refund)).toEqual({ done: true })

    expect(await kinds(books, id)).toEqual(['deposit 2000000', 'hold 1000000', 'reverse 1000000'])
    const balance = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(balance.balances).toMatchObject({ available: '2.000000', refunding: '0.000000', refunded: '0.000000' })
    expect(await usdcBalance(chain, depositor.address)).toBe(before)
    const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
    expect(history.entries.at(-1).reason).toContain('unknown to the node')
  })

  test('behavior: a transfer whose nonce another transaction took is reversed at once, and the later refund stands', async () => {
    const books = withQueue()
    const depositor = signer(3)
    const { gateway, id } = await funded(books, depositor, 2_000_000n)
    const before = await usdcBalance(chain, depositor.address)
    const first = await unknownRefund(gateway, depositor)
    await chain.request('hardhat_dropTransaction', [first.transaction])
    await chain.request('evm_setAutomine', [true])
    // The next refund signs the same nonce (same recipient, same amount, another transaction), and is mined.
    const second = await ok(await gateway.post('/api/v1/compute-futures/refund', { amount: '1' }, depositor))
    expect(second.status).toBe('sent')

    expect(await reconcile(deps(books), first.refund)).toEqual({ done: true })
    expect(await kinds(books, id)).toEqual([
      'deposit 2000000',
      'hold 1000000',
      'hold 1000000',
      'refund 1000000',
      'reverse 1000000',
    ])
    expect(await usdcBalance(chain, depositor.address)).toBe(before + 1_000_000n)
    const balance = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(balance.balances).toMatchObject({ available: '1.000000', refunding: '0.000000', refunded: '1.000000' })
    const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
    expect(history.entries.at(-1)).toMatchObject({ kind: 'reverse', transaction: first.transaction })
    expect(history.entries.at(-1).reason).toContain('replaced')
  })

  test('behavior: a transfer that reverts once mined gives the credit back', async () => {
    const books = withQueue()
    const depositor = signer(4)
    const { gateway, id } = await funded(books, depositor, 2_000_000n)
    const before = await usdcBalance(chain, depositor.address)
    // The operator lets a sweeper move its USDC; the sweep, mined ahead of the refund in one block, empties it.
    const sweeper = signer(5)
    const operatorWallet = createWalletClient({ account: operator, chain: chain.chain, transport: chain.transport })
    await chain.publicClient.waitForTransactionReceipt({
      hash: await operatorWallet.writeContract({
        address: chain.token.address,
        abi: erc20Abi,
        functionName: 'approve',
        args: [sweeper.address, maxUint256],
      }),
    })
    const { refund, transaction } = await unknownRefund(gateway, depositor)
    const held = await usdcBalance(chain, operator.address)
    const sweeperWallet = createWalletClient({ account: sweeper, chain: chain.chain, transport: chain.transport })
    await sweeperWallet.writeContract({
      address: chain.token.address,
      abi: erc20Abi,
      functionName: 'transferFrom',
      args: [operator.address, sweeper.address, held],
      // Estimated on the pending block, where the refund took its share already, it would fail: no estimate.
      gas: 100_000n,
      maxPriorityFeePerGas: parseGwei('100'),
      maxFeePerGas: parseGwei('200'),
    })
    await chain.request('evm_mine', [])
    await chain.request('evm_setAutomine', [true])
    expect((await chain.publicClient.getTransactionReceipt({ hash: transaction })).status).toBe('reverted')
    try {
      expect(await reconcile(deps(books), refund)).toEqual({ done: true })
      expect(await kinds(books, id)).toEqual(['deposit 2000000', 'hold 1000000', 'reverse 1000000'])
      const history = await ok(await gateway.get('/api/v1/compute-futures/history', depositor))
      expect(history.entries.at(-1)).toMatchObject({ kind: 'reverse', transaction })
      expect(history.entries.at(-1).balances).toMatchObject({ available: '2.000000', refunding: '0.000000' })
      expect(await usdcBalance(chain, depositor.address)).toBe(before)
    } finally {
      await sendUsdc(sweeper, operator.address, held)
    }
  })

  test('behavior: a hold whose call stopped before signing is reversed after its TTL, and its transfer is never sent', async () => {
    const books = withQueue()
    const depositor = signer(6)
    let resume: () => void = () => {}
    const paused = new Promise<void>((resolve) => {
      resume = resolve
    })
    let reached: () => void = () => {}
    const sending = new Promise<void>((resolve) => {
      reached = resolve
    })
    // A call that stalls between its hold and its transfer (a process that stopped there, as far as the store knows).
    const stalling: Futures.Treasury = {
      ...treasury,
      send: async (parameters) => {
        reached()
        await paused
        return treasury.send!(parameters)
      },
    }
    const { id } = await funded(books, depositor, 2_000_000n)
    const gateway = moduleGateway(manifest, { ports: { store: books, futures: stalling } })
    const nonce = await chain.publicClient.getTransactionCount({ address: operator.address })
    const answer = gateway.post('/api/v1/compute-futures/refund', { amount: '1' }, depositor)
    await sending
    const [refund] = (await books.entries<{ job?: string }>(journalOf(id))).flatMap((entry) =>
      entry.value.job ? [entry.value.job] : [],
    )

    // Within its TTL the call owns it; past it, the worker reverses the hold.
    expect(await reconcile(deps(books), refund!)).toMatchObject({ retryAt: expect.any(Date) })
    expect(await reconcile(deps(books, later(holdTtlMs + 1_000)), refund!)).toEqual({ done: true })
    expect(await kinds(books, id)).toEqual(['deposit 2000000', 'hold 1000000', 'reverse 1000000'])

    // The call resumes: its transfer is signed, but the record refuses it, so nothing is broadcast.
    resume()
    const body = await refused(await answer, 502)
    expect(body.detail).toContain('available again')
    expect(await chain.publicClient.getTransactionCount({ address: operator.address })).toBe(nonce)
    expect(await kinds(books, id)).toEqual(['deposit 2000000', 'hold 1000000', 'reverse 1000000'])
    expect((await books.get<Futures.Refund>(refunds, refund!))?.value).toMatchObject({ state: 'reversed' })
  })

  test('behavior: a refund refused for want of credit leaves a closed record and nothing held', async () => {
    const books = withQueue()
    const depositor = signer(7)
    const { gateway, id } = await funded(books, depositor, 1_000_000n)
    await refused(await gateway.post('/api/v1/compute-futures/refund', { amount: '5' }, depositor), 409)
    expect(await kinds(books, id)).toEqual(['deposit 1000000'])
    const balance = await ok(await gateway.get('/api/v1/compute-futures/balance', depositor))
    expect(balance.balances).toMatchObject({ available: '1.000000', refunding: '0.000000' })
  })
})

const databases: (readonly [string, () => Promise<Fixture<Store>>])[] = [
  ['embedded SQLite', async () => sqliteFixture('futures_refunds', (path) => sqlite({ path }))],
  ...(process.env.DATABASE_URL
    ? [
        [
          'PostgreSQL',
          () => postgresFixture(process.env.DATABASE_URL!, 'futures_refunds', (sql) => postgres({ sql })),
        ] as const,
      ]
    : []),
]

describe.each(databases)('the refund worker on two store connections (%s)', (_, fixture) => {
  test('behavior: both workers reconcile the same mined refund at once; it is refunded once', async () => {
    const database = await fixture()
    try {
      const depositor = await fundedWallet(chain, 5_000_000n)
      const [first, second] = [database.open(), database.open()]
      const { gateway, id } = await funded(first, depositor, 3_000_000n)
      const before = await usdcBalance(chain, depositor.address)
      const { refund } = await unknownRefund(gateway, depositor)
      await chain.request('evm_mine', [])

      // The module's own worker, as each process's runner would call it on a claimed item.
      const workers = [first, second].map(
        (books) =>
          moduleGateway(manifest, { ports: { store: books, futures: treasury } }).workers.find(
            (worker) => worker.queue === refundQueue,
          )!,
      )
      const item = { queue: refundQueue, id: refund, payload: { id: refund } } as unknown as Claim
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, index) => workers[index % 2]!.run(item)))
      // One took the record and settled it; the others found it taken (a retry) or settled (done).
      expect(outcomes.some((outcome) => 'done' in outcome)).toBe(true)
      expect(await workers[1]!.run(item)).toEqual({ done: true })

      expect(await kinds(second, id)).toEqual(['deposit 3000000', 'hold 1000000', 'refund 1000000'])
      expect(await usdcBalance(chain, depositor.address)).toBe(before + 1_000_000n)
      const entries = await second.entries<{ balances: Futures.SerializedBalances }>(journalOf(id))
      for (const entry of entries) {
        const accounts = Futures.accountsOf(Futures.deserialize(entry.value.balances))
        expect(accounts.usdc).toBe(accounts.available + accounts.reserved + accounts.refunding + accounts.revenue)
      }
    } finally {
      await database.teardown()
    }
  })
})
