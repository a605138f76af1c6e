import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  erc20Abi,
  type Hex,
  type PrivateKeyAccount,
  parseEventLogs,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnet, account as devnetAccount } from '../../adapters/chain/devnet.js'
import { arbiterIndex, escrowArbiter, escrowChain } from '../../adapters/chain/escrow.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { sqlite as sqliteQueue } from '../../adapters/queue/sqlite.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import { type Event, events as eventsOutbox, outboxQueue } from '../../core/Events.js'
import * as Outbound from '../../core/Outbound.js'
import * as RobotRequest from '../../core/RobotRequest.js'
import type { Store } from '../../core/Store.js'
import * as Webhooks from '../../core/Webhooks.js'
import { manifest } from '../../modules/robots/index.js'
import { routes } from '../../modules/robots/routes.js'
import * as Service from '../../modules/robots/service.js'
import { usdcBalance } from '../support/chain.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'
import { vendorServer } from '../support/vendor.js'

const allowed = Outbound.parseAllowList('127.0.0.1')
if (!allowed.ok) throw new Error(allowed.message)
const guard = outbound({ allow: allowed.list, timeoutMs: 5_000 })

let chain: devnet.Devnet
let directory: string
let robotEndpoint: ReturnType<typeof vendorServer>
const stores: Store[] = []
/** The clock every gateway of this file reads; tests move it. */
let offsetMs = 0
const now = () => new Date(Date.now() + offsetMs)

const signer = (index: number): PrivateKeyAccount => privateKeyToAccount(chain.accounts[index]!.privateKey)
const requester = () => signer(1)
const operator = () => signer(2)
const stranger = () => signer(3)

/** One gateway process: its own connection to the shared store file, its own arbiter client (the same key). */
function process() {
  const store = sqlite({ path: join(directory, 'store.sqlite') })
  stores.push(store)
  const arbiter = escrowArbiter({
    client: chain.publicClient,
    address: chain.escrow.address,
    account: privateKeyToAccount(devnetAccount({ index: arbiterIndex }).privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
  const ports = {
    store,
    escrow: escrowChain({ client: chain.publicClient, address: chain.escrow.address, chainId: chain.chainId }),
    escrowArbiter: arbiter,
    outbound: guard,
    onchain: {
      chainId: chain.chainId,
      transfers: transfers({ client: chain.publicClient }),
      tokens: [{ symbol: 'USDC', address: chain.token.address, decimals: 6 }],
    },
  }
  const deps: Service.Deps = {
    store,
    chain: ports.escrow,
    arbiter,
    outbound: guard,
    tokens: ports.onchain.tokens,
    chainId: chain.chainId,
    depositWindowSeconds: 3_600,
    now,
  }
  const app = moduleGateway({ ...manifest, routes: () => routes(deps) }, { ports })
  return { app, deps, store, ports }
}

let first: ReturnType<typeof process>

beforeAll(async () => {
  chain = await devnet()
  directory = mkdtempSync(join(tmpdir(), 'robots-'))
  robotEndpoint = vendorServer()
  first = process()
})

afterAll(async () => {
  robotEndpoint.stop()
  for (const store of stores) await store.close()
  await chain.close()
  rmSync(directory, { recursive: true, force: true })
})

let nonce = 0n
/** A request signed by `by` for `action`, claiming `operator` (the signer unless given). */
async function signed(
  by: PrivateKeyAccount,
  action: RobotRequest.Action,
  fields: Record<string, unknown>,
  claimed: Address = by.address,
) {
  nonce += 1n
  const request = {
    ...fields,
    operator: claimed,
    nonce: nonce.toString(),
    expiry: Math.floor(now().getTime() / 1000) + 600,
  }
  const signature = await by.signTypedData(RobotRequest.typedData({ chainId: chain.chainId, action, request }))
  return { ...request, signature }
}

const profile = () => ({
  name: 'Forklift 7',
  capabilities: ['delivery', 'inspection'],
  pricing: { delivery: '2500000', inspection: '1000000' },
  token: 'USDC',
  location: { label: 'Hamburg port, berth 4', country: 'DE' },
  availability: 'available',
  endpoint: `${robotEndpoint.url}/tasks`,
  maxTaskSeconds: 600,
})

async function registered(app = first.app) {
  const body = await ok(await app.post('/api/v1/robots/register', await signed(operator(), 'register', profile())))
  return body as { robot: { id: string }; webhookSecret: string }
}

async function send(account: PrivateKeyAccount, transaction: { to: Address; data: Hex; value: string }) {
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.sendTransaction({ to: transaction.to, data: transaction.data, value: 0n })
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
}

/** Recipient and amount of the one token transfer of a settlement transaction. */
async function refunded(hash: Hex) {
  const receipt = await chain.publicClient.getTransactionReceipt({ hash })
  const [transfer, ...rest] = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
  expect(rest).toHaveLength(0)
  return [transfer!.args.to, transfer!.args.value]
}

const balanceOf = (address: Address) => usdcBalance(chain, address)

/** A task on a fresh robot, deposited by the requester and dispatched (status polled once). */
async function dispatched(app = first.app) {
  const { robot, webhookSecret } = await registered(app)
  const created = await ok(
    await app.send(
      'POST',
      '/api/v1/robots/task',
      { robotId: robot.id, taskType: 'delivery', input: { to: 'B4' } },
      requester(),
    ),
  )
  expect(created.taskRecord.status).toBe('awaiting_deposit')
  await send(requester(), created.transactions.approve)
  await send(requester(), created.transactions.deposit)
  const polled = await ok(await app.get(`/api/v1/robots/status?id=${created.taskRecord.id}`, requester()))
  expect(polled.taskRecord.status).toBe('dispatched')
  return { robot, webhookSecret, task: polled.taskRecord as { id: string; escrow: { id: Hex } } & Record<string, any> }
}

describe('register, update, deregister (signed by the operator)', () => {
  test('register answers the public profile and the webhook secret once; profile and list show it without', async () => {
    const { robot, webhookSecret } = await registered()
    expect(webhookSecret).toMatch(/^whsec_/)
    const shown = await ok(await first.app.send('GET', `/api/v1/robots/profile?id=${robot.id}`, undefined, stranger()))
    expect(shown.robot.operator).toBe(operator().address)
    expect(JSON.stringify(shown)).not.toContain(webhookSecret)
    const listed = await ok(
      await first.app.send(
        'GET',
        '/api/v1/robots/list?capability=inspection&location=DE&maxPrice=1000000',
        undefined,
        stranger(),
      ),
    )
    expect(listed.robots.map((one: { id: string }) => one.id)).toContain(robot.id)
    const dearer = await ok(
      await first.app.send('GET', '/api/v1/robots/list?capability=delivery&maxPrice=1000000', undefined, stranger()),
    )
    expect(dearer.robots.map((one: { id: string }) => one.id)).not.toContain(robot.id)
  })

  test('a replayed request is 409, a signature by someone else 403, an expired one 400', async () => {
    const request = await signed(operator(), 'register', profile())
    await ok(await first.app.post('/api/v1/robots/register', request))
    expect((await refused(await first.app.post('/api/v1/robots/register', request), 409)).reason).toBe('replayed')
    const forged = await signed(stranger(), 'register', profile(), operator().address)
    await refused(await first.app.post('/api/v1/robots/register', forged), 403)
    const tampered = { ...(await signed(operator(), 'register', profile())), name: 'Other' }
    await refused(await first.app.post('/api/v1/robots/register', tampered), 403)
    const late = { ...(await signed(operator(), 'register', profile())), expiry: 1 }
    await refused(await first.app.post('/api/v1/robots/register', late), 400)
  })

  test('a private endpoint is refused by the outbound guard', async () => {
    const request = await signed(operator(), 'register', { ...profile(), endpoint: 'http://10.0.0.1/tasks' })
    expect((await refused(await first.app.post('/api/v1/robots/register', request), 400)).field).toBe('endpoint')
  })

  test('update changes the fields given; another operator gets 404; deregister takes it off the list', async () => {
    const { robot } = await registered()
    const updated = await ok(
      await first.app.send(
        'PATCH',
        '/api/v1/robots/update',
        await signed(operator(), 'update', { robotId: robot.id, availability: 'busy' }),
      ),
    )
    expect(updated.robot.availability).toBe('busy')
    await refused(
      await first.app.send(
        'PATCH',
        '/api/v1/robots/update',
        await signed(stranger(), 'update', { robotId: robot.id, availability: 'available' }),
      ),
      404,
    )
    await refused(
      await first.app.send('POST', '/api/v1/robots/task', { robotId: robot.id, taskType: 'delivery' }, requester()),
      409,
    )
    await ok(
      await first.app.post('/api/v1/robots/deregister', await signed(operator(), 'deregister', { robotId: robot.id })),
    )
    const listed = await ok(await first.app.send('GET', '/api/v1/robots/list', undefined, stranger()))
    expect(listed.robots.map((one: { id: string }) => one.id)).not.toContain(robot.id)
    await refused(
      await first.app.post('/api/v1/robots/deregister', await signed(operator(), 'deregister', { robotId: robot.id })),
      409,
    )
  })
})

describe('tasks on the devnet escrow', () => {
  test('the deposit dispatches a signed webhook; the operator’s completion releases exactly the price to the operator', async () => {
    robotEndpoint.reset()
    const { task, webhookSecret } = await dispatched()
    const delivery = robotEndpoint.last()
    const payload = new Webhook(webhookSecret.slice('whsec_'.length)).verify(delivery.body, {
      'webhook-id': delivery.headers.get('webhook-id')!,
      'webhook-timestamp': delivery.headers.get('webhook-timestamp')!,
      'webhook-signature': delivery.headers.get('webhook-signature')!,
    }) as { type: string; data: { taskId: string; input: unknown } }
    expect(payload.type).toBe('robot.task.dispatched')
    expect(payload.data).toMatchObject({ taskId: task.id, input: { to: 'B4' } })
    expect(task.delivery.deliveredAt).toBeDefined()

    await ok(
      await first.app.post(
        '/api/v1/robots/complete',
        await signed(operator(), 'complete', { taskId: task.id, status: 'accepted' }),
      ),
    )
    const before = await balanceOf(operator().address)
    const done = await ok(
      await first.app.post(
        '/api/v1/robots/complete',
        await signed(operator(), 'complete', { taskId: task.id, result: { delivered: true } }),
      ),
    )
    expect(done.taskRecord.status).toBe('completed')
    expect(done.taskRecord.phase).toBe('complete')
    expect(done.taskRecord.settlement.action).toBe('release')
    expect(done.taskRecord.escrow.status).toBe('released')
    expect((await balanceOf(operator().address)) - before).toBe(2_500_000n)
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: done.taskRecord.settlement.transaction })
    expect(receipt.status).toBe('success')
    const seen = await ok(await first.app.get(`/api/v1/robots/status?id=${task.id}`, operator()))
    expect(seen.taskRecord.result).toEqual({ delivered: true })
    await refused(await first.app.get(`/api/v1/robots/status?id=${task.id}`, stranger()), 404)
  })

  test('completion signed by anyone else is refused and nothing is paid', async () => {
    const { task } = await dispatched()
    const before = await balanceOf(stranger().address)
    await refused(
      await first.app.post('/api/v1/robots/complete', await signed(stranger(), 'complete', { taskId: task.id })),
      404,
    )
    const forged = await signed(stranger(), 'complete', { taskId: task.id }, operator().address)
    await refused(await first.app.post('/api/v1/robots/complete', forged), 403)
    expect(await balanceOf(stranger().address)).toBe(before)
    expect((await ok(await first.app.get(`/api/v1/robots/status?id=${task.id}`, requester()))).taskRecord.status).toBe(
      'dispatched',
    )
  })

  test('a failure refunds the requester; completing it afterwards is 409', async () => {
    const { task } = await dispatched()
    const before = await balanceOf(requester().address)
    const failed = await ok(
      await first.app.post(
        '/api/v1/robots/complete',
        await signed(operator(), 'complete', { taskId: task.id, status: 'failed', reason: 'blocked aisle' }),
      ),
    )
    expect(failed.taskRecord.settlement.action).toBe('cancel')
    expect((await balanceOf(requester().address)) - before).toBe(2_500_000n)
    await refused(
      await first.app.post('/api/v1/robots/complete', await signed(operator(), 'complete', { taskId: task.id })),
      409,
    )
  })

  test('a task past its deadline times out and refunds the requester, driven by the store after a restart', async () => {
    const { task } = await dispatched()
    const before = await balanceOf(requester().address)
    // The first process stops; a new one on the same store file, later than the deadline, runs the job's sweep.
    await first.store.close()
    offsetMs = 601_000
    try {
      first = process()
      // A paid status call sends no transaction (its writes are taken back if its payment fails; a transfer is not).
      const seen = await ok(await first.app.get(`/api/v1/robots/status?id=${task.id}`, requester()))
      expect([seen.taskRecord.status, seen.taskRecord.settlement]).toEqual(['timed_out', undefined])
      const swept = await Service.sweep(first.deps)
      expect(swept.checked).toBeGreaterThanOrEqual(1)
      const after = await ok(await first.app.get(`/api/v1/robots/status?id=${task.id}`, requester()))
      expect(after.taskRecord.status).toBe('timed_out')
      expect(after.taskRecord.settlement.action).toBe('cancel')
      // The sweep refunds every overdue task (an earlier test left one dispatched too); this one's refund is exact.
      expect(await refunded(after.taskRecord.settlement.transaction)).toEqual([requester().address, 2_500_000n])
      expect((await balanceOf(requester().address)) - before).toBeGreaterThanOrEqual(2_500_000n)
    } finally {
      offsetMs = 0
    }
  })

  test('two processes completing at once: one releases, the other is refused, the operator is paid once', async () => {
    const { task } = await dispatched()
    const second = process()
    const before = await balanceOf(operator().address)
    const [a, b] = await Promise.all([
      first.app.post('/api/v1/robots/complete', await signed(operator(), 'complete', { taskId: task.id })),
      second.app.post('/api/v1/robots/complete', await signed(operator(), 'complete', { taskId: task.id })),
    ])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    await Service.sweep(second.deps)
    await Service.sweep(first.deps)
    expect((await balanceOf(operator().address)) - before).toBe(2_500_000n)
  })

  test('on the durable queue: the deadline is an item whose worker refunds when due; each change is an event', async () => {
    const queue = memoryQueue()
    const deps = { ...first.deps, queue, events: eventsOutbox({ queue }) }
    const app = moduleGateway({ ...manifest, routes: () => routes(deps) }, { ports: { ...first.ports, queue } })
    const { task } = await dispatched(app)
    const deadline = await queue.get(Service.momentsQueue, `${task.id}:deadline`)
    expect(deadline?.dueAt.toISOString()).toBe(task.deadline)
    expect(await queue.claim(Service.momentsQueue, { now: new Date(Date.now() + 590_000) })).toEqual([])
    offsetMs = 601_000
    try {
      const due = await queue.claim(Service.momentsQueue, { now: now() })
      const mine = due.find((item) => item.id === `${task.id}:deadline`)!
      expect(await Service.work(deps, mine)).toEqual({ done: true })
      const after = (await first.store.get<Service.Task>(Service.tasksCollection, task.id))!.value
      expect([after.status, after.settlement?.action]).toEqual(['timed_out', 'cancel'])
      expect(await refunded(after.settlement!.transaction)).toEqual([requester().address, 2_500_000n])
    } finally {
      offsetMs = 0
    }
    const told = await queue.claim<{ owner: string; data: { status: string } }>(outboxQueue, { limit: 50 })
    const requesterSaw = told.filter((item) => item.payload.owner === requester().address)
    expect(requesterSaw.map((item) => item.payload.data.status)).toEqual(['dispatched', 'timed_out'])
    // The escrow's moves went into the store's outbox with the task's writes: funded, then refunded by the arbiter.
    const after = (await first.store.get<Service.Task>(Service.tasksCollection, task.id))!.value
    const outbox = sqliteQueue({ path: join(directory, 'store.sqlite') })
    for (const party of [requester().address, operator().address]) {
      const funded = await outbox.get<Event>(outboxQueue, `escrow.funded:${after.escrow.id}:${party}`)
      expect(funded?.payload.data).toMatchObject({ escrowId: after.escrow.id, amountRaw: '2500000', transaction: null })
      const cancelled = await outbox.get<Event>(outboxQueue, `escrow.cancelled:${after.escrow.id}:${party}`)
      expect(cancelled?.payload.data).toMatchObject({ transaction: after.settlement!.transaction })
    }
    await outbox.close()
  })

  test('no deposit within the window cancels the task; nothing moves', async () => {
    const { robot } = await registered()
    const created = await ok(
      await first.app.send('POST', '/api/v1/robots/task', { robotId: robot.id, taskType: 'inspection' }, requester()),
    )
    offsetMs = 3_601_000
    try {
      const after = await ok(await first.app.get(`/api/v1/robots/status?id=${created.taskRecord.id}`, requester()))
      expect(after.taskRecord.status).toBe('canceled')
      expect(after.taskRecord.settlement).toBeUndefined()
    } finally {
      offsetMs = 0
    }
  })

  test('bad input is refused before payment: the schema, an unknown robot, an unpriced task type, a long timeout', async () => {
    await refused(await first.app.post('/api/v1/robots/task', { robotId: 'nope', taskType: 'delivery' }), 400)
    const { robot } = await registered()
    await refused(
      await first.app.post('/api/v1/robots/task', { robotId: `rbt_${'0'.repeat(24)}`, taskType: 'delivery' }),
      404,
    )
    const unpriced = await refused(
      await first.app.post('/api/v1/robots/task', { robotId: robot.id, taskType: 'welding' }),
      400,
    )
    expect(unpriced.field).toBe('taskType')
    const long = { robotId: robot.id, taskType: 'delivery', timeoutSeconds: 601 }
    expect((await refused(await first.app.post('/api/v1/robots/task', long), 400)).field).toBe('timeoutSeconds')
  })
})

describe("the original gateway's clients (snake_case names, human prices, unsigned writes answered with the typed data)", () => {
  /** The original's register body, as its MCP tool sends it: no signature, no nonce, no expiry. */
  const original = (price: string) => ({
    name: 'WarehouseBot-01',
    capabilities: ['pick', 'scan'],
    price_per_task: price,
    payment_address: operator().address,
    connection: { type: 'webhook', webhookUrl: `${robotEndpoint.url}/rtp/task` },
    description: 'Picks and scans',
    tags: ['warehouse'],
    metadata: { site: 'B4' },
    chain: 'base',
  })

  /** Sends a write unsigned, signs the typed data it answers with `by`, and sends the request it answers again. */
  async function signedBack(method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>, by = operator()) {
    const unsigned = await ok(await first.app.send(method, path, body))
    expect(unsigned.status).toBe('signature_required')
    const { typedData, request } = unsigned
    const signature = await by.signTypedData({
      ...typedData,
      message: {
        ...typedData.message,
        nonce: BigInt(typedData.message.nonce),
        expiry: BigInt(typedData.message.expiry),
      },
    })
    return { unsigned, response: await first.app.send(method, path, { ...request, signature }) }
  }

  test('register unsigned answers the EIP-712 typed data our verifier checks; signed back, the robot is registered at its human price', async () => {
    const { unsigned, response } = await signedBack('POST', '/api/v1/robots/register', original('2500'))
    expect(unsigned.operator).toBe(operator().address)
    expect(unsigned.typedData.primaryType).toBe('RobotRequest')
    expect(unsigned.typedData.domain).toEqual(RobotRequest.domain(chain.chainId))
    expect(unsigned.typedData.message).toMatchObject({ action: 'register', operator: operator().address })
    expect(unsigned.request).toMatchObject({ ...original('2500'), nonce: unsigned.typedData.message.nonce })
    const body = await ok(response)
    expect(body).toMatchObject({ status: 'registered', robot_id: body.robot.id })
    // "2500" is 2,500 USDC: 2,500,000,000 atomic units for every capability.
    expect(body.robot.pricing).toEqual({ pick: '2500000000', scan: '2500000000' })
    expect(body.robot).toMatchObject({
      robot_id: body.robot.id,
      price_per_task: '2500',
      currency: 'USDC',
      chain: 'base',
      payment_address: operator().address,
      status: 'online',
      registration: 'active',
      connection: { type: 'webhook', webhookUrl: `${robotEndpoint.url}/rtp/task` },
      tags: ['warehouse'],
      metadata: { site: 'B4' },
      description: 'Picks and scans',
    })

    // The task's escrow is for the human price: the approval's calldata carries 2,500 x 10^6.
    const created = await ok(
      await first.app.send(
        'POST',
        '/api/v1/robots/task',
        { robot_id: body.robot_id, task: 'pick', parameters: { bin: 7 }, timeout_seconds: 600 },
        requester(),
      ),
    )
    expect(created).toMatchObject({
      task_id: created.taskRecord.id,
      robot_id: body.robot_id,
      task: 'pick',
      status: 'PENDING',
      escrow_id: created.taskRecord.escrow.id,
      timeout_seconds: 600,
      poll_url: `/api/v1/robots/status?task_id=${created.taskRecord.id}`,
      is_terminal: false,
    })
    expect(created.taskRecord.input).toEqual({ bin: 7 })
    const approval = decodeFunctionData({ abi: erc20Abi, data: created.transactions.approve.data })
    expect(approval.args[1]).toBe(2_500_000_000n)

    const listed = await ok(
      await first.app.send(
        'GET',
        '/api/v1/robots/list?capability=pick&max_price=2500&status=online',
        undefined,
        stranger(),
      ),
    )
    expect(listed.total).toBe(listed.robots.length)
    expect(listed.robots.map((one: { robot_id: string }) => one.robot_id)).toContain(body.robot_id)
    expect(listed.filters).toEqual({ capability: 'pick', chain: 'base', max_price: '2500', status: 'online' })
    const cheaper = await ok(
      await first.app.send('GET', '/api/v1/robots/list?capability=pick&max_price=2499.999999', undefined, stranger()),
    )
    expect(cheaper.robots.map((one: { robot_id: string }) => one.robot_id)).not.toContain(body.robot_id)

    const shown = await ok(
      await first.app.send('GET', `/api/v1/robots/profile?robot_id=${body.robot_id}`, undefined, stranger()),
    )
    expect(shown).toMatchObject({
      robot_id: body.robot_id,
      price_per_task: '2500',
      payment_address: operator().address,
    })
    expect(JSON.stringify(shown)).not.toContain(body.webhookSecret)
  })

  test('a task in the original words runs end to end: status by task_id, complete unsigned then signed by the operator, the escrow released', async () => {
    const { response } = await signedBack('POST', '/api/v1/robots/register', original('2.5'))
    const robot = await ok(response)
    const created = await ok(
      await first.app.send('POST', '/api/v1/robots/task', { robot_id: robot.robot_id, task: 'scan' }, requester()),
    )
    await send(requester(), created.transactions.approve)
    await send(requester(), created.transactions.deposit)
    const polled = await ok(await first.app.get(`/api/v1/robots/status?task_id=${created.task_id}`, requester()))
    expect(polled).toMatchObject({ task_id: created.task_id, task: 'scan', status: 'DISPATCHED', is_terminal: false })
    expect(polled.dispatched_at).toBe(polled.taskRecord.history.find((entry: any) => entry.status === 'dispatched').at)

    // A stranger signing the typed data the answer names the operator for is refused; nothing moves.
    const { response: forged } = await signedBack(
      'POST',
      '/api/v1/robots/complete',
      { task_id: created.task_id, status: 'COMPLETED' },
      stranger(),
    )
    await refused(forged, 403)
    const before = await balanceOf(operator().address)
    const { unsigned, response: completed } = await signedBack('POST', '/api/v1/robots/complete', {
      task_id: created.task_id,
      status: 'COMPLETED',
      result: { scanned: 12 },
    })
    expect(unsigned.operator).toBe(operator().address)
    expect(await ok(completed)).toMatchObject({
      task_id: created.task_id,
      status: 'COMPLETED',
      escrow: 'released',
      result: { scanned: 12 },
    })
    expect((await balanceOf(operator().address)) - before).toBe(2_500_000n)
    const after = await ok(await first.app.get(`/api/v1/robots/status?task_id=${created.task_id}`, requester()))
    expect(after).toMatchObject({ status: 'COMPLETED', is_terminal: true, result: { scanned: 12 } })
  })

  test('update and deregister by robot_id, unsigned then signed back; another signer is refused', async () => {
    const { response } = await signedBack('POST', '/api/v1/robots/register', original('1'))
    const robot = await ok(response)
    const { response: updated } = await signedBack('PATCH', '/api/v1/robots/update', {
      robot_id: robot.robot_id,
      status: 'busy',
      price_per_task: '3',
    })
    expect(await ok(updated)).toMatchObject({
      status: 'updated',
      robot_id: robot.robot_id,
      updated_fields: ['status', 'price_per_task'],
      robot: {
        status: 'busy',
        availability: 'busy',
        price_per_task: '3',
        pricing: { pick: '3000000', scan: '3000000' },
      },
    })
    const { response: forged } = await signedBack(
      'POST',
      '/api/v1/robots/deregister',
      { robot_id: robot.robot_id },
      stranger(),
    )
    await refused(forged, 403)
    const { response: gone } = await signedBack('POST', '/api/v1/robots/deregister', { robot_id: robot.robot_id })
    expect(await ok(gone)).toMatchObject({ status: 'deregistered', robot_id: robot.robot_id, name: 'WarehouseBot-01' })
  })

  test('error: the original names refused as bad input before any payment, each a 400 naming the field', async () => {
    const { response } = await signedBack('POST', '/api/v1/robots/register', original('1'))
    const robot = await ok(response)
    const unpaid = (method: string, path: string, body?: unknown) =>
      first.app.fetch(path, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/v1/robots/task', { robot_id: robot.robot_id, robotId: robot.robot_id, task: 'pick' }, 'robotId'],
      ['POST', '/api/v1/robots/task', { task: 'pick' }, 'robot_id'],
      ['GET', `/api/v1/robots/status?task_id=tsk_${'0'.repeat(24)}&id=tsk_${'0'.repeat(24)}`, undefined, 'id'],
      ['GET', '/api/v1/robots/status', undefined, 'task_id'],
      ['GET', `/api/v1/robots/profile?robot_id=${robot.robot_id}&id=${robot.robot_id}`, undefined, 'id'],
      ['GET', '/api/v1/robots/list?max_price=1&maxPrice=1', undefined, 'maxPrice'],
      ['GET', '/api/v1/robots/list?max_price=1e3', undefined, 'max_price'],
      ['POST', '/api/v1/robots/register', { ...original('2500.0000001') }, 'price_per_task'],
      // Read in the stored robot's token before the signature is asked for.
      [
        'PATCH',
        '/api/v1/robots/update',
        { robot_id: robot.robot_id, price_per_task: '2500.0000001' },
        'price_per_task',
      ],
      ['POST', '/api/v1/robots/register', { ...original('1'), connection: { type: 'xmtp' } }, 'connection.type'],
      ['POST', '/api/v1/robots/register', { ...original('1'), chain: 'solana' }, 'chain'],
      ['POST', '/api/v1/robots/register', { ...original('1'), operator: operator().address }, 'operator'],
      ['POST', '/api/v1/robots/register', { ...original('1'), pricing: { pick: '1' } }, 'pricing'],
    ]
    for (const [method, path, body, field] of cases) {
      const problem = await refused(await unpaid(method, path, body), 400)
      expect(`${path} ${problem.field}`).toBe(`${path} ${field}`)
    }
  })
})

describe("the original gateway's rtp_uri, profile stats and per-task callback_url", () => {
  /** A task on `robotId` of `taskType`, created by the requester (with `extra`), deposited and dispatched. */
  async function funded(app: typeof first.app, robotId: string, extra: Record<string, unknown> = {}) {
    const created = await ok(
      await app.send('POST', '/api/v1/robots/task', { robot_id: robotId, task: 'delivery', ...extra }, requester()),
    )
    await send(requester(), created.transactions.approve)
    await send(requester(), created.transactions.deposit)
    const polled = await ok(await app.get(`/api/v1/robots/status?task_id=${created.task_id}`, requester()))
    expect(polled.status).toBe('DISPATCHED')
    return created
  }

  test('rtp_uri names the robot at PUBLIC_URL’s host (null without it); x402_endpoint is where tasks are bought', async () => {
    const deps = { ...first.deps, publicUrl: 'https://gateway.example' }
    const app = moduleGateway({ ...manifest, routes: () => routes(deps) }, { ports: first.ports })
    const body = await ok(await app.post('/api/v1/robots/register', await signed(operator(), 'register', profile())))
    expect(body).toMatchObject({
      rtp_uri: `rtp://gateway.example/${body.robot_id}`,
      x402_endpoint: 'https://gateway.example/api/v1/robots/task',
      robot: { rtp_uri: `rtp://gateway.example/${body.robot_id}` },
    })
    const shown = await ok(
      await app.send('GET', `/api/v1/robots/profile?robot_id=${body.robot_id}`, undefined, stranger()),
    )
    expect(shown.rtp_uri).toBe(`rtp://gateway.example/${body.robot_id}`)
    const listed = await ok(await app.send('GET', '/api/v1/robots/list', undefined, stranger()))
    expect(listed.robots.find((one: { robot_id: string }) => one.robot_id === body.robot_id).rtp_uri).toBe(
      `rtp://gateway.example/${body.robot_id}`,
    )
    const unnamed = await registered()
    expect(unnamed).toMatchObject({ rtp_uri: null, x402_endpoint: '/api/v1/robots/task' })
  })

  test('profile stats count the robot’s task records: the original’s total and completed, ours by state and the completion rate', async () => {
    const { robot } = await registered()
    const fresh = await ok(await first.app.send('GET', `/api/v1/robots/profile?id=${robot.id}`, undefined, stranger()))
    expect(fresh.stats).toMatchObject({ total_tasks: 0, completed_tasks: 0, completionRate: null })
    const done = await funded(first.app, robot.id)
    await ok(
      await first.app.post('/api/v1/robots/complete', await signed(operator(), 'complete', { taskId: done.task_id })),
    )
    const failed = await funded(first.app, robot.id)
    await ok(
      await first.app.post(
        '/api/v1/robots/complete',
        await signed(operator(), 'complete', { taskId: failed.task_id, status: 'failed' }),
      ),
    )
    await funded(first.app, robot.id)
    await ok(
      await first.app.send('POST', '/api/v1/robots/task', { robot_id: robot.id, task: 'inspection' }, requester()),
    )
    const shown = await ok(await first.app.send('GET', `/api/v1/robots/profile?id=${robot.id}`, undefined, stranger()))
    expect(shown.stats).toEqual({
      total_tasks: 4,
      completed_tasks: 1,
      byStatus: {
        awaiting_deposit: 1,
        dispatched: 1,
        accepted: 0,
        in_progress: 0,
        completed: 1,
        failed: 1,
        timed_out: 0,
        canceled: 0,
      },
      completionRate: 0.5,
    })
    expect(shown.robot.stats).toBeUndefined()
  })

  test('callback_url hears the task’s end once its escrow is settled: a signed delivery with the original’s fields', async () => {
    const { robot } = await registered()
    const created = await funded(first.app, robot.id, { callback_url: `${robotEndpoint.url}/done` })
    expect(created.callback).toMatchObject({ url: `${robotEndpoint.url}/done`, status: 'active' })
    expect(created.callback.secret).toMatch(/^whsec_/)
    const seen = await ok(await first.app.get(`/api/v1/robots/status?task_id=${created.task_id}`, requester()))
    expect(JSON.stringify(seen)).not.toContain(created.callback.secret)
    const completed = await ok(
      await first.app.post(
        '/api/v1/robots/complete',
        await signed(operator(), 'complete', { taskId: created.task_id, result: { delivered: 'B4' } }),
      ),
    )

    // The delivery is queued with the settlement's write and sent by the webhooks family's worker.
    const queue = sqliteQueue({ path: join(directory, 'store.sqlite') })
    try {
      const id = Webhooks.messageId(`robot.task.completed:${created.task_id}`, {
        collection: Service.callbacksCollection,
        id: created.task_id,
      })
      const claimed = (await queue.claim(Webhooks.deliveryQueue, { limit: 100 })).find((item) => item.id === id)!
      robotEndpoint.reset()
      const policy = { timeoutMs: 5_000, maxAttempts: 3, retryBaseMs: 1_000, retryMaxMs: 10_000, disableAfter: 5 }
      expect(
        await Webhooks.deliver({ store: first.store, outbound: guard, policy, item: claimed as never }),
      ).toMatchObject({ done: true })
    } finally {
      await queue.close()
    }
    const delivery = robotEndpoint.last()
    expect(delivery.url.pathname).toBe('/api/done')
    const payload = new Webhook(created.callback.secret.slice('whsec_'.length)).verify(delivery.body, {
      'webhook-id': delivery.headers.get('webhook-id')!,
      'webhook-timestamp': delivery.headers.get('webhook-timestamp')!,
      'webhook-signature': delivery.headers.get('webhook-signature')!,
    }) as { type: string; data: Record<string, unknown> }
    expect(payload).toMatchObject({
      type: 'robot.task.completed',
      data: {
        event: 'task.completed',
        task_id: created.task_id,
        robot_id: robot.id,
        status: 'COMPLETED',
        result: { delivered: 'B4' },
        escrow: 'released',
        settlement: { action: 'release', transaction: completed.taskRecord.settlement.transaction },
      },
    })
  })

  test('without callback_url the end is the requester’s robot.task.completed event, canceled tasks included', async () => {
    const queue = memoryQueue()
    const deps = { ...first.deps, queue, events: eventsOutbox({ queue }) }
    const app = moduleGateway({ ...manifest, routes: () => routes(deps) }, { ports: { ...first.ports, queue } })
    const { robot } = await registered(app)
    const failed = await funded(app, robot.id)
    await ok(
      await app.post(
        '/api/v1/robots/complete',
        await signed(operator(), 'complete', { taskId: failed.task_id, status: 'FAILED', reason: 'blocked' }),
      ),
    )
    const unpaid = await ok(
      await app.send('POST', '/api/v1/robots/task', { robot_id: robot.id, task: 'inspection' }, requester()),
    )
    offsetMs = 3_601_000
    try {
      await ok(await app.get(`/api/v1/robots/status?task_id=${unpaid.task_id}`, requester()))
    } finally {
      offsetMs = 0
    }
    const outbox = sqliteQueue({ path: join(directory, 'store.sqlite') })
    try {
      const refunded = await outbox.get<Event>(outboxQueue, `robot.task.completed:${failed.task_id}`)
      expect(refunded?.payload).toMatchObject({
        type: 'robot.task.completed',
        owner: requester().address,
        data: { task_id: failed.task_id, status: 'FAILED', escrow: 'refunded', settlement: { action: 'cancel' } },
      })
      const canceled = await outbox.get<Event>(outboxQueue, `robot.task.completed:${unpaid.task_id}`)
      expect(canceled?.payload.data).toMatchObject({ status: 'CANCELLED', escrow: null, settlement: null })
    } finally {
      await outbox.close()
    }
  })

  test('error: a callback_url the outbound guard refuses is a 400 naming it, before payment', async () => {
    const { robot } = await registered()
    const problem = await refused(
      await first.app.post('/api/v1/robots/task', {
        robot_id: robot.id,
        task: 'delivery',
        callback_url: 'http://10.0.0.1/hook',
      }),
      400,
    )
    expect(problem.field).toBe('callback_url')
  })
})
