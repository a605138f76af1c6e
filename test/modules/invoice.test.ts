import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  type Hex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { batchChain } from '../../adapters/chain/batch.js'
import { devnet } from '../../adapters/chain/devnet.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory } from '../../adapters/store/memory.js'
import { type Event, events as eventsPort, outboxQueue } from '../../core/Events.js'
import * as Module from '../../core/Module.js'
import type { Queue } from '../../core/Queue.js'
import { invoice, manifest, scan } from '../../modules/invoice/index.js'
import { moduleGateway } from '../support/gateway.js'

let chain: devnet.Devnet
let alice: Address
let bob: Address
let carol: Address

beforeAll(async () => {
  // Blocks only on transactions: every payment below has a block of its own.
  chain = await devnet()
  ;[alice, bob, carol] = [chain.accounts[1]!.address, chain.accounts[2]!.address, chain.accounts[3]!.address]
})

afterAll(async () => {
  await chain.close()
})

/**
 * The invoice family alone in the gateway on a fresh memory store and the devnet; each call paid by its caller. With
 * `queue`, the store's outbox and the events port are on it.
 */
function setup(queue?: Queue) {
  const clock: { now: Date | undefined } = { now: undefined }
  const deps: invoice.Deps = {
    store: memory({ queue }),
    events: queue && eventsPort({ queue }),
    transfers: transfers({ client: chain.publicClient }),
    chainId: chain.chainId,
    tokens: [{ symbol: 'USDC', address: chain.token.address, decimals: chain.token.decimals }],
    now: () => clock.now ?? new Date(),
  }
  // The module keeps `deps` itself (a test swaps its transfers), with the gateway's journaled store.
  const family = Module.define({
    ...manifest,
    routes: ({ ports }) => invoice(Object.assign(deps, { store: ports.store })),
  })
  const app = moduleGateway(family, {
    ports: { store: deps.store, onchain: { chainId: deps.chainId, transfers: deps.transfers, tokens: deps.tokens } },
  })
  // Paid by the caller's own devnet key, as its wallet would.
  const request = (caller: Address, path: string, body?: unknown) =>
    app.send(
      body === undefined ? 'GET' : 'POST',
      path,
      body,
      privateKeyToAccount(chain.accounts.find((account) => account.address === caller)!.privateKey),
    )
  return {
    deps,
    clock,
    request,
    async create(caller: Address, body: Record<string, unknown>) {
      const response = await request(caller, '/api/v1/invoice/create', body)
      expect(response.status).toBe(200)
      return ((await response.json()) as { invoice: Invoice }).invoice
    },
    async read(caller: Address, id: string) {
      const response = await request(caller, `/api/v1/invoice/${id}`)
      expect(response.status).toBe(200)
      return ((await response.json()) as { invoice: Invoice }).invoice
    },
  }
}

type Invoice = {
  id: string
  status: string
  recipient: string
  transaction: { to: Address; data: Hex; value: string; chainId: number }
  payment?: { txHash: Hex; from: Address; blockNumber: string; logIndex: number; paidAt: string }
  [field: string]: unknown
}

function wallet(index: number) {
  return createWalletClient({
    account: privateKeyToAccount(chain.accounts[index]!.privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
}

/** Sends the invoice's unsigned transaction from account `index`, as a payer's wallet would; resolves with its hash. */
async function pay(index: number, transaction: Invoice['transaction']): Promise<Hex> {
  expect(transaction.chainId).toBe(chain.chainId)
  const hash = await wallet(index).sendTransaction({
    to: transaction.to,
    data: transaction.data,
    value: BigInt(transaction.value),
  })
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
  return hash
}

/** Sends `amount` devnet USDC from account `index` to `to`. */
async function transfer(index: number, to: Address, amount: bigint): Promise<Hex> {
  const hash = await wallet(index).sendTransaction({
    to: chain.token.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
  })
  await chain.publicClient.waitForTransactionReceipt({ hash })
  return hash
}

async function problem(response: Response, status: number) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return (await response.json()) as { code: string; detail: string; field?: string }
}

/** A recipient no other test pays, so transfers of one test never match another's invoices. */
function freshRecipient(): Address {
  return privateKeyToAccount(generatePrivateKey()).address
}

describe('POST /api/v1/invoice/create', () => {
  test('behavior: a date alone as dueDate is its start in UTC, as the original gateway reads it', async () => {
    const { create } = setup()
    expect((await create(alice, { creator: alice, token: 'USDC', amount: '1', dueDate: '2099-04-15' })).dueDate).toBe(
      '2099-04-15T00:00:00.000Z',
    )
  })

  test('default: an open invoice with the unsigned transfer that pays it', async () => {
    const { create } = setup()
    const before = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
    const created = await create(alice, {
      creator: alice,
      token: 'USDC',
      amount: '1.5',
      memo: 'March',
      reference: 'PO-7',
    })
    expect(created).toMatchObject({
      id: expect.stringMatching(/^inv_[0-9a-f]{32}$/),
      status: 'open',
      creator: alice,
      recipient: 'open',
      payTo: alice,
      token: { symbol: 'USDC', address: chain.token.address, decimals: 6 },
      amount: '1.5',
      amountRaw: '1500000',
      amountFormatted: '1.5',
      paymentTx: null,
      memo: 'March',
      reference: 'PO-7',
      dueDate: null,
      chainId: chain.chainId,
      network: `eip155:${chain.chainId}`,
      createdAtBlock: before.toString(),
      scannedThroughBlock: before.toString(),
      transaction: { to: chain.token.address, value: '0', chainId: chain.chainId },
    })
    expect(decodeFunctionData({ abi: erc20Abi, data: created.transaction.data })).toEqual({
      functionName: 'transfer',
      args: [alice, 1_500_000n],
    })
  })

  test('behavior: the token by address in any case, the symbol in any case, a payer and a due date', async () => {
    const { create } = setup()
    const dueDate = new Date(Date.now() + 86_400_000).toISOString()
    const byAddress = await create(alice, {
      creator: alice.toLowerCase(),
      token: chain.token.address.toLowerCase(),
      amount: '0.000001',
      recipient: bob,
      dueDate,
    })
    expect(byAddress).toMatchObject({
      creator: alice,
      recipient: bob,
      payTo: alice,
      token: { symbol: 'USDC' },
      dueDate,
    })
    expect((await create(alice, { creator: alice, token: 'usdc', amount: '0.000001' })).token).toMatchObject({
      address: chain.token.address,
    })
  })

  test('security: creator must be the caller', async () => {
    const { request } = setup()
    const body = await problem(
      await request(bob, '/api/v1/invoice/create', { creator: alice, token: 'USDC', amount: '0.000001' }),
      403,
    )
    expect(body.code).toBe('forbidden')
  })

  test.each([
    ['token', 'a symbol not configured', { token: 'DAI' }],
    ['token', 'an address not configured', { token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }],
    ['token', 'a malformed address', { token: '0x1234' }],
    ['amount', 'zero', { amount: '0' }],
    ['amount', 'more decimals than USDC has', { amount: '1.0000001' }],
    ['amount', 'in scientific notation', { amount: '1e6' }],
    ['amount', 'negative', { amount: '-1' }],
    ['amount', 'of 79 digits', { amount: '1'.repeat(79) }],
    ['payTo', 'the zero address', { payTo: '0x0000000000000000000000000000000000000000' }],
    ['payTo', 'a bad checksum', { payTo: '0x70997970c51812dc3A010C7d01b50e0d17dc79C8' }],
    ['recipient', 'a bad checksum', { recipient: '0x70997970c51812dc3A010C7d01b50e0d17dc79C8' }],
    ['creator', 'not an address', { creator: 'alice' }],
    ['memo', 'of 281 characters', { memo: 'm'.repeat(281) }],
    ['reference', 'of 65 characters', { reference: 'r'.repeat(65) }],
    ['dueDate', 'in the past', { dueDate: '2020-01-01T00:00:00Z' }],
    ['dueDate', 'not in the calendar', { dueDate: '2099-02-30T00:00:00Z' }],
    ['dueDate', 'a date not in the calendar', { dueDate: '2099-02-30' }],
    ['dueDate', 'a date in the past', { dueDate: '2020-01-01' }],
    ['dueDate', 'without an offset', { dueDate: '2099-01-01T10:00:00' }],
    ['dueDate', 'not a date', { dueDate: 'tomorrow' }],
  ] as const)('error: %s %s is 400', async (field, _, change) => {
    const { request } = setup()
    const body = await problem(
      await request(alice, '/api/v1/invoice/create', { creator: alice, token: 'USDC', amount: '0.000001', ...change }),
      400,
    )
    expect(body.code).toBe('validation_failed')
    expect(body.field).toBe(field)
  })

  test('behavior: a due date with an offset and without seconds', async () => {
    const { create } = setup()
    const created = await create(alice, {
      creator: alice,
      token: 'USDC',
      amount: '0.000001',
      dueDate: '2099-01-01T10:00+02:00',
    })
    expect(created.dueDate).toBe('2099-01-01T08:00:00.000Z')
  })
})

describe('payment detection', () => {
  test('behavior: the unsigned transaction, sent by any wallet, turns the invoice paid on the next read', async () => {
    const { create, read } = setup()
    const recipient = freshRecipient()
    const created = await create(alice, { creator: alice, payTo: recipient, token: 'USDC', amount: '2.5' })
    expect((await read(alice, created.id)).status).toBe('open')

    const hash = await pay(3, created.transaction)
    const receipt = await chain.publicClient.getTransactionReceipt({ hash })
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })
    const paid = await read(alice, created.id)
    expect(paid).toMatchObject({
      status: 'paid',
      payment: {
        txHash: hash,
        from: carol,
        blockNumber: receipt.blockNumber.toString(),
        logIndex: receipt.logs[0]!.logIndex,
        paidAt: new Date(Number(block.timestamp) * 1000).toISOString(),
      },
      observedAt: expect.any(String),
    })
    expect(paid.scannedThroughBlock).toBeUndefined()
    // Paid is final: reading again changes nothing.
    expect(await read(alice, created.id)).toEqual(paid)
  })

  test('behavior: two identical invoices need two transfers, one each', async () => {
    const { create, read } = setup()
    const recipient = freshRecipient()
    const body = { creator: alice, payTo: recipient, token: 'USDC', amount: '0.7' }
    const first = await create(alice, body)
    const second = await create(alice, body)

    const firstHash = await pay(2, first.transaction)
    expect((await read(alice, second.id)).payment?.txHash).toBe(firstHash)
    expect((await read(alice, first.id)).status).toBe('open')

    const secondHash = await pay(3, first.transaction)
    expect((await read(alice, first.id)).payment?.txHash).toBe(secondHash)
    expect((await read(alice, second.id)).payment?.txHash).toBe(firstHash)
  })

  test('behavior: a wrong amount, another recipient or another token does not pay it', async () => {
    const { create, read } = setup()
    const recipient = freshRecipient()
    const created = await create(alice, { creator: alice, payTo: recipient, token: 'USDC', amount: '1' })
    await transfer(2, recipient, 999_999n)
    await transfer(2, recipient, 1_000_001n)
    await transfer(2, freshRecipient(), 1_000_000n)
    await wallet(2).sendTransaction({ to: recipient, value: 1_000_000n })
    const stillOpen = await read(alice, created.id)
    expect(stillOpen.status).toBe('open')
    expect(BigInt(stillOpen.scannedThroughBlock as string)).toBe(
      await chain.publicClient.getBlockNumber({ cacheTime: 0 }),
    )

    const hash = await transfer(2, recipient, 1_000_000n)
    expect((await read(alice, created.id)).payment?.txHash).toBe(hash)
  })

  test('behavior: a transfer mined before the invoice was created does not pay it', async () => {
    const { create, read } = setup()
    const recipient = freshRecipient()
    await transfer(4, recipient, 42n)
    const created = await create(alice, { creator: alice, payTo: recipient, token: 'USDC', amount: '0.000042' })
    expect((await read(alice, created.id)).status).toBe('open')
  })

  test('behavior: the bare path reads the id from ?id=', async () => {
    const { create, request } = setup()
    const created = await create(alice, { creator: alice, token: 'USDC', amount: '0.000005' })
    const response = await request(alice, `/api/v1/invoice?id=${created.id}`)
    expect(response.status).toBe(200)
    expect(((await response.json()) as { invoice: Invoice }).invoice.id).toBe(created.id)
    expect((await request(alice, `/api/v1/invoice/${created.id}?id=${created.id}`)).status).toBe(200)
  })

  test('error: path and query naming different ids, or no id at all, are 400', async () => {
    const { create, request } = setup()
    const created = await create(alice, { creator: alice, token: 'USDC', amount: '0.000005' })
    expect((await problem(await request(alice, `/api/v1/invoice/${created.id}?id=inv_other`), 400)).code).toBe(
      'bad_request',
    )
    expect((await problem(await request(alice, '/api/v1/invoice'), 400)).field).toBe('id')
  })
})

describe('expiry', () => {
  test('behavior: open past its due date turns expired', async () => {
    const { create, read, clock } = setup()
    const dueDate = new Date(Date.now() + 3_600_000)
    const created = await create(alice, {
      creator: alice,
      payTo: freshRecipient(),
      token: 'USDC',
      amount: '0.000009',
      dueDate: dueDate.toISOString(),
    })
    expect((await read(alice, created.id)).status).toBe('open')
    clock.now = new Date(dueDate.getTime() + 1000)
    expect(await read(alice, created.id)).toMatchObject({ status: 'expired', expiredAt: clock.now.toISOString() })
  })

  test('behavior: paid before the due date stays paid when read after it', async () => {
    const { create, read, clock } = setup()
    const dueDate = new Date(Date.now() + 3_600_000)
    const created = await create(alice, {
      creator: alice,
      payTo: freshRecipient(),
      token: 'USDC',
      amount: '0.000011',
      dueDate: dueDate.toISOString(),
    })
    const hash = await pay(2, created.transaction)
    clock.now = new Date(dueDate.getTime() + 1000)
    expect(await read(alice, created.id)).toMatchObject({ status: 'paid', payment: { txHash: hash } })
  })

  test('behavior: a transfer mined after the due date does not pay it, and stays free for another invoice', async () => {
    const { create, read, clock } = setup()
    const recipient = freshRecipient()
    // Created two hours ago, due one hour ago: any transfer mined now is late.
    clock.now = new Date(Date.now() - 7_200_000)
    const late = await create(alice, {
      creator: alice,
      payTo: recipient,
      token: 'USDC',
      amount: '0.000013',
      dueDate: new Date(Date.now() - 3_600_000).toISOString(),
    })
    const open = await create(alice, { creator: alice, payTo: recipient, token: 'USDC', amount: '0.000013' })
    clock.now = undefined
    const hash = await pay(2, late.transaction)
    expect((await read(alice, late.id)).status).toBe('expired')
    expect((await read(alice, open.id)).payment?.txHash).toBe(hash)
  })
})

describe('GET /api/v1/invoice/list', () => {
  test('security: lists only invoices where the caller is creator or payer', async () => {
    const { create, request } = setup()
    const toBob = await create(alice, { creator: alice, recipient: bob, token: 'USDC', amount: '0.000001' })
    const own = await create(alice, { creator: alice, token: 'USDC', amount: '0.000002' })
    const carols = await create(carol, { creator: carol, token: 'USDC', amount: '0.000003' })
    const ids = async (caller: Address) => {
      const response = await request(caller, `/api/v1/invoice/list?address=${caller}`)
      expect(response.status).toBe(200)
      const body = (await response.json()) as { invoices: Invoice[]; count: number }
      expect(body.count).toBe(body.invoices.length)
      // Membership is the point here; order within one millisecond is the store's id order (its own suite).
      return body.invoices.map(({ id }) => id).sort()
    }
    expect(await ids(alice)).toEqual([own.id, toBob.id].sort())
    expect(await ids(bob)).toEqual([toBob.id])
    expect(await ids(carol)).toEqual([carols.id])
  })

  test('behavior: open invoices are refreshed', async () => {
    const { create, request } = setup()
    const created = await create(alice, { creator: alice, payTo: freshRecipient(), token: 'USDC', amount: '0.000017' })
    const hash = await pay(2, created.transaction)
    const response = await request(alice, `/api/v1/invoice/list?address=${alice.toLowerCase()}`)
    const body = (await response.json()) as { invoices: Invoice[] }
    expect(body.invoices[0]).toMatchObject({ id: created.id, status: 'paid', payment: { txHash: hash } })
  })

  test("security: another address's list is 403", async () => {
    const { request } = setup()
    expect((await problem(await request(carol, `/api/v1/invoice/list?address=${alice}`), 403)).code).toBe('forbidden')
  })

  test('error: an address that is not one is 400', async () => {
    const { request } = setup()
    expect((await problem(await request(alice, '/api/v1/invoice/list?address=alice'), 400)).field).toBe('address')
  })
})

describe('GET /api/v1/invoice/:id', () => {
  test('security: the payer it is addressed to reads it; anyone else gets the same 404 as for no invoice at all', async () => {
    const { create, read, request } = setup()
    const created = await create(alice, { creator: alice, recipient: bob, token: 'USDC', amount: '0.000001' })
    expect((await read(bob, created.id)).id).toBe(created.id)

    const hidden = await problem(await request(carol, `/api/v1/invoice/${created.id}`), 404)
    const missing = await problem(await request(carol, '/api/v1/invoice/inv_00000000000000000000000000000000'), 404)
    expect(hidden.code).toBe('not_found')
    expect(hidden.detail.replace(created.id, '<id>')).toBe(
      missing.detail.replace('inv_00000000000000000000000000000000', '<id>'),
    )
    expect((await problem(await request(carol, `/api/v1/invoice?id=${created.id}`), 404)).code).toBe('not_found')
  })
})

describe('scan', () => {
  test('behavior: finds payments and expiries without a read', async () => {
    const { create, read, deps, clock } = setup()
    const dueDate = new Date(Date.now() + 3_600_000).toISOString()
    const toPay = await create(alice, {
      creator: alice,
      payTo: freshRecipient(),
      token: 'USDC',
      amount: '0.000019',
      dueDate,
    })
    const toExpire = await create(bob, {
      creator: bob,
      payTo: freshRecipient(),
      token: 'USDC',
      amount: '0.000019',
      dueDate,
    })
    const hash = await pay(2, toPay.transaction)
    clock.now = new Date(Date.now() + 7_200_000)

    expect(await scan(deps)).toEqual({ checked: 2, paid: 1, expired: 1 })
    const record = await deps.store.get<{ status: string; payment: { txHash: Hex } }>('invoices', toPay.id)
    expect(record?.value).toMatchObject({ status: 'paid', payment: { txHash: hash } })
    expect((await deps.store.get<{ status: string }>('invoices', toExpire.id))?.value.status).toBe('expired')
    expect((await read(bob, toExpire.id)).status).toBe('expired')
    expect(await scan(deps)).toEqual({ checked: 0, paid: 0, expired: 0 })
  })

  test('behavior: a payment found is invoice.paid and transfer.seen to creator and payee, recorded once', async () => {
    const queue = memoryQueue()
    const { create, deps } = setup(queue)
    const recipient = freshRecipient()
    const toPay = await create(alice, { creator: alice, payTo: recipient, token: 'USDC', amount: '0.000023' })
    const hash = await pay(3, toPay.transaction)
    expect(await scan(deps)).toMatchObject({ paid: 1 })
    const paid = (await deps.store.get<{ payment: { logIndex: number } }>('invoices', toPay.id))!.value.payment
    for (const owner of [alice, recipient]) {
      expect((await queue.get<Event>(outboxQueue, `invoice.paid:${toPay.id}:${owner}`))?.payload).toMatchObject({
        type: 'invoice.paid',
        owner,
        data: { invoiceId: toPay.id, amountRaw: '23', token: chain.token.address, transaction: hash, payer: carol },
      })
      const seen = await queue.get<Event>(outboxQueue, `transfer.seen:${hash}:${paid.logIndex}:${owner}`)
      expect(seen?.payload).toMatchObject({
        type: 'transfer.seen',
        owner,
        data: { from: carol, to: recipient, token: chain.token.address, amountRaw: '23', transaction: hash },
      })
    }
    // Scanned or read again, the paid invoice records nothing more.
    await scan(deps)
    expect(await queue.pending()).toEqual({ [outboxQueue]: 4 })
  })

  test('behavior: walks the invoices in windows and starts over at the end', async () => {
    const { create, deps } = setup()
    for (let index = 0; index < 5; index++)
      await create(alice, { creator: alice, payTo: freshRecipient(), token: 'USDC', amount: '0.000023' })
    const checked = []
    for (let run = 0; run < 4; run++) checked.push((await scan(deps, { limit: 2 })).checked)
    expect(checked).toEqual([2, 2, 1, 2])
  })
})

describe('chain unavailable', () => {
  test('error: a node that fails makes create and reads 503, and nothing changes', async () => {
    const { create, deps, request } = setup()
    const created = await create(alice, { creator: alice, token: 'USDC', amount: '0.000029' })
    const down = async () => {
      throw new Error('connection refused')
    }
    deps.transfers = { find: down, blockNumber: down }
    const body = { creator: alice, token: 'USDC', amount: '0.000029' }
    expect((await problem(await request(alice, '/api/v1/invoice/create', body), 503)).code).toBe('upstream_unavailable')
    expect((await problem(await request(alice, `/api/v1/invoice/${created.id}`), 503)).code).toBe(
      'upstream_unavailable',
    )
    expect((await problem(await request(alice, `/api/v1/invoice/list?address=${alice}`), 503)).code).toBe(
      'upstream_unavailable',
    )
    expect((await deps.store.get<{ status: string }>('invoices', created.id))?.value.status).toBe('open')
  })
})

describe("as the original gateway's clients call it", () => {
  test('behavior: invoice/create reads "2500" as 2,500 USDC, paid to the creator by the payer named as recipient', async () => {
    const { request, read } = setup()
    // The body `spraay_invoice_create` sends: the creator is paid, the recipient is who pays.
    const response = await request(alice, '/api/v1/invoice/create', {
      creator: alice,
      recipient: bob,
      token: 'USDC',
      amount: '2500',
      memo: 'Web development - March',
      dueDate: '2099-04-15',
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body).toMatchObject({
      status: 'created',
      invoice: {
        creator: alice,
        recipient: bob,
        token: { symbol: 'USDC', address: chain.token.address, decimals: 6 },
        amount: '2500',
        amountRaw: '2500000000',
        memo: 'Web development - March',
        reference: null,
        dueDate: '2099-04-15T00:00:00.000Z',
      },
      payment: {
        transaction: { to: chain.token.address, value: '0', chainId: chain.chainId, note: expect.any(String) },
        instructions: [expect.stringContaining('2500 USDC'), expect.any(String), expect.any(String)],
      },
      lookup: { endpoint: `GET /api/v1/invoice/${body.invoice.id}` },
    })
    expect(decodeFunctionData({ abi: erc20Abi, data: body.payment.transaction.data }).args).toEqual([
      alice,
      2_500_000_000n,
    ])

    // The payer sends it: the creator receives exactly 2,500 USDC and the invoice reads paid, to the payer too.
    const balance = () =>
      chain.publicClient.readContract({
        address: chain.token.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [alice],
      })
    const before = await balance()
    const hash = await pay(2, body.payment.transaction)
    expect(await balance()).toBe(before + 2_500_000_000n)
    expect(await read(bob, body.invoice.id)).toMatchObject({ status: 'paid', paymentTx: hash, amount: '2500' })
  })

  test("behavior: a read answers its onChainCheck: the creator's balance of the token while open, null once paid", async () => {
    const { deps, request, create } = setup()
    const tokens = { USDC: chain.token.address }
    deps.balances = batchChain({
      client: chain.publicClient,
      address: chain.batch.address,
      chainId: chain.chainId,
      tokens,
    }).balances
    const created = await create(alice, { creator: alice, payTo: freshRecipient(), token: 'USDC', amount: '1.25' })
    const held = await chain.publicClient.readContract({
      address: chain.token.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [alice],
    })
    const open = (await (await request(alice, `/api/v1/invoice/${created.id}`)).json()) as any
    expect(open.onChainCheck).toEqual({
      creatorBalance: formatUnits(held, 6),
      creatorBalanceRaw: held.toString(),
      token: 'USDC',
      note: expect.stringContaining('Balance check only'),
    })
    await pay(3, created.transaction)
    const paid = (await (await request(alice, `/api/v1/invoice/${created.id}`)).json()) as any
    expect(paid).toMatchObject({ invoice: { status: 'paid' }, onChainCheck: null })
    // A chain that does not answer leaves the check out, not the read.
    deps.balances = async () => {
      throw new Error('node down')
    }
    const other = await create(alice, { creator: alice, payTo: freshRecipient(), token: 'USDC', amount: '1' })
    const unread = await request(alice, `/api/v1/invoice/${other.id}`)
    expect(unread.status).toBe(200)
    expect(((await unread.json()) as any).onChainCheck).toBeNull()
  })

  test('behavior: a JSON number is the decimal it prints as', async () => {
    const { create } = setup()
    expect(await create(alice, { creator: alice, token: 'USDC', amount: 2500.5 })).toMatchObject({
      amount: '2500.5',
      amountRaw: '2500500000',
    })
  })

  test('error: more decimals than the token has is a 400 naming amount, before any payment is asked for', async () => {
    const { deps } = setup()
    const app = moduleGateway(manifest, {
      ports: { store: deps.store, onchain: { chainId: deps.chainId, transfers: deps.transfers, tokens: deps.tokens } },
    })
    const response = await app.send('POST', '/api/v1/invoice/create', {
      creator: alice,
      token: 'USDC',
      amount: '2500.0000001',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'validation_failed', field: 'amount' })
  })

  test("behavior: invoice/list filters by status in the original words, with each invoice's role", async () => {
    const { create, request } = setup()
    const open = await create(alice, { creator: alice, recipient: bob, token: 'USDC', amount: '1' })
    const paid = await create(alice, { creator: alice, payTo: freshRecipient(), token: 'USDC', amount: '2' })
    await pay(3, paid.transaction)
    const list = async (caller: Address, status: string) => {
      const response = await request(caller, `/api/v1/invoice/list?address=${caller}&status=${status}`)
      expect(response.status).toBe(200)
      return (await response.json()) as { address: Address; invoices: Invoice[]; count: number; filters: unknown }
    }
    const pending = await list(alice, 'PENDING')
    expect(pending).toMatchObject({ address: alice, count: 1, filters: { status: 'pending' } })
    expect(pending.invoices).toEqual([expect.objectContaining({ id: open.id, status: 'open', role: 'creator' })])
    expect((await list(alice, 'paid')).invoices.map(({ id }) => id)).toEqual([paid.id])
    expect((await list(alice, 'cancelled')).count).toBe(0)
    expect((await list(bob, 'pending')).invoices).toEqual([expect.objectContaining({ id: open.id, role: 'payer' })])
  })

  test('error: a status no invoice has, or an id in the original format (INV-...), is a 400 before payment', async () => {
    const { deps } = setup()
    const app = moduleGateway(manifest, {
      ports: { store: deps.store, onchain: { chainId: deps.chainId, transfers: deps.transfers, tokens: deps.tokens } },
    })
    const status = await app.send('GET', `/api/v1/invoice/list?address=${alice}&status=funded`)
    expect(status.status).toBe(400)
    expect(await status.json()).toMatchObject({ field: 'status' })
    for (const path of ['/api/v1/invoice/INV-A1B2C3D4E5F6', '/api/v1/invoice?id=INV-A1B2C3D4E5F6']) {
      const response = await app.send('GET', path)
      expect(response.status).toBe(400)
      const refused = (await response.json()) as { field: string; detail: string }
      expect(refused.field).toBe('id')
      expect(refused.detail).toContain('inv_ and 32 hex digits')
    }
  })

  test('behavior: OpenAPI documents the unit of amount', async () => {
    const { deps } = setup()
    const app = moduleGateway(manifest, {
      ports: { store: deps.store, onchain: { chainId: deps.chainId, transfers: deps.transfers, tokens: deps.tokens } },
    })
    const openapi = (await (await app.handle(new Request('http://gateway.test/openapi.json'))).json()) as any
    const schema = openapi.paths['/api/v1/invoice/create'].post.requestBody.content['application/json'].schema
    expect(schema.properties.amount.description).toContain('"2500" is 2,500 USDC')
  })
})
