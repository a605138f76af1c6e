import { Webhook } from 'standardwebhooks'
import { type Address, getAddress, type Hex, isAddressEqual, keccak256, recoverTypedDataAddress, toHex } from 'viem'
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UpstreamUnavailableError,
  ValidationError,
} from '../../core/Errors.js'
import * as Escrow from '../../core/Escrow.js'
import type { EscrowArbiter, EscrowChain } from '../../core/EscrowChain.js'
import type { Events } from '../../core/Events.js'
import * as EventsPort from '../../core/Events.js'
import * as Outbound from '../../core/Outbound.js'
import type * as Queue from '../../core/Queue.js'
import * as RobotRequest from '../../core/RobotRequest.js'
import * as RobotTask from '../../core/RobotTask.js'
import { type Also, type Store, walk } from '../../core/Store.js'
import type { CompleteBody, DeregisterBody, ListQuery, RegisterBody, TaskBody, UpdateBody } from './schema.js'

/** Store collection of robots; values are {@link Robot}. */
export const robotsCollection = 'robots'
/** Store collection of tasks; values are {@link Task}. */
export const tasksCollection = 'robot_tasks'
/** Store collection of used operator nonces, `operator:nonce`. */
export const noncesCollection = 'robot_nonces'
/** Hash chain of every robot id ever registered, which `list` walks. */
export const registry = 'robots:registry'
/** Hash chain of every task id, which the sweep walks. */
export const queue = 'robot_tasks:queue'
/** The durable queue of task moments (deposit window closing, deadline), which {@link work} handles. */
export const momentsQueue = 'robot-tasks'

/** Longest a signature's expiry may be ahead of now, in seconds. */
export const maxSignatureSeconds = 3_600
/** Largest `input` or `result`, in bytes of JSON. */
export const maxPayloadBytes = 16_384
/** Extra time on the escrow's own expiry past the task's deadline, after which the requester may cancel it alone. */
export const escrowGraceSeconds = 86_400
/** How long one process holds the right to send a task's settlement before another may try. */
export const settlementClaimMs = 120_000

/** A delivery of a task to the robot's endpoint: the plug-in point of the events port. */
export type Dispatch = (delivery: {
  /** The robot, with its endpoint and webhook secret. */
  robot: Robot
  /** Unique id of this message (the same on every retry). */
  id: string
  /** The event's JSON. */
  payload: { type: string; timestamp: string; data: unknown }
}) => Promise<{ ok: true } | { ok: false; reason: string }>

/** What the robots module needs from outside. */
export type Deps = {
  /** Robots, tasks, nonces. */
  store: Store
  /** The escrow contract deposits are read from. */
  chain: EscrowChain
  /** The gateway's arbiter account, which releases and refunds. */
  arbiter: EscrowArbiter
  /** The guard every robot endpoint goes through. */
  outbound: Outbound.Guard
  /** Tokens a robot may price in. */
  tokens: readonly Escrow.Token[]
  /** Chain id of the EIP-712 domain. */
  chainId: number
  /** Seconds a requester has to deposit after creating a task. */
  depositWindowSeconds: number
  /** Delivers a dispatched task. @default a Standard Webhooks POST through the outbound guard */
  dispatch?: Dispatch
  /** The durable queue: each task's deposit window and deadline become items its worker handles when due. */
  queue?: Queue.Queue | undefined
  /** The events outbox: `robot.task.updated` to the requester and the operator on every state change. */
  events?: Events | undefined
  /** Clock. @default () => new Date() */
  now?: () => Date
}

/** A registered robot as stored. */
export type Robot = {
  id: string
  operator: Address
  name: string
  capabilities: string[]
  pricing: Record<string, string>
  token: string
  location: RegisterBody['location']
  availability: RegisterBody['availability']
  endpoint: string
  maxTaskSeconds: number
  status: 'active' | 'deregistered'
  /** Signs deliveries (`whsec_…`); shown once, at registration. */
  webhookSecret: string
  createdAt: string
  updatedAt: string
}

/** A task as stored. */
export type Task = RobotTask.State & {
  id: string
  robotId: string
  operator: Address
  requester: Address
  taskType: string
  input: unknown
  amount: string
  timeoutSeconds: number
  /** Until when a deposit is waited for, ISO 8601. */
  depositBy: string
  escrow: Escrow.Serialized
  delivery: { attempts: number; deliveredAt?: string; lastError?: string; nextAttemptAt?: string }
  /** A process's right to send the settlement, until `until`. */
  claim?: { by: string; until: string } | undefined
  /** The last settlement attempt's failure. */
  settlementError?: string | undefined
  createdAt: string
}

/** Registers a robot for the operator that signed the request; answers its profile and its webhook secret, once. */
export async function register(deps: Deps, body: RegisterBody) {
  const operator = await authorize(deps, 'register', body)
  const now = clock(deps)
  const fields = await checkProfile(deps, {
    name: body.name,
    capabilities: body.capabilities,
    pricing: body.pricing,
    token: body.token,
    location: body.location,
    availability: body.availability,
    endpoint: body.endpoint,
    maxTaskSeconds: body.maxTaskSeconds ?? 3_600,
  })
  const robot: Robot = {
    id: `rbt_${randomHex(12)}`,
    operator,
    ...fields,
    status: 'active',
    webhookSecret: `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  }
  const inserted = await deps.store.insert({
    collection: robotsCollection,
    id: robot.id,
    owners: [operator],
    value: robot,
    createdAt: now,
  })
  if (!inserted.ok) throw new Error(`Robot id ${robot.id} is already taken.`)
  await appendTo(deps.store, registry, robot.id, now)
  return { robot: profileOf(robot), webhookSecret: robot.webhookSecret }
}

/** Changes the fields given of the signing operator's robot. */
export async function update(deps: Deps, body: UpdateBody) {
  const operator = await authorize(deps, 'update', body)
  const robot = await loadRobot(deps, body.robotId, operator)
  if (robot.status !== 'active') throw new ConflictError(`Robot ${robot.id} is deregistered.`)
  const { operator: _o, nonce: _n, expiry: _e, signature: _s, robotId: _r, ...changes } = body
  const fields = await checkProfile(deps, { ...robot, ...changes }, changes.endpoint !== undefined)
  const now = clock(deps).toISOString()
  const updated = await deps.store.update<Robot>(robotsCollection, robot.id, (current) =>
    current.value.status === 'active'
      ? { ...current.value, ...fields, updatedAt: now }
      : { refused: true, reason: 'deregistered' },
  )
  if (!updated.ok) throw new ConflictError(`Robot ${robot.id} is deregistered.`)
  return { robot: profileOf(updated.record.value) }
}

/** Takes the signing operator's robot off the network; tasks already dispatched run to their end. */
export async function deregister(deps: Deps, body: DeregisterBody) {
  const operator = await authorize(deps, 'deregister', body)
  const robot = await loadRobot(deps, body.robotId, operator)
  const now = clock(deps).toISOString()
  const updated = await deps.store.update<Robot>(robotsCollection, robot.id, (current) =>
    current.value.status === 'active'
      ? { ...current.value, status: 'deregistered', availability: 'offline', updatedAt: now }
      : { refused: true, reason: 'already deregistered' },
  )
  if (!updated.ok) throw new ConflictError(`Robot ${robot.id} is already deregistered.`)
  return { robot: profileOf(updated.record.value) }
}

/** Active robots matching the filters, oldest registration first. */
export async function list(deps: Deps, query: ListQuery) {
  const { capability, location, availability, maxPrice, limit = 50 } = query
  const robots: ReturnType<typeof profileOf>[] = []
  for await (const entry of walk<{ id: string }>(deps.store, registry)) {
    if (robots.length >= limit) break
    const robot = (await deps.store.get<Robot>(robotsCollection, entry.value.id))?.value
    if (robot === undefined || robot.status !== 'active') continue
    if (capability !== undefined && !robot.capabilities.includes(capability)) continue
    if (availability !== undefined && robot.availability !== availability) continue
    if (location !== undefined && !matchesLocation(robot.location, location)) continue
    if (maxPrice !== undefined) {
      const prices = capability === undefined ? Object.values(robot.pricing) : [robot.pricing[capability]]
      if (!prices.some((price) => price !== undefined && BigInt(price) <= BigInt(maxPrice))) continue
    }
    robots.push(profileOf(robot))
  }
  return { robots, count: robots.length }
}

/** A robot's public profile. */
export async function profile(deps: Deps, query: { id: string }) {
  const robot = (await deps.store.get<Robot>(robotsCollection, query.id))?.value
  if (robot === undefined) throw new NotFoundError(`No robot ${query.id}.`)
  return { robot: profileOf(robot) }
}

/**
 * Creates a task for the paying requester and its escrow terms: the robot's price for the task type, deposited by
 * the requester, paid to the operator on completion, with the gateway's arbiter. Answers the approve and deposit
 * transactions the requester signs; the task is dispatched once the deposit is read back from the contract.
 */
export async function task(deps: Deps, input: TaskBody & { caller: Address }) {
  const { robot, price, timeoutSeconds } = await checkTask(deps, input)
  const now = clock(deps)
  const requester = getAddress(input.caller)
  const depositBy = new Date(now.getTime() + deps.depositWindowSeconds * 1000)
  const escrow = Escrow.from({
    id: toHex(crypto.getRandomValues(new Uint8Array(32))),
    chainId: deps.chain.chainId,
    contract: deps.chain.address,
    depositor: requester,
    beneficiary: robot.operator,
    arbiter: deps.arbiter.address,
    token: tokenOf(deps, robot.token),
    amount: BigInt(price),
    expiry: new Date(depositBy.getTime() + (timeoutSeconds + escrowGraceSeconds) * 1000),
    createdAt: now,
  })
  const record: Task = {
    id: `tsk_${randomHex(12)}`,
    robotId: robot.id,
    operator: robot.operator,
    requester,
    taskType: input.taskType,
    input: input.input ?? null,
    amount: price,
    timeoutSeconds,
    depositBy: depositBy.toISOString(),
    escrow: Escrow.serialize(escrow),
    delivery: { attempts: 0 },
    status: 'awaiting_deposit',
    history: [{ status: 'awaiting_deposit', at: now.toISOString() }],
    createdAt: now.toISOString(),
  }
  const inserted = await deps.store.insert({
    collection: tasksCollection,
    id: record.id,
    owners: owners(record),
    value: record,
    createdAt: now,
  })
  if (!inserted.ok) throw new Error(`Task id ${record.id} is already taken.`)
  await appendTo(deps.store, queue, record.id, now)
  await schedule(deps, record.id, 'deposit-window', depositBy)
  return { task: view(record), transactions: Escrow.toFundingTransactions(escrow) }
}

/**
 * Refuses, before any payment is asked for, a task no robot can take: an unknown or deregistered robot (404), one
 * that is not available (409), a task type it does not price, input over the limit, a timeout past its maximum. It
 * runs ahead of the schema, so a body the schema will refuse is left to it.
 */
export async function preflightTask(deps: Deps, body: unknown): Promise<void> {
  const input = body as Partial<TaskBody> | null
  if (typeof input?.robotId !== 'string' || !/^rbt_[0-9a-f]{24}$/.test(input.robotId)) return
  if (typeof input.taskType !== 'string') return
  if (input.timeoutSeconds !== undefined && typeof input.timeoutSeconds !== 'number') return
  await checkTask(deps, input as TaskBody)
}

/** The robot, price and timeout of a task, or why it cannot be created. */
async function checkTask(deps: Deps, input: TaskBody) {
  const robot = (await deps.store.get<Robot>(robotsCollection, input.robotId))?.value
  if (robot === undefined || robot.status !== 'active') throw new NotFoundError(`No robot ${input.robotId}.`)
  if (robot.availability !== 'available')
    throw new ConflictError(`Robot ${robot.id} is ${robot.availability}; it takes tasks when available.`, {
      details: { availability: robot.availability },
    })
  const price = robot.pricing[input.taskType]
  if (!robot.capabilities.includes(input.taskType) || price === undefined)
    throw new ValidationError({
      field: 'taskType',
      message: `is not a priced capability of robot ${robot.id}; it offers ${Object.keys(robot.pricing).join(', ')}`,
    })
  checkSize(input.input, 'input')
  const timeoutSeconds = input.timeoutSeconds ?? robot.maxTaskSeconds
  if (timeoutSeconds > robot.maxTaskSeconds)
    throw new ValidationError({
      field: 'timeoutSeconds',
      message: `exceeds the robot's maxTaskSeconds (${robot.maxTaskSeconds})`,
    })
  return { robot, price, timeoutSeconds }
}

/**
 * A task of the paying requester or operator, brought forward (deposit seen, dispatched, timed out). It sends no
 * escrow transaction: the writes of a paid call are taken back when its payment fails, and a transaction is not;
 * settlements go out from `complete` and the sweep.
 */
export async function status(deps: Deps, input: { id: string; caller: Address }) {
  const found = await loadTask(deps, input.id, input.caller)
  return { task: view(await advance(deps, found, { settle: false })) }
}

/**
 * The robot's report, signed by its operator: progress (`accepted`, `in_progress`), or the end (`completed` releases
 * the escrow to the operator, `failed` refunds the requester), with the transaction's hash. A task of another
 * operator is a 404.
 */
export async function complete(deps: Deps, body: CompleteBody) {
  const operator = await authorize(deps, 'complete', body)
  checkSize(body.result, 'result')
  let current = await advance(deps, await loadTask(deps, body.taskId, operator, 'operator'), { settle: true })
  const reported = body.status ?? 'completed'
  const event: RobotTask.Event =
    reported === 'accepted'
      ? { type: 'accepted' }
      : reported === 'in_progress'
        ? { type: 'started' }
        : reported === 'completed'
          ? { type: 'completed', result: body.result ?? null }
          : { type: 'failed', reason: body.reason ?? 'reported failed by the robot' }
  current = await apply(deps, current, event)
  if (RobotTask.awaitsSettlement(current)) current = await settle(deps, current)
  return { task: view(current) }
}

/**
 * One pass over every task not yet at rest: deposits seen and dispatched, deliveries retried, deadlines enforced
 * (timed out and refunded), settlements sent. Driven by the store, so it survives restarts and runs on any process.
 */
export async function sweep(deps: Deps): Promise<{ checked: number; changed: number }> {
  let checked = 0
  let changed = 0
  for await (const entry of walk<{ id: string }>(deps.store, queue)) {
    const record = (await deps.store.get<Task>(tasksCollection, entry.value.id))?.value
    if (record === undefined || atRest(record)) continue
    checked += 1
    const next = await advance(deps, record, { settle: true })
    if (next.status !== record.status || next.settlement !== record.settlement) changed += 1
  }
  return { checked, changed }
}

/** Whether nothing more can happen to a task. */
function atRest(task: Task): boolean {
  return RobotTask.finalStatuses.includes(task.status) && !RobotTask.awaitsSettlement(task)
}

/** Brings a task forward as far as the chain and the clock allow; with `settle`, sends a pending settlement too. */
async function advance(deps: Deps, start: Task, options: { settle: boolean }): Promise<Task> {
  let task = start
  const now = clock(deps)
  if (task.status === 'awaiting_deposit') {
    const escrow = Escrow.deserialize(task.escrow)
    const deposit = await readChain(() => deps.chain.read(escrow.id))
    if (Escrow.verify(escrow, deposit).ok)
      task = await observe(
        deps,
        task,
        { type: 'deposited', timeoutSeconds: task.timeoutSeconds },
        (value) => ({
          ...value,
          escrow: Escrow.serialize(Escrow.transition(Escrow.deserialize(value.escrow), { type: 'funded' }, now)),
        }),
        escrowEvents(deps, task, 'active'),
      )
    else if (now.getTime() >= new Date(task.depositBy).getTime()) task = await observe(deps, task, { type: 'canceled' })
  }
  if (task.status === 'dispatched' && task.delivery.deliveredAt === undefined) task = await deliver(deps, task)
  if (RobotTask.isOverdue(task, now)) task = await observe(deps, task, { type: 'timed_out' })
  if (options.settle && RobotTask.awaitsSettlement(task)) task = await settle(deps, task)
  return task
}

/**
 * Applies an event in the store, atomically; another process's move first makes this one answer 409 (the machine
 * refuses the event on the state that process left).
 */
async function apply(deps: Deps, task: Task, event: RobotTask.Event, also?: (task: Task) => Task): Promise<Task> {
  const now = clock(deps)
  const updated = await deps.store.update<Task>(tasksCollection, task.id, (current) => {
    const next = RobotTask.transition(current.value, event, now)
    return also ? also(next) : next
  })
  if (!updated.ok) throw new Error(`Task ${task.id} vanished from the store.`)
  return changed(deps, updated.record.value)
}

/**
 * {@link apply} for what the gateway observed itself (a deposit, a deadline): when another process moved the task
 * first, its state stands and is answered.
 */
async function observe(
  deps: Deps,
  task: Task,
  event: RobotTask.Event,
  also?: (task: Task) => Task,
  outbox?: Also,
): Promise<Task> {
  const now = clock(deps)
  const updated = await deps.store.update<Task>(
    tasksCollection,
    task.id,
    (current) => {
      if (current.value.status !== task.status) return { refused: true, reason: `already ${current.value.status}` }
      const next = RobotTask.transition(current.value, event, now)
      return also ? also(next) : next
    },
    outbox,
  )
  if (updated.ok) return changed(deps, updated.record.value)
  const stored = (await deps.store.get<Task>(tasksCollection, task.id))?.value
  if (stored === undefined) throw new Error(`Task ${task.id} vanished from the store.`)
  return stored
}

/** After a state change: the deadline scheduled on dispatch, the parties told through the events outbox. */
async function changed(deps: Deps, task: Task): Promise<Task> {
  if (task.status === 'dispatched' && task.deadline !== undefined)
    await schedule(deps, task.id, 'deadline', new Date(task.deadline))
  await deps.events?.emit({
    type: 'robot.task.updated',
    owner: task.requester,
    data: { taskId: task.id, status: task.status },
  })
  if (!isAddressEqual(task.requester, task.operator))
    await deps.events?.emit({
      type: 'robot.task.updated',
      owner: task.operator,
      data: { taskId: task.id, status: task.status },
    })
  return task
}

/**
 * The outbox work of a task's escrow moving to `to`: `escrow.funded`, `escrow.released` or `escrow.cancelled` to the
 * requester and the operator, with the escrow's stable ids (the escrows module records the same move as one event).
 */
function escrowEvents(deps: Deps, task: Task, to: Escrow.Status, transaction?: Hex): Also | undefined {
  const { events } = deps
  if (!events) return undefined
  const moved = EventsPort.escrowMoved({
    escrowId: task.escrow.id as Hex,
    amount: BigInt(task.escrow.amount),
    token: task.escrow.token.address,
    from: task.escrow.status,
    to,
    transaction,
  })
  const parties = [task.requester, task.operator]
  return {
    enqueue: moved.flatMap((event) => EventsPort.forOwners(event, parties).map((owned) => events.outbox(owned))),
  }
}

/** Enqueues a task's moment on the durable queue, once per (task, moment); nothing without a queue (the job sweeps). */
async function schedule(deps: Deps, taskId: string, moment: 'deposit-window' | 'deadline', at: Date) {
  await deps.queue?.enqueue([{ queue: momentsQueue, id: `${taskId}:${moment}`, payload: { taskId }, dueAt: at }])
}

/**
 * The queue worker: a task's moment is due (its deposit window closed, or its deadline passed), so the task is
 * brought forward and settled. Done once the task is at rest; otherwise tried again shortly (a settlement that failed).
 */
export async function work(
  deps: Deps,
  item: { payload: unknown },
): Promise<{ done: true } | { retryAt: Date; error: string }> {
  const { taskId } = item.payload as { taskId: string }
  const record = (await deps.store.get<Task>(tasksCollection, taskId))?.value
  if (record === undefined || atRest(record)) return { done: true }
  const next = await advance(deps, record, { settle: true })
  if (atRest(next) || !RobotTask.finalStatuses.includes(next.status)) return { done: true }
  return { retryAt: new Date(clock(deps).getTime() + 30_000), error: next.settlementError ?? 'settlement pending' }
}

/**
 * Sends the escrow transaction of a final task from the arbiter and records its hash. One process at a time holds
 * the claim to send it, so two processes never both release; a failure is recorded and retried by the sweep.
 */
async function settle(deps: Deps, task: Task): Promise<Task> {
  const action = RobotTask.settlementOf(task.status)!
  const now = clock(deps)
  const by = randomHex(8)
  const claimed = await deps.store.update<Task>(tasksCollection, task.id, (current) => {
    const value = current.value
    if (!RobotTask.awaitsSettlement(value)) return { refused: true, reason: 'settled' }
    if (value.claim && new Date(value.claim.until).getTime() > now.getTime())
      return { refused: true, reason: 'another process is settling it' }
    return { ...value, claim: { by, until: new Date(now.getTime() + settlementClaimMs).toISOString() } }
  })
  if (!claimed.ok) return (await deps.store.get<Task>(tasksCollection, task.id))?.value ?? task
  const escrowId = task.escrow.id as Hex
  let transaction: Hex
  try {
    transaction = await deps.arbiter[action](escrowId)
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error)
    const failed = await deps.store.update<Task>(tasksCollection, task.id, (current) =>
      current.value.claim?.by === by
        ? { ...current.value, claim: undefined, settlementError: reason }
        : { refused: true, reason: 'claim lost' },
    )
    return failed.ok ? failed.record.value : task
  }
  const settledAt = clock(deps)
  const updated = await deps.store.update<Task>(
    tasksCollection,
    task.id,
    (current) => {
      const next = RobotTask.transition(
        current.value,
        { type: 'settled', settlement: { action, transaction } },
        settledAt,
      )
      const escrow = Escrow.transition(
        Escrow.deserialize(next.escrow),
        { type: action === 'release' ? 'released' : 'cancelled' },
        settledAt,
      )
      return { ...next, escrow: Escrow.serialize(escrow), claim: undefined, settlementError: undefined }
    },
    escrowEvents(deps, task, action === 'release' ? 'released' : 'cancelled', transaction),
  )
  if (!updated.ok) throw new Error(`Task ${task.id} vanished from the store.`)
  return updated.record.value
}

/** Delivers the dispatched task to the robot; a failure is kept with the next attempt's time (exponential). */
async function deliver(deps: Deps, task: Task): Promise<Task> {
  const now = clock(deps)
  if (task.delivery.nextAttemptAt !== undefined && new Date(task.delivery.nextAttemptAt).getTime() > now.getTime())
    return task
  const robot = (await deps.store.get<Robot>(robotsCollection, task.robotId))?.value
  if (robot === undefined) return task
  const payload = {
    type: 'robot.task.dispatched',
    timestamp: now.toISOString(),
    data: {
      taskId: task.id,
      robotId: task.robotId,
      taskType: task.taskType,
      input: task.input,
      deadline: task.deadline,
      amount: task.amount,
      token: task.escrow.token,
      escrowId: task.escrow.id,
      requester: task.requester,
    },
  }
  const outcome = await (deps.dispatch ?? webhook(deps.outbound))({ robot, id: `msg_${task.id}`, payload })
  const attempts = task.delivery.attempts + 1
  const delivery: Task['delivery'] = outcome.ok
    ? { attempts, deliveredAt: now.toISOString() }
    : {
        attempts,
        lastError: outcome.reason,
        nextAttemptAt: new Date(now.getTime() + Math.min(30_000 * 2 ** (attempts - 1), 3_600_000)).toISOString(),
      }
  const updated = await deps.store.update<Task>(tasksCollection, task.id, (current) => ({ ...current.value, delivery }))
  return updated.ok ? updated.record.value : task
}

/**
 * The default delivery: a Standard Webhooks POST (`webhook-id`, `webhook-timestamp`, `webhook-signature` signed
 * with the robot's secret) through the outbound guard; a 2xx answer is delivered.
 */
export function webhook(outbound: Outbound.Guard): Dispatch {
  return async ({ robot, id, payload }) => {
    const body = JSON.stringify(payload)
    const timestamp = new Date()
    const signature = new Webhook(robot.webhookSecret.slice('whsec_'.length)).sign(id, timestamp, body)
    const sent = await outbound.fetch(robot.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
      timeoutMs: 5_000,
      maxBytes: 65_536,
    })
    if (!sent.ok) return { ok: false, reason: sent.message }
    if (sent.status < 200 || sent.status >= 300) return { ok: false, reason: `the endpoint answered ${sent.status}` }
    return { ok: true }
  }
}

/**
 * Checks a signed request: the expiry (future, at most an hour ahead), the EIP-712 signature (its signer must be
 * `operator`), then the nonce, used once. Answers the operator.
 */
async function authorize(deps: Deps, action: RobotRequest.Action, body: Record<string, unknown>): Promise<Address> {
  const request = body as Record<string, unknown> & { operator: Address; nonce: string; expiry: number; signature: Hex }
  const nowSeconds = Math.floor(clock(deps).getTime() / 1000)
  if (request.expiry <= nowSeconds)
    throw new ValidationError({ field: 'expiry', message: `has passed (now is ${nowSeconds})` })
  if (request.expiry > nowSeconds + maxSignatureSeconds)
    throw new ValidationError({ field: 'expiry', message: `is more than ${maxSignatureSeconds} s ahead` })
  const operator = getAddress(request.operator)
  let signer: Address
  try {
    signer = await recoverTypedDataAddress({
      ...RobotRequest.typedData({ chainId: deps.chainId, action, request: { ...request, operator } }),
      signature: request.signature,
    })
  } catch {
    throw new ValidationError({ field: 'signature', message: 'is not a valid ECDSA signature' })
  }
  if (!isAddressEqual(signer, operator))
    throw new ForbiddenError(`The request is not signed by operator ${operator}.`, { details: { field: 'signature' } })
  const used = await deps.store.insert({
    collection: noncesCollection,
    id: `${operator.toLowerCase()}:${BigInt(request.nonce)}`,
    owners: [operator],
    value: { action, expiry: request.expiry },
    createdAt: clock(deps),
  })
  if (!used.ok)
    throw new ConflictError(`Nonce ${request.nonce} of operator ${operator} was already used.`, {
      details: { field: 'nonce', reason: 'replayed' },
    })
  return operator
}

/** The profile fields, checked: prices only for capabilities, a known token, an endpoint the guard allows. */
async function checkProfile(
  deps: Deps,
  fields: Omit<Robot, 'id' | 'operator' | 'status' | 'webhookSecret' | 'createdAt' | 'updatedAt'>,
  checkEndpoint = true,
) {
  const unpriced = Object.keys(fields.pricing).filter((type) => !fields.capabilities.includes(type))
  if (unpriced.length > 0)
    throw new ValidationError({ field: 'pricing', message: `prices task types that are not capabilities: ${unpriced}` })
  if (Object.keys(fields.pricing).length === 0)
    throw new ValidationError({ field: 'pricing', message: 'must price at least one capability' })
  const token = tokenOf(deps, fields.token)
  if (checkEndpoint) {
    const allowed = await deps.outbound.check(fields.endpoint)
    if (!allowed.ok) throw Outbound.toError(allowed, { field: 'endpoint' })
  }
  return {
    name: fields.name,
    capabilities: [...new Set(fields.capabilities)],
    pricing: fields.pricing,
    token: token.symbol,
    location: fields.location,
    availability: fields.availability,
    endpoint: fields.endpoint,
    maxTaskSeconds: fields.maxTaskSeconds,
  }
}

function tokenOf(deps: Deps, symbol: string): Escrow.Token {
  const token = deps.tokens.find((candidate) => candidate.symbol.toLowerCase() === symbol.toLowerCase())
  if (token === undefined)
    throw new ValidationError({
      field: 'token',
      message: `is not a supported token; use one of ${deps.tokens.map((one) => one.symbol).join(', ')}`,
    })
  return token
}

/** The operator's robot; another operator's is a 404. */
async function loadRobot(deps: Deps, id: string, operator: Address): Promise<Robot> {
  const robot = (await deps.store.get<Robot>(robotsCollection, id))?.value
  if (robot === undefined || !isAddressEqual(robot.operator, operator)) throw new NotFoundError(`No robot ${id}.`)
  return robot
}

/** A task whose requester or operator is `party` (only its operator when `role` says so); otherwise a 404. */
async function loadTask(deps: Deps, id: string, party: Address, role?: 'operator'): Promise<Task> {
  const task = (await deps.store.get<Task>(tasksCollection, id))?.value
  const parties = task === undefined ? [] : role === 'operator' ? [task.operator] : owners(task)
  if (task === undefined || !parties.some((owner) => isAddressEqual(owner, party)))
    throw new NotFoundError(`No task ${id}.`)
  return task
}

function owners(task: Task): Address[] {
  return isAddressEqual(task.requester, task.operator) ? [task.requester] : [task.requester, task.operator]
}

/** The public profile: everything but the webhook secret. */
function profileOf(robot: Robot) {
  const { webhookSecret: _secret, ...rest } = robot
  return rest
}

/** A task as answered: no claim bookkeeping; the escrow with its on-chain state. */
function view(task: Task) {
  const { claim: _claim, ...rest } = task
  return { ...rest, phase: RobotTask.phaseOf(task.status), network: `eip155:${task.escrow.chainId}` }
}

function matchesLocation(location: Robot['location'], wanted: string): boolean {
  if (/^[A-Za-z]{2}$/.test(wanted) && location.country === wanted.toUpperCase()) return true
  return location.label.toLowerCase().includes(wanted.toLowerCase())
}

function checkSize(value: unknown, field: string) {
  if (value !== undefined && JSON.stringify(value).length > maxPayloadBytes)
    throw new ValidationError({ field, message: `is larger than ${maxPayloadBytes} bytes of JSON` })
}

/** Appends an id to a hash chain (the registry, the task queue). */
async function appendTo(store: Store, chain: string, id: string, now: Date) {
  await store.append<{ id: string }>(chain, (last) => ({
    value: { id },
    hash: keccak256(new TextEncoder().encode(`${last?.hash ?? ''}${id}`)),
    createdAt: now,
  }))
}

async function readChain<value>(read: () => Promise<value>): Promise<value> {
  try {
    return await read()
  } catch (error) {
    throw new UpstreamUnavailableError('The escrow contract could not be read; try again shortly.', { cause: error })
  }
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex')
}

function clock(deps: Deps): Date {
  return deps.now?.() ?? new Date()
}
