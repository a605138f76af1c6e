import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type PublicClient, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnet as startDevnet } from '../../../adapters/chain/devnet.js'
import { indexer } from '../../../adapters/history/indexer.js'
import * as TokenList from '../../../core/TokenList.js'
import { sequence } from '../../support/history.js'

// The indexer on the in-process devnet, after real transfers, a deployment and an EIP-7702 delegation.

let chain: Awaited<ReturnType<typeof startDevnet>>
let done: Awaited<ReturnType<typeof sequence>>
const entryPoint = '0x0000000071727De22E5E9d8BAf0edAc6f37da032'

beforeAll(async () => {
  chain = await startDevnet()
  done = await sequence(chain, privateKeyToAccount(chain.accounts[1]!.privateKey), entryPoint)
})
afterAll(async () => {
  await chain.close()
})

const history = (parameters: { maxBlocksPerCall?: number } = {}) =>
  indexer({ client: chain.publicClient as PublicClient, tokens: TokenList.devnet, ...parameters })

describe('indexer', () => {
  test('default: the history of an address is every transaction touching it, newest first, with amounts', async () => {
    const page = await history().transactions(done.fresh, 10)
    if (!page.ok) throw new Error(page.message)
    const payer = chain.accounts[1]!.address
    expect(page.complete).toBe(true)
    expect(page.head).toBe(await chain.publicClient.getBlockNumber())
    expect(page.transactions.map(({ hash }) => hash)).toEqual([done.delegation, done.back, done.usdc, done.eth])
    const [delegation, back, usdc, eth] = page.transactions
    expect(delegation).toMatchObject({ from: done.fresh, to: done.fresh, value: 0n, status: 'success', transfers: [] })
    expect(back).toMatchObject({ from: done.fresh, to: payer, value: parseEther('0.25'), input: '0x' })
    expect(usdc).toMatchObject({
      from: payer,
      to: chain.token.address,
      value: 0n,
      transfers: [
        { token: chain.token.address, symbol: 'USDC', decimals: 6, from: payer, to: done.fresh, amount: 12_500_000n },
      ],
    })
    expect(eth).toMatchObject({ from: payer, to: done.fresh, value: parseEther('1.5'), created: null, transfers: [] })
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: done.eth })
    expect(eth!.fee).toBe(receipt.gasUsed * receipt.effectiveGasPrice)
    expect(eth!.blockNumber).toBe(receipt.blockNumber)
  })

  test('behavior: a limit returns the newest and says the history goes on', async () => {
    const page = await history().transactions(done.fresh, 2)
    if (!page.ok) throw new Error(page.message)
    expect(page.transactions.map(({ hash }) => hash)).toEqual([done.delegation, done.back])
    expect(page.complete).toBe(false)
  })

  test('behavior: a contract created by a transaction has its creator and creating transaction', async () => {
    const answer = await history().account(done.silent.address)
    if (!answer.ok) throw new Error(answer.message)
    expect(answer.account).toMatchObject({
      seen: true,
      creator: chain.accounts[1]!.address,
      creationTransaction: done.silent.hash,
      transactionCount: 1,
      transferCount: 0,
    })
  })

  test('behavior: an address never touched is unseen, with an empty history', async () => {
    const port = history()
    const unseen = privateKeyToAccount(`0x${'7'.repeat(64)}`).address
    const page = await port.transactions(unseen, 25)
    const account = await port.account(unseen)
    expect(page).toMatchObject({ ok: true, transactions: [], complete: true })
    expect(account).toMatchObject({ ok: true, account: { seen: false, creator: null, transactionCount: 0 } })
  })

  test('behavior: each query scans at most maxBlocksPerCall blocks, resuming where the last stopped', async () => {
    const port = history({ maxBlocksPerCall: 3 })
    const first = await port.transactions(done.fresh, 10)
    const second = await port.transactions(done.fresh, 10)
    expect(first).toMatchObject({ ok: true, head: 2n })
    expect(second).toMatchObject({ ok: true, head: 5n })
  })

  test('behavior: queries that arrive together share one catch-up', async () => {
    let heads = 0
    const client = new Proxy(chain.publicClient as PublicClient, {
      get(target, key, receiver) {
        if (key === 'getBlockNumber') heads++
        return Reflect.get(target, key, receiver)
      },
    })
    const port = indexer({ client, tokens: TokenList.devnet })
    const pages = await Promise.all([
      port.transactions(done.fresh, 10),
      port.account(done.fresh),
      port.transactions(done.fresh, 1),
    ])
    expect(pages.every((page) => page.ok)).toBe(true)
    expect(heads).toBe(1)
  })

  test('error: a chain that does not answer is a failure, not a throw', async () => {
    const broken = new Proxy(chain.publicClient as PublicClient, {
      get(target, key, receiver) {
        if (key === 'getBlock') return () => Promise.reject(new Error('connection refused'))
        return Reflect.get(target, key, receiver)
      },
    })
    const page = await indexer({ client: broken, tokens: [] }).transactions(done.fresh, 10)
    expect(page).toMatchObject({ ok: false, reason: 'failed' })
    expect((page as { message: string }).message).toContain('connection refused')
  })
})
