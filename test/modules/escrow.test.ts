import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  type PrivateKeyAccount,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { batchChain } from '../../adapters/chain/batch.js'
import { devnet } from '../../adapters/chain/devnet.js'
import { escrowChain } from '../../adapters/chain/escrow.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory } from '../../adapters/store/memory.js'
import * as Escrow from '../../core/Escrow.js'
import { type Event, events, outboxQueue } from '../../core/Events.js'
import * as Units from '../../core/Units.js'
import { manifest } from '../../modules/escrow/index.js'
import { moduleGateway } from '../support/gateway.js'

let chain: devnet.Devnet
let app: ReturnType<typeof moduleGateway>
/** The outbox of the store and of the events port. */
const queue = memoryQueue()

beforeAll(async () => {
  chain = await devnet()
  // The escrow family alone in the gateway; each call is paid by the account the test names.
  app = moduleGateway(manifest, {
    ports: {
      store: memory({ queue }),
      queue,
      events: events({ queue }),
      escrow: escrowChain({ client: chain.publicClient, address: chain.escrow.address, chainId: chain.chainId }),
      // Token balances are read through the batch contract's chain, for the original gateway's balanceCheck.
      batch: {
        base: batchChain({
          client: chain.publicClient,
          address: chain.batch.address,
          chainId: chain.chainId,
          tokens: { USDC: chain.token.address },
        }),
      },
      onchain: {
        chainId: chain.chainId,
        transfers: transfers({ client: chain.publicClient }),
        tokens: [{ symbol: 'USDC', address: chain.token.address, decimals: 6 }],
      },
    },
  })
})

afterAll(async () => {
  await chain.close()
})

const depositor = () => signer(1)
const beneficiary = () => signer(2)
const arbiter = () => signer(3)
const outsider = () => signer(4)

function signer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

/** A request paid by `payer`. */
async function call(payer: PrivateKeyAccount, method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await app.send(method, path, body, payer)
  return { status: response.status, body: (await response.json()) as any }
}

/** Signs and sends an unsigned transaction the gateway returned, from `account`. */
async function send(
  account: PrivateKeyAccount,
  transaction: { to: Address; data: Hex; value: string; chainId: number },
) {
  expect(transaction.chainId).toBe(chain.chainId)
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.sendTransaction({
    to: transaction.to,
    data: transaction.data,
    value: BigInt(transaction.value),
  })
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
}

function balanceOf(address: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
}

/** Creates an escrow from the depositor to the beneficiary, with the arbiter unless overridden. */
async function create(overrides: Record<string, unknown> = {}) {
  const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/create', {
    depositor: depositor().address,
    beneficiary: beneficiary().address,
    token: 'USDC',
    amount: '25.5',
    arbiter: arbiter().address,
    ...overrides,
  })
  expect(status).toBe(200)
  return body.escrow as { id: Hex; transactions: { approve: any; deposit: any } } & Record<string, any>
}

/** Creates an escrow, sends its approve and deposit from the depositor, and funds it through the gateway. */
async function funded(overrides: Record<string, unknown> = {}) {
  const created = await create(overrides)
  await send(depositor(), created.transactions.approve)
  await send(depositor(), created.transactions.deposit)
  const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
  expect(status).toBe(200)
  expect(body.status).toBe('active')
  return created
}

describe('POST /api/v1/escrow/create', () => {
  test('default: records the escrow and returns the approve and deposit transactions', async () => {
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/create', {
      depositor: depositor().address,
      beneficiary: beneficiary().address,
      token: 'usdc',
      amount: '25.5',
    })
    expect(status).toBe(200)
    expect(body.status).toBe('created')
    const { id, createdAt, transactions, expiry, expiresAt, ...rest } = body.escrow
    expect(id).toMatch(/^0x[0-9a-f]{64}$/)
    expect(new Date(createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000)
    // No expiry asked for is the original gateway's default: 168 hours, cut to the whole second the contract keeps.
    expect(expiry).toBe(new Date(Math.floor(Date.parse(createdAt) / 1000) * 1000 + 168 * 3_600_000).toISOString())
    expect(expiresAt).toBe(expiry)
    expect(rest).toEqual({
      status: 'created',
      chainId: chain.chainId,
      contract: chain.escrow.address,
      depositor: depositor().address,
      beneficiary: beneficiary().address,
      arbiter: null,
      token: { symbol: 'USDC', address: chain.token.address, decimals: 6 },
      amount: '25.5',
      amountRaw: '25500000',
      amountFormatted: '25.5',
      expiresInHours: 168,
      description: null,
      conditions: [],
      fundedAt: null,
      settledAt: null,
    })
    expect(transactions).toEqual({
      approve: {
        to: chain.token.address,
        data: Escrow.approve({ spender: chain.escrow.address, amount: 25_500_000n }),
        value: '0',
        chainId: chain.chainId,
      },
      deposit: {
        to: chain.escrow.address,
        data: expect.stringMatching(/^0x35dd0576/),
        value: '0',
        chainId: chain.chainId,
      },
    })
  })

  test('behavior: the token by address, an arbiter, and an expiry in ISO 8601 or Unix seconds', async () => {
    const seconds = Math.floor(Date.now() / 1000) + 86_400
    const iso = await create({
      token: chain.token.address.toLowerCase(),
      expiry: new Date(seconds * 1000).toISOString(),
    })
    const unix = await create({ expiry: String(seconds) })
    const number = await create({ expiry: seconds })
    for (const escrow of [iso, unix, number]) {
      expect(escrow.arbiter).toBe(arbiter().address)
      expect(escrow.expiry).toBe(new Date(seconds * 1000).toISOString())
    }
  })

  test('behavior: the ids are random and distinct', async () => {
    const ids = await Promise.all([create(), create(), create()].map(async (escrow) => (await escrow).id))
    expect(new Set(ids).size).toBe(3)
  })

  test.each([
    ['amount', { amount: '1.0000001' }],
    ['amount', { amount: '0' }],
    ['amount', { amount: '-1' }],
    ['amount', { amount: '1e6' }],
    ['amount', { amount: '1'.repeat(79) }],
    ['token', { token: 'DOGE' }],
    ['beneficiary', { beneficiary: '0x1234' }],
    ['beneficiary', { beneficiary: '0x0000000000000000000000000000000000000000' }],
    ['expiry', { expiry: '2001-01-01T00:00:00Z' }],
    ['expiry', { expiry: 'tomorrow' }],
    ['expiry', { expiry: '2031-01-01T00:00:00' }],
    ['expiresIn', { expiresIn: 0 }],
    ['expiresIn', { expiresIn: '24' }],
    ['expiresIn', { expiresIn: 24, expiry: '2031-01-01T00:00:00Z' }],
    ['description', { description: 'd'.repeat(1001) }],
    ['conditions', { conditions: 'Design approved' }],
    ['conditions.1', { conditions: ['Design approved', ''] }],
  ])('error: a bad %s is 400 (%o)', async (field, overrides) => {
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/create', {
      depositor: depositor().address,
      beneficiary: beneficiary().address,
      token: 'USDC',
      amount: '1',
      ...overrides,
    })
    expect(status).toBe(400)
    expect(body.field).toBe(field)
  })

  test('security: the depositor must be the paying wallet (403)', async () => {
    const { status, body } = await call(outsider(), 'POST', '/api/v1/escrow/create', {
      depositor: depositor().address,
      beneficiary: outsider().address,
      token: 'USDC',
      amount: '1',
    })
    expect(status).toBe(403)
    expect(body).toMatchObject({ code: 'forbidden', field: 'depositor' })
  })
})

describe('POST /api/v1/escrow/fund', () => {
  test('default: verifies the deposit on chain and turns the escrow active', async () => {
    const created = await create()
    await send(depositor(), created.transactions.approve)
    await send(depositor(), created.transactions.deposit)
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
    expect(status).toBe(200)
    expect(body.status).toBe('active')
    expect(body.escrow.fundedAt).toEqual(expect.any(String))
    expect(body.escrow.transactions).toBeUndefined()
  })

  test('behavior: idempotent, and any party may ask', async () => {
    const created = await funded()
    for (const party of [depositor(), beneficiary(), arbiter()]) {
      const { status, body } = await call(party, 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
      expect(status).toBe(200)
      expect(body.status).toBe('active')
    }
  })

  test('behavior: before the deposit is on chain, a charged 200 awaiting_deposit with the transactions to sign', async () => {
    const created = await create({ amount: '2500' })
    const settledBefore = app.settled.length
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
    expect(status).toBe(200)
    expect(app.settled.length).toBe(settledBefore + 1)
    expect(body).toMatchObject({
      status: 'awaiting_deposit',
      charged: true,
      escrow: { id: created.id, status: 'created', amount: '2500', amountRaw: '2500000000' },
      nextSteps: [expect.stringContaining(depositor().address), expect.stringContaining('/api/v1/escrow/fund')],
    })
    // Exactly what create handed out: approve the contract for 2,500 USDC, then deposit 2,500 USDC under the id.
    expect(body.transactions).toEqual(created.transactions)
    expect(decodeFunctionData({ abi: erc20Abi, data: body.transactions.approve.data }).args).toEqual([
      chain.escrow.address,
      2_500_000_000n,
    ])
    expect(decodeFunctionData({ abi: Escrow.abi, data: body.transactions.deposit.data }).args?.slice(0, 3)).toEqual([
      created.id,
      chain.token.address,
      2_500_000_000n,
    ])
    expect((await call(depositor(), 'GET', `/api/v1/escrow/${created.id}`)).body.escrow.status).toBe('created')

    await send(depositor(), body.transactions.approve)
    await send(depositor(), body.transactions.deposit)
    const funded = await call(depositor(), 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
    expect(funded.body).toMatchObject({ status: 'active', escrow: { status: 'active', amount: '2500' } })
  })

  test('error: other terms deposited under the id are 409 mismatch; the record stays created', async () => {
    const created = await create()
    // The depositor deposits under the gateway's id but for less than the escrow says.
    await send(depositor(), created.transactions.approve)
    const short = encodeFunctionData({
      abi: Escrow.abi,
      functionName: 'deposit',
      args: [
        created.id,
        chain.token.address,
        1n,
        beneficiary().address,
        arbiter().address,
        BigInt(Date.parse(created.expiry) / 1000),
      ],
    })
    await send(depositor(), { ...created.transactions.deposit, data: short })
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
    expect(status).toBe(409)
    expect(body).toMatchObject({ code: 'conflict', reason: 'mismatch', fields: ['amount'] })
    expect((await call(depositor(), 'GET', `/api/v1/escrow/${created.id}`)).body.escrow.status).toBe('created')
  })

  test('error: the escrowId must be 32 bytes of hex (400)', async () => {
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/fund', { escrowId: 'abc' })
    expect(status).toBe(400)
    expect(body.field).toBe('escrowId')
  })

  test('security: an outsider gets 404', async () => {
    const created = await create()
    await send(depositor(), created.transactions.approve)
    await send(depositor(), created.transactions.deposit)
    const { status, body } = await call(outsider(), 'POST', '/api/v1/escrow/fund', { escrowId: created.id })
    expect(status).toBe(404)
    expect(body.code).toBe('not_found')
  })
})

describe('POST /api/v1/escrow/release', () => {
  test('default: the depositor signs the returned transaction and the beneficiary receives exactly the amount', async () => {
    const created = await funded({ amount: '25.5' })
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/release', {
      escrowId: created.id,
      caller: depositor().address,
    })
    expect(status).toBe(200)
    expect(body).toEqual({
      status: 'active',
      escrowId: created.id,
      escrow: expect.objectContaining({
        id: created.id,
        status: 'active',
        amount: '25.5',
        amountRaw: '25500000',
        releasedBy: 'depositor',
      }),
      transaction: {
        to: chain.escrow.address,
        data: Escrow.release({ id: created.id }),
        value: '0',
        chainId: chain.chainId,
        signer: depositor().address,
      },
    })

    const before = await balanceOf(beneficiary().address)
    await send(depositor(), body.transaction)
    expect(await balanceOf(beneficiary().address)).toBe(before + 25_500_000n)

    // A later read reconciles the record with the chain.
    const read = await call(beneficiary(), 'GET', `/api/v1/escrow/${created.id}`)
    expect(read.body.escrow).toMatchObject({ status: 'released', settledAt: expect.any(String) })
    const listed = await call(beneficiary(), 'GET', `/api/v1/escrow/list?address=${beneficiary().address}`)
    expect(listed.body.escrows.find((escrow: { id: Hex }) => escrow.id === created.id).status).toBe('released')

    // Each move read off the contract is an event to every party, recorded once however often it is read.
    await call(arbiter(), 'GET', `/api/v1/escrow/${created.id}`)
    for (const type of ['escrow.funded', 'escrow.released'])
      for (const party of [depositor(), beneficiary(), arbiter()]) {
        const item = await queue.get<Event>(outboxQueue, `${type}:${created.id}:${party.address}`)
        expect(item?.payload).toMatchObject({
          type,
          owner: party.address,
          data: { escrowId: created.id, amountRaw: '25500000', token: chain.token.address, transaction: null },
        })
      }
    expect(await queue.get(outboxQueue, `escrow.cancelled:${created.id}:${depositor().address}`)).toBeUndefined()
  })

  test('behavior: the arbiter may release', async () => {
    const created = await funded({ amount: '1' })
    const { status, body } = await call(arbiter(), 'POST', '/api/v1/escrow/release', {
      escrowId: created.id,
      caller: arbiter().address,
    })
    expect(status).toBe(200)
    const before = await balanceOf(beneficiary().address)
    await send(arbiter(), body.transaction)
    expect(await balanceOf(beneficiary().address)).toBe(before + 1_000_000n)
  })

  test('error: before it is funded, 409 not_funded', async () => {
    const created = await create()
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/release', {
      escrowId: created.id,
      caller: depositor().address,
    })
    expect(status).toBe(409)
    expect(body).toMatchObject({ code: 'conflict', reason: 'not_funded' })
  })

  test('error: once released on chain, another release is 409 settled', async () => {
    const created = await funded({ amount: '1' })
    const release = { escrowId: created.id, caller: depositor().address }
    await send(depositor(), (await call(depositor(), 'POST', '/api/v1/escrow/release', release)).body.transaction)
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/release', release)
    expect(status).toBe(409)
    expect(body).toMatchObject({ status: 409, reason: 'settled', escrowStatus: 'released' })
    expect((await call(depositor(), 'POST', '/api/v1/escrow/cancel', release)).status).toBe(409)
  })

  test('security: caller must be the paying wallet (403)', async () => {
    const created = await funded({ amount: '1' })
    const { status, body } = await call(beneficiary(), 'POST', '/api/v1/escrow/release', {
      escrowId: created.id,
      caller: depositor().address,
    })
    expect(status).toBe(403)
    expect(body).toMatchObject({ code: 'forbidden', field: 'caller' })
  })

  test('security: the beneficiary cannot release (403)', async () => {
    const created = await funded({ amount: '1' })
    const { status, body } = await call(beneficiary(), 'POST', '/api/v1/escrow/release', {
      escrowId: created.id,
      caller: beneficiary().address,
    })
    expect(status).toBe(403)
    expect(body).toMatchObject({ code: 'forbidden', action: 'release' })
  })

  test('security: an outsider gets 404, the same as for an escrow that does not exist', async () => {
    const created = await funded({ amount: '1' })
    const missing = toHex(crypto.getRandomValues(new Uint8Array(32)))
    const theirs = await call(outsider(), 'POST', '/api/v1/escrow/release', {
      escrowId: created.id,
      caller: outsider().address,
    })
    const none = await call(outsider(), 'POST', '/api/v1/escrow/release', {
      escrowId: missing,
      caller: outsider().address,
    })
    expect(theirs.status).toBe(404)
    // Each answer has its own request id; everything else is the same.
    expect({ ...theirs.body, detail: theirs.body.detail.replace(created.id, '<id>'), requestId: '<id>' }).toEqual({
      ...none.body,
      detail: none.body.detail.replace(missing, '<id>'),
      requestId: '<id>',
    })
  })
})

describe('POST /api/v1/escrow/cancel', () => {
  test('default: cancelling an active escrow returns exactly the amount to the depositor', async () => {
    const before = await balanceOf(depositor().address)
    const created = await funded({ amount: '7.25' })
    expect(await balanceOf(depositor().address)).toBe(before - 7_250_000n)
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/cancel', {
      escrowId: created.id,
      caller: depositor().address,
    })
    expect(status).toBe(200)
    expect(body.transaction).toEqual({
      to: chain.escrow.address,
      data: Escrow.cancel({ id: created.id }),
      value: '0',
      chainId: chain.chainId,
      signer: depositor().address,
    })
    expect(body.escrow).toMatchObject({ amount: '7.25', amountRaw: '7250000', cancelledBy: 'depositor' })
    await send(depositor(), body.transaction)
    expect(await balanceOf(depositor().address)).toBe(before)
    expect((await call(depositor(), 'GET', `/api/v1/escrow?id=${created.id}`)).body.escrow.status).toBe('cancelled')
  })

  test('error: before it is funded, 409 not_funded', async () => {
    const created = await create()
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/cancel', {
      escrowId: created.id,
      caller: depositor().address,
    })
    expect(status).toBe(409)
    expect(body.reason).toBe('not_funded')
  })

  test('security: the beneficiary cancels only from the expiry on', async () => {
    const expiry = new Date((Math.floor(Date.now() / 1000) + 3) * 1000)
    const created = await funded({ amount: '2', expiry: expiry.toISOString() })
    const cancel = { escrowId: created.id, caller: beneficiary().address }
    const early = await call(beneficiary(), 'POST', '/api/v1/escrow/cancel', cancel)
    expect(early.status).toBe(403)
    expect(early.body.detail).toContain(expiry.toISOString())
    while (
      Date.now() < expiry.getTime() ||
      (await chain.publicClient.getBlock({ blockTag: 'pending' })).timestamp * 1000n < BigInt(expiry.getTime())
    )
      await Bun.sleep(250)
    const { status, body } = await call(beneficiary(), 'POST', '/api/v1/escrow/cancel', cancel)
    expect(status).toBe(200)
    const before = await balanceOf(depositor().address)
    await send(beneficiary(), body.transaction)
    expect(await balanceOf(depositor().address)).toBe(before + 2_000_000n)
  })
})

describe('GET /api/v1/escrow/:id', () => {
  test('default: any party reads it; the path and ?id= on the bare path agree', async () => {
    const created = await create()
    for (const party of [depositor(), beneficiary(), arbiter()]) {
      const byPath = await call(party, 'GET', `/api/v1/escrow/${created.id}`)
      expect(byPath.status).toBe(200)
      expect(byPath.body.escrow).toEqual(created)
    }
    expect((await call(depositor(), 'GET', `/api/v1/escrow?id=${created.id}`)).body.escrow).toEqual(created)
    expect(
      (
        await call(
          depositor(),
          'GET',
          `/api/v1/escrow/${created.id}?id=${created.id.toUpperCase().replace('0X', '0x')}`,
        )
      ).status,
    ).toBe(200)
  })

  test("behavior: its balanceCheck is the depositor's balance of the token once active, null before", async () => {
    const created = await create()
    expect((await call(beneficiary(), 'GET', `/api/v1/escrow/${created.id}`)).body.balanceCheck).toBeNull()
    const active = await funded({ amount: '1' })
    const held = await balanceOf(depositor().address)
    const { status, body } = await call(beneficiary(), 'GET', `/api/v1/escrow/${active.id}`)
    expect(status).toBe(200)
    expect(body.escrow.status).toBe('active')
    expect(body.balanceCheck).toEqual({
      depositorBalance: Units.toDecimal(held, 6),
      depositorBalanceRaw: held.toString(),
      token: 'USDC',
    })
  })

  test('error: the path and the query naming different escrows is 400; neither is 400', async () => {
    const [a, b] = [await create(), await create()]
    const both = await call(depositor(), 'GET', `/api/v1/escrow/${a.id}?id=${b.id}`)
    expect(both.status).toBe(400)
    expect(both.body.field).toBe('id')
    const neither = await call(depositor(), 'GET', '/api/v1/escrow')
    expect(neither.status).toBe(400)
  })

  test('security: an outsider gets 404', async () => {
    const created = await create()
    const { status, body } = await call(outsider(), 'GET', `/api/v1/escrow/${created.id}`)
    expect(status).toBe(404)
    expect(JSON.stringify(body)).not.toContain(depositor().address)
  })
})

describe('GET /api/v1/escrow/list', () => {
  test('default: the escrows the payer is a party of, newest first', async () => {
    const first = await create()
    // Newest first is by creation time in milliseconds; two escrows in the same millisecond have no order.
    await Bun.sleep(2)
    const second = await create()
    const { status, body } = await call(arbiter(), 'GET', `/api/v1/escrow/list?address=${arbiter().address}`)
    expect(status).toBe(200)
    expect(body.count).toBe(body.escrows.length)
    const ids = body.escrows.map((escrow: { id: Hex }) => escrow.id)
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id))
  })

  test('security: an outsider sees none of them', async () => {
    await create()
    const { status, body } = await call(outsider(), 'GET', `/api/v1/escrow/list?address=${outsider().address}`)
    expect(status).toBe(200)
    expect(body).toEqual({ address: outsider().address, escrows: [], count: 0, filters: { status: 'all' } })
  })

  test('security: listing another address is 403', async () => {
    const { status, body } = await call(outsider(), 'GET', `/api/v1/escrow/list?address=${depositor().address}`)
    expect(status).toBe(403)
    expect(body.field).toBe('address')
  })
})

describe("as the original gateway's clients call it", () => {
  /** The body `spraay_escrow_create` sends: human amount, conditions, hours until expiry. */
  const original = () => ({
    depositor: depositor().address,
    beneficiary: beneficiary().address,
    token: 'USDC',
    amount: '2500',
    arbiter: arbiter().address,
    description: 'Website redesign',
    conditions: ['Design approved', 'Dev complete'],
    expiresIn: 24,
  })

  test('behavior: escrow/create reads "2500" as 2,500 USDC and answers the original fields', async () => {
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/create', original())
    expect(status).toBe(200)
    const { id, createdAt, expiresAt, transactions } = body.escrow
    expect(body).toMatchObject({
      status: 'created',
      escrow: {
        depositor: depositor().address,
        beneficiary: beneficiary().address,
        arbiter: arbiter().address,
        token: { symbol: 'USDC', address: chain.token.address, decimals: 6 },
        amount: '2500',
        amountRaw: '2500000000',
        description: 'Website redesign',
        conditions: ['Design approved', 'Dev complete'],
        status: 'created',
        expiresInHours: 24,
      },
      actions: {
        fund: { endpoint: 'POST /api/v1/escrow/fund', body: { escrowId: id } },
        release: { endpoint: 'POST /api/v1/escrow/release', body: { escrowId: id, caller: depositor().address } },
        cancel: { endpoint: 'POST /api/v1/escrow/cancel', body: { escrowId: id, caller: depositor().address } },
        status: { endpoint: `GET /api/v1/escrow/${id}` },
      },
    })
    const expirySeconds = Math.floor(Date.parse(createdAt) / 1000) + 24 * 3600
    expect(expiresAt).toBe(new Date(expirySeconds * 1000).toISOString())
    // What the depositor signs moves 2,500 x 10^6 atomic USDC, with the 24-hour expiry, on chain.
    expect(decodeFunctionData({ abi: Escrow.abi, data: transactions.deposit.data }).args).toEqual([
      id,
      chain.token.address,
      2_500_000_000n,
      beneficiary().address,
      arbiter().address,
      BigInt(expirySeconds),
    ])
    // Read back, the escrow carries the same original fields.
    const read = await call(beneficiary(), 'GET', `/api/v1/escrow/${id}`)
    expect(read.body.escrow).toMatchObject({
      amount: '2500',
      amountRaw: '2500000000',
      conditions: original().conditions,
    })
  })

  test('behavior: a JSON number is the decimal it prints as', async () => {
    const { status, body } = await call(depositor(), 'POST', '/api/v1/escrow/create', { ...original(), amount: 2500.5 })
    expect(status).toBe(200)
    expect(body.escrow).toMatchObject({ amount: '2500.5', amountRaw: '2500500000' })
  })

  test('error: more decimals than the token has is a 400 naming amount, before any payment is asked for', async () => {
    const response = await app.send('POST', '/api/v1/escrow/create', { ...original(), amount: '2500.0000001' })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'validation_failed', field: 'amount' })
  })

  test("behavior: escrow/list filters by status in the original words, with each escrow's role", async () => {
    // An arbiter of its own, so that this test's escrows are the only ones it lists.
    const judge = signer(5)
    const waiting = await create({ arbiter: judge.address })
    const active = await funded({ arbiter: judge.address, amount: '1' })
    const list = async (status?: string) => {
      const query = status === undefined ? '' : `&status=${status}`
      const { body } = await call(judge, 'GET', `/api/v1/escrow/list?address=${judge.address}${query}`)
      return body
    }
    const funds = await list('FUNDED')
    expect(funds).toMatchObject({ address: judge.address, count: 1, filters: { status: 'funded' } })
    expect(funds.escrows).toEqual([expect.objectContaining({ id: active.id, status: 'active', role: 'arbiter' })])
    expect((await list('created')).escrows.map((escrow: { id: Hex }) => escrow.id)).toEqual([waiting.id])
    expect((await list('released')).count).toBe(0)
    expect((await list()).filters).toEqual({ status: 'all' })
    expect((await list()).count).toBe(2)
    const bogus = await app.send('GET', `/api/v1/escrow/list?address=${judge.address}&status=pending`)
    expect(bogus.status).toBe(400)
    expect(await bogus.json()).toMatchObject({ field: 'status' })
  })

  test('error: an id in the original format (ESC-...) is a 400 naming the format used here, before payment', async () => {
    for (const [method, path, body, field] of [
      ['GET', '/api/v1/escrow/ESC-A1B2C3D4E5F6', undefined, 'id'],
      ['GET', '/api/v1/escrow?id=ESC-A1B2C3D4E5F6', undefined, 'id'],
      ['POST', '/api/v1/escrow/fund', { escrowId: 'ESC-A1B2C3D4E5F6' }, 'escrowId'],
      ['POST', '/api/v1/escrow/release', { escrowId: 'ESC-A1B2C3D4E5F6', caller: depositor().address }, 'escrowId'],
    ] as const) {
      const response = await app.send(method, path, body)
      expect(response.status).toBe(400)
      const refused = (await response.json()) as { field: string; detail: string }
      expect(refused.field).toBe(field)
      expect(refused.detail).toContain('0x and 64 hex digits')
    }
  })

  test('behavior: OpenAPI documents the unit of amount', async () => {
    const openapi = (await (await app.handle(new Request('http://gateway.test/openapi.json'))).json()) as any
    const schema = openapi.paths['/api/v1/escrow/create'].post.requestBody.content['application/json'].schema
    expect(schema.properties.amount.description).toContain('"2500" is 2,500 USDC')
  })
})
