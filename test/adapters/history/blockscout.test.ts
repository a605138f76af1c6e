import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { type Address, encodeFunctionData, erc20Abi, type Hex, pad, toHex } from 'viem'
import { blockscout } from '../../../adapters/history/blockscout.js'
import { startBlockscout } from './blockscout-fixture.js'

let server: ReturnType<typeof startBlockscout>
const wallet: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const friend: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const usdc: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const busy: Address = '0x90F79bf6EB2c4F870365E785982E1f101E93b906'
const delegated: Address = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
const delegate: Address = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B'
const unknown: Address = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'
const hash = (n: number) => pad(toHex(n), { size: 32 }) as Hex
const transferInput = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [friend, 12_500_000n] })
const usdcToken = { address: usdc, symbol: 'USDC', name: 'USD Coin', decimals: '6', type: 'ERC-20' }

beforeAll(() => {
  server = startBlockscout()
  server.address({ hash: wallet })
  server.address({ hash: friend })
  server.address({ hash: usdc, isContract: true, creator: friend, creationTransaction: hash(900) })
  server.address({ hash: delegated, proxyType: 'eip7702', implementations: [delegate] })
  // The wallet: ETH in, a USDC payment out (reverted once, then mined), and USDC in through another's transaction.
  server.transaction({
    hash: hash(1),
    block: 100,
    order: 0,
    timestamp: '2026-11-20T10:00:00.000000Z',
    from: friend,
    to: wallet,
    created: null,
    value: '1500000000000000000',
    fee: '21000000000000',
    status: 'ok',
    input: '0x',
  })
  server.transaction({
    hash: hash(2),
    block: 101,
    order: 3,
    timestamp: '2026-11-20T10:00:02.000000Z',
    from: wallet,
    to: usdc,
    created: null,
    value: '0',
    fee: '50000000000000',
    status: 'error',
    input: transferInput,
  })
  server.transaction({
    hash: hash(3),
    block: 101,
    order: 7,
    timestamp: '2026-11-20T10:00:02.000000Z',
    from: wallet,
    to: usdc,
    created: null,
    value: '0',
    fee: '60000000000000',
    status: 'ok',
    input: transferInput,
  })
  server.transfer({
    hash: hash(3),
    block: 101,
    order: 12,
    timestamp: '2026-11-20T10:00:02.000000Z',
    from: wallet,
    to: friend,
    value: '12500000',
    token: usdcToken,
  })
  server.transaction({
    hash: hash(4),
    block: 105,
    order: 1,
    timestamp: '2026-11-20T10:00:10.000000Z',
    from: friend,
    to: usdc,
    created: null,
    value: '0',
    fee: '70000000000000',
    status: 'ok',
    input: transferInput,
  })
  server.transfer({
    hash: hash(4),
    block: 105,
    order: 2,
    timestamp: '2026-11-20T10:00:10.000000Z',
    from: friend,
    to: wallet,
    value: '2000000',
    token: usdcToken,
  })
  // A busy address: 60 transactions, more than one page of 50.
  server.address({ hash: busy })
  for (let n = 0; n < 60; n++)
    server.transaction({
      hash: hash(1000 + n),
      block: 200 + n,
      order: 0,
      timestamp: new Date(Date.UTC(2026, 10, 21, 0, 0, n)).toISOString(),
      from: busy,
      to: friend,
      created: null,
      value: String(n + 1),
      fee: '1',
      status: 'ok',
      input: '0x',
    })
})
beforeEach(() => {
  server.state.failWith = undefined
  server.state.seen.length = 0
})
afterAll(() => server.stop())

const history = () => blockscout({ url: server.url, retries: 0 })

describe('blockscout: transactions', () => {
  test('default: transactions and token transfers merged per transaction, newest first', async () => {
    const page = await history().transactions(wallet, 25)
    if (!page.ok) throw new Error(page.message)
    expect(page.complete).toBe(true)
    expect(page.transactions.map(({ hash }) => hash)).toEqual([hash(4), hash(3), hash(2), hash(1)])
    const [incoming, paid, reverted, eth] = page.transactions
    expect(incoming).toMatchObject({
      from: friend,
      to: usdc,
      blockNumber: 105n,
      timestamp: Date.UTC(2026, 10, 20, 10, 0, 10) / 1000,
      transfers: [
        { token: usdc, symbol: 'USDC', decimals: 6, from: friend, to: wallet, amount: 2_000_000n, logIndex: 2 },
      ],
    })
    expect(paid).toMatchObject({ status: 'success', fee: 60_000_000_000_000n, input: transferInput, position: 7 })
    expect(paid!.transfers).toEqual([
      { token: usdc, symbol: 'USDC', decimals: 6, from: wallet, to: friend, amount: 12_500_000n, logIndex: 12 },
    ])
    expect(reverted).toMatchObject({ status: 'reverted', transfers: [] })
    expect(eth).toMatchObject({
      from: friend,
      to: wallet,
      value: 1_500_000_000_000_000_000n,
      created: null,
      input: '0x',
    })
  })

  test('behavior: a transaction that only moved the address tokens is read by its hash', async () => {
    await history().transactions(wallet, 25)
    expect(server.state.seen.map((url) => url.pathname)).toContain(`/api/v2/transactions/${hash(4)}`)
  })

  test('behavior: pages are followed by next_page_params up to the limit, and the rest is said to remain', async () => {
    const page = await history().transactions(busy, 55)
    if (!page.ok) throw new Error(page.message)
    expect(page.transactions).toHaveLength(55)
    expect(page.transactions[0]!.value).toBe(60n)
    expect(page.transactions[54]!.value).toBe(6n)
    expect(page.complete).toBe(false)
    const second = server.state.seen.find(
      (url) => url.pathname.endsWith('/transactions') && url.searchParams.has('block_number'),
    )
    expect(second?.searchParams.get('block_number')).toBe('210')
    expect(second?.searchParams.get('items_count')).toBe('50')
  })

  test('behavior: a limit within the first page reads one page', async () => {
    const page = await history().transactions(busy, 3)
    expect(page).toMatchObject({ ok: true, complete: false })
    expect(server.state.seen.filter((url) => url.pathname.endsWith('/transactions'))).toHaveLength(1)
  })

  test('behavior: an address Blockscout never saw (404) has an empty, complete history', async () => {
    expect(await history().transactions(unknown, 25)).toEqual({
      ok: true,
      transactions: [],
      complete: true,
      head: null,
    })
  })

  test('error: a 5xx is a failure with its status, never a throw', async () => {
    server.state.failWith = 502
    const page = await history().transactions(wallet, 25)
    expect(page).toMatchObject({ ok: false, reason: 'failed', status: 502 })
    expect((page as { message: string }).message).not.toContain(server.url)
  })
})

describe('blockscout: account', () => {
  test('default: a contract with its creator, creating transaction and counters', async () => {
    const answer = await history().account(usdc)
    expect(answer).toEqual({
      ok: true,
      account: {
        seen: true,
        isContract: true,
        creator: friend,
        creationTransaction: hash(900),
        proxyType: null,
        implementations: [],
        transactionCount: 3,
        transferCount: 0,
      },
    })
  })

  test('behavior: an EIP-7702 account carries its proxy type and delegate', async () => {
    const answer = await history().account(delegated)
    expect(answer).toMatchObject({ ok: true, account: { proxyType: 'eip7702', implementations: [delegate] } })
  })

  test('behavior: the wallet counters count its transactions and transfers', async () => {
    expect(await history().account(wallet)).toMatchObject({
      ok: true,
      account: { seen: true, isContract: false, transactionCount: 3, transferCount: 2 },
    })
  })

  test('behavior: an unknown address (404) is unseen', async () => {
    expect(await history().account(unknown)).toMatchObject({ ok: true, account: { seen: false, creator: null } })
  })

  test('error: a 5xx is a failure', async () => {
    server.state.failWith = 503
    expect(await history().account(wallet)).toMatchObject({ ok: false, reason: 'failed', status: 503 })
  })
})
