import { Value } from '@sinclair/typebox/value'
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
import * as Machine from '../../core/Machine.js'
import * as Outbound from '../../core/Outbound.js'
import type * as Queue from '../../core/Queue.js'
import * as RobotRequest from '../../core/RobotRequest.js'
import * as RobotTask from '../../core/RobotTask.js'
import { type Also, type Store, walk } from '../../core/Store.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'
import * as Webhooks from '../../core/Webhooks.js'
import {
  type CompleteBody,
  type DeregisterBody,
  ListQuery,
  ProfileQuery,
  type RegisterBody,
  StatusQuery,
  TaskBody,
  type UpdateBody,
} from './schema.js'

/** Store collection of robots; values are {@link Robot}. */
export const robotsCollection = 'robots'
/** Store collection of tasks; values are {@link Task}. */
export const tasksCollection = 'robot_tasks'
/** Store collection of tasks' callbacks (id: the task's): each a {@link Webhooks.Endpoint}, its URL and secret. */
export const callbacksCollection = 'robot_task_callbacks'
/** Store collection of used operator nonces, `operator:nonce`. */
export const noncesCollection = 'robot_nonces'
/** Hash chain of every robot id ever registered, which `list` walks. */
export const registry = 'robots:registry'
/** Hash chain of every task id, which the sweep walks. */
export const queue = 'robot_tasks:queue'
/** Hash chain of the ids of one robot's tasks, which its profile's `stats` count. */
export function tasksOf(robotId: string): string {
  return `robot_tasks:${robotId}`
}
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
  /** The gateway's public origin (PUBLIC_URL), whose host names robots in their `rtp_uri`; unset, `rtp_uri` is null. */
  publicUrl?: string | undefined
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
  location?: NonNullable<RegisterBody['location']> | undefined
  availability: NonNullable<RegisterBody['availability']>
  endpoint: string
  /** What the robot is, for people (the original gateway's field). */
  description?: string | undefined
  /** Labels (the original gateway's field). */
  tags?: string[] | undefined
  /** Free-form JSON (the original gateway's field). */
  metadata?: Record<string, unknown> | undefined
  maxTaskSeconds: number
  /** Its registration's state ({@link RobotTask.registrationTransition}). */
  status: RobotTask.Registration['status']
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
  /** Where the task's end is delivered (the original gateway's `callback_url`); its secret is its endpoint record's. */
  callbackUrl?: string | undefined
  createdAt: string
}

/** Registers a robot for the operator that signed the request; answers its profile and its webhook secret, once. */
export async function register(deps: Deps, body: RegisterBody) {
  const claimed = either(['payment_address', body.payment_address], ['operator', body.operator])
  if (claimed === undefined)
    throw new ValidationError({
      field: 'payment_address',
      message: 'required: the operator address that signs and is paid (or operator)',
    })
  const wanted = fieldsOf(deps, body)
  if (body.signature === undefined) return signatureRequired(deps, 'register', body, getAddress(claimed))
  const operator = await authorize(deps, 'register', body, getAddress(claimed))
  const now = clock(deps)
  const fields = await checkProfile(deps, wanted)
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
  const shown = profileOf(deps, robot)
  return {
    status: 'registered',
    robot_id: robot.id,
    rtp_uri: shown.rtp_uri,
    x402_endpoint: `${deps.publicUrl ?? ''}/api/v1/robots/task`,
    robot: shown,
    webhookSecret: robot.webhookSecret,
  }
}

/** Changes the fields given of the signing operator's robot. */
export async function update(deps: Deps, body: UpdateBody) {
  const id = robotIdOf(body)
  const claimed = either(['payment_address', body.payment_address], ['operator', body.operator])
  const stored = claimed === undefined ? await findRobot(deps, id) : undefined
  const operatorOf = getAddress(claimed ?? stored!.operator)
  const changes = changesOf(body)
  // The human price is read in the robot's token before the signature is asked for, as register reads it.
  const perTask =
    body.price_per_task === undefined
      ? undefined
      : pricePerTask(deps, changes.token ?? (stored ?? (await findRobot(deps, id))).token, body.price_per_task)
  if (body.signature === undefined) return signatureRequired(deps, 'update', body, operatorOf)
  const operator = await authorize(deps, 'update', body, operatorOf)
  const robot = await loadRobot(deps, id, operator)
  if (robot.status !== 'active') throw new ConflictError(`Robot ${robot.id} is deregistered.`)
  const merged = { ...robot, ...changes }
  if (perTask !== undefined) merged.pricing = uniformPricing(merged.capabilities, perTask)
  const fields = await checkProfile(deps, merged, changes.endpoint !== undefined)
  const now = clock(deps)
  const updated = await deps.store.update<Robot>(robotsCollection, robot.id, (current) =>
    Machine.refusing(() => RobotTask.registrationTransition({ ...current.value, ...fields }, { type: 'updated' }, now)),
  )
  if (!updated.ok) throw new ConflictError(`Robot ${robot.id} is deregistered.`)
  const updatedFields = Object.keys(body).filter(
    (key) => !['operator', 'payment_address', 'nonce', 'expiry', 'signature', 'robotId', 'robot_id'].includes(key),
  )
  return {
    status: 'updated',
    robot_id: robot.id,
    updated_fields: updatedFields,
    robot: profileOf(deps, updated.record.value),
  }
}

/** Takes the signing operator's robot off the network; tasks already dispatched run to their end. */
export async function deregister(deps: Deps, body: DeregisterBody) {
  const id = robotIdOf(body)
  const operatorOf = getAddress(body.operator ?? (await findRobot(deps, id)).operator)
  if (body.signature === undefined) return signatureRequired(deps, 'deregister', body, operatorOf)
  const operator = await authorize(deps, 'deregister', body, operatorOf)
  const robot = await loadRobot(deps, id, operator)
  const now = clock(deps)
  const updated = await deps.store.update<Robot>(robotsCollection, robot.id, (current) =>
    Machine.refusing(() => RobotTask.registrationTransition(current.value, { type: 'deregistered' }, now)),
  )
  if (!updated.ok) throw new ConflictError(`Robot ${robot.id} is already deregistered.`)
  return { status: 'deregistered', robot_id: robot.id, name: robot.name, robot: profileOf(deps, updated.record.value) }
}

/** Active robots matching the filters, oldest registration first. */
export async function list(deps: Deps, query: ListQuery) {
  const { capability, location, limit = 50 } = query
  const { availability, maxPrice, maxPrice18 } = listFilters(query)
  const chain = query.chain?.toLowerCase()
  const robots: ReturnType<typeof profileOf>[] = []
  for await (const entry of walk<{ id: string }>(deps.store, registry)) {
    if (robots.length >= limit) break
    // Every robot here is paid on the settlement chain, which the original gateway calls base.
    if (chain !== undefined && chain !== 'base') break
    const robot = (await deps.store.get<Robot>(robotsCollection, entry.value.id))?.value
    if (robot === undefined || robot.status !== 'active') continue
    if (capability !== undefined && !robot.capabilities.includes(capability)) continue
    if (availability !== undefined && robot.availability !== availability) continue
    if (location !== undefined && !matchesLocation(robot.location, location)) continue
    const prices = capability === undefined ? Object.values(robot.pricing) : [robot.pricing[capability]]
    if (maxPrice !== undefined && !prices.some((price) => price !== undefined && BigInt(price) <= maxPrice)) continue
    if (maxPrice18 !== undefined) {
      const scale = 10n ** BigInt(18 - TokenList.toToken({ tokens: deps.tokens, token: robot.token }).decimals)
      if (!prices.some((price) => price !== undefined && BigInt(price) * scale <= maxPrice18)) continue
    }
    robots.push(profileOf(deps, robot))
  }
  return {
    robots,
    count: robots.length,
    total: robots.length,
    filters: {
      capability: capability ?? null,
      chain: query.chain ?? 'base',
      max_price: query.max_price ?? null,
      status: query.status ?? null,
    },
  }
}

/** Checks a list query before payment: one name of each filter, a readable max_price. */
export function preflightList(query: unknown): void {
  if (Value.Check(ListQuery, query)) listFilters(query)
}

/** The availability and the price ceiling a list query asks for, in either gateway's words. */
function listFilters(query: ListQuery): {
  availability: Robot['availability'] | undefined
  maxPrice: bigint | undefined
  maxPrice18: bigint | undefined
} {
  const status = either(['status', query.status], ['availability', query.availability])
  const human = either(['max_price', query.max_price], ['maxPrice', query.maxPrice])
  return {
    availability: status === 'online' ? 'available' : status,
    maxPrice: query.maxPrice === undefined ? undefined : BigInt(query.maxPrice),
    // The original's ceiling is a human decimal: compared at 18 decimals, whatever each robot's token has.
    maxPrice18:
      query.max_price === undefined || human === undefined
        ? undefined
        : Units.fromDecimal({ value: query.max_price, decimals: 18, field: 'max_price' }),
  }
}

/** A robot's public profile, with the `stats` of its tasks. */
export async function profile(deps: Deps, query: ProfileQuery) {
  const id = either(['robot_id', query.robot_id], ['id', query.id])
  if (id === undefined) throw new ValidationError({ field: 'robot_id', message: 'required: the robot (rbt_...)' })
  const robot = (await deps.store.get<Robot>(robotsCollection, id))?.value
  if (robot === undefined) throw new NotFoundError(`No robot ${id}.`)
  const shown = profileOf(deps, robot)
  return { ...shown, stats: await statsOf(deps, robot.id), robot: shown }
}

/**
 * What a robot's tasks came to, counted from their records: the original gateway's `total_tasks` and
 * `completed_tasks`, ours by state, and `completionRate`, the share of the tasks it ended (completed, failed or timed
 * out; not those canceled for want of a deposit) that it completed, `null` before any ended.
 */
async function statsOf(deps: Deps, robotId: string) {
  const byStatus = Object.fromEntries(RobotTask.statuses.map((status) => [status, 0])) as Record<
    RobotTask.Status,
    number
  >
  for await (const entry of walk<{ id: string }>(deps.store, tasksOf(robotId))) {
    // A task whose call was never paid is taken back; its id may stay in the chain.
    const task = (await deps.store.get<Task>(tasksCollection, entry.value.id))?.value
    if (task !== undefined) byStatus[task.status] += 1
  }
  const ended = byStatus.completed + byStatus.failed + byStatus.timed_out
  return {
    total_tasks: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
    completed_tasks: byStatus.completed,
    byStatus,
    completionRate: ended === 0 ? null : byStatus.completed / ended,
  }
}

/** Checks a profile query before payment: one of robot_id and id. */
export function preflightProfile(query: unknown): void {
  if (!Value.Check(ProfileQuery, query)) return
  if (either(['robot_id', query.robot_id], ['id', query.id]) === undefined)
    throw new ValidationError({ field: 'robot_id', message: 'required: the robot (rbt_...)' })
}

/**
 * Creates a task for the paying requester and its escrow terms: the robot's price for the task type, deposited by
 * the requester, paid to the operator on completion, with the gateway's arbiter. Answers the approve and deposit
 * transactions the requester signs; the task is dispatched once the deposit is read back from the contract.
 */
export async function task(deps: Deps, body: TaskBody & { caller: Address }) {
  const input = taskInputOf(body)
  const { robot, price, timeoutSeconds } = await checkTask(deps, input)
  const now = clock(deps)
  const requester = getAddress(body.caller)
  const depositBy = new Date(now.getTime() + deps.depositWindowSeconds * 1000)
  const escrow = Escrow.from({
    id: toHex(crypto.getRandomValues(new Uint8Array(32))),
    chainId: deps.chain.chainId,
    contract: deps.chain.address,
    depositor: requester,
    beneficiary: robot.operator,
    arbiter: deps.arbiter.address,
    token: TokenList.toToken({ tokens: deps.tokens, token: robot.token }),
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
    callbackUrl: input.callbackUrl,
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
  const callback: Webhooks.Endpoint | undefined =
    input.callbackUrl === undefined
      ? undefined
      : { url: input.callbackUrl, secret: Webhooks.newSecret(), status: 'active' }
  if (callback)
    await deps.store.insert({
      collection: callbacksCollection,
      id: record.id,
      owners: [requester],
      value: callback,
      createdAt: now,
    })
  await appendTo(deps.store, queue, record.id, now)
  await appendTo(deps.store, tasksOf(robot.id), record.id, now)
  await schedule(deps, record.id, 'deposit-window', depositBy)
  return {
    ...originalTaskOf(record),
    poll_url: `/api/v1/robots/status?task_id=${record.id}`,
    // The callback's signing secret, in this answer only.
    callback: callback ? { url: callback.url, secret: callback.secret, status: callback.status } : null,
    taskRecord: view(record),
    transactions: Escrow.toFundingTransactions(escrow),
  }
}

/** A task body in our words: the original gateway's names resolved, one of each pair. */
function taskInputOf(body: TaskBody): {
  robotId: string
  taskType: string
  input: unknown
  timeoutSeconds: number | undefined
  callbackUrl: string | undefined
} {
  const robotId = either(['robot_id', body.robot_id], ['robotId', body.robotId])
  if (robotId === undefined) throw new ValidationError({ field: 'robot_id', message: 'required: the robot (rbt_...)' })
  const taskType = either(['task', body.task], ['taskType', body.taskType])
  if (taskType === undefined) throw new ValidationError({ field: 'task', message: 'required: the task type' })
  return {
    robotId,
    taskType,
    input: either(['parameters', body.parameters], ['input', body.input]),
    timeoutSeconds: either(['timeout_seconds', body.timeout_seconds], ['timeoutSeconds', body.timeoutSeconds]),
    callbackUrl: body.callback_url,
  }
}

/**
 * Refuses, before any payment is asked for, a task no robot can take: an unknown or deregistered robot (404), one
 * that is not available (409), a task type it does not price, input over the limit, a timeout past its maximum. It
 * runs ahead of the schema, so a body the schema will refuse is left to it.
 */
export async function preflightTask(deps: Deps, body: unknown): Promise<void> {
  if (!Value.Check(TaskBody, body)) return
  await checkTask(deps, taskInputOf(body))
}

/** The robot, price and timeout of a task, or why it cannot be created. */
async function checkTask(deps: Deps, input: ReturnType<typeof taskInputOf>) {
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
  if (input.callbackUrl !== undefined) {
    const allowed = await deps.outbound.check(input.callbackUrl)
    if (!allowed.ok) throw Outbound.toError(allowed, { field: 'callback_url' })
  }
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
export async function status(deps: Deps, input: StatusQuery & { caller: Address }) {
  const id = taskIdOf(input)
  const found = await loadTask(deps, id, input.caller)
  const current = await advance(deps, found, { settle: false })
  return { ...originalTaskOf(current), taskRecord: view(current) }
}

/** Checks a status query before payment: one of task_id and id. */
export function preflightStatus(query: unknown): void {
  if (Value.Check(StatusQuery, query)) taskIdOf(query)
}

/** The task a query or body names, in either gateway's words. */
function taskIdOf(input: {
  task_id?: string | undefined
  taskId?: string | undefined
  id?: string | undefined
}): string {
  const ours = input.taskId ?? input.id
  const id = either(['task_id', input.task_id], [input.taskId === undefined ? 'id' : 'taskId', ours])
  if (id === undefined) throw new ValidationError({ field: 'task_id', message: 'required: the task (tsk_...)' })
  return id
}

/** The robot a body names, in either gateway's words. */
function robotIdOf(input: { robot_id?: string | undefined; robotId?: string | undefined }): string {
  const id = either(['robot_id', input.robot_id], ['robotId', input.robotId])
  if (id === undefined) throw new ValidationError({ field: 'robot_id', message: 'required: the robot (rbt_...)' })
  return id
}

/** The original gateway's words for a task's status. */
const originalStatuses: Record<RobotTask.Status, string> = {
  awaiting_deposit: 'PENDING',
  dispatched: 'DISPATCHED',
  accepted: 'IN_PROGRESS',
  in_progress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
  timed_out: 'TIMEOUT',
  canceled: 'CANCELLED',
}

/** A task as the original gateway answers it (its snake_case fields and upper-case status). */
function originalTaskOf(task: Task) {
  const at = (statuses: readonly RobotTask.Status[]) =>
    task.history.find((entry) => statuses.includes(entry.status))?.at ?? null
  return {
    task_id: task.id,
    robot_id: task.robotId,
    task: task.taskType,
    status: originalStatuses[task.status],
    escrow_id: task.escrow.id,
    result: task.result ?? null,
    timeout_seconds: task.timeoutSeconds,
    issued_at: task.createdAt,
    dispatched_at: at(['dispatched']),
    completed_at: at(RobotTask.finalStatuses),
    is_terminal: RobotTask.finalStatuses.includes(task.status),
  }
}

/**
 * The robot's report, signed by its operator: progress (`accepted`, `in_progress`), or the end (`completed` releases
 * the escrow to the operator, `failed` refunds the requester), with the transaction's hash. A task of another
 * operator is a 404.
 */
export async function complete(deps: Deps, body: CompleteBody) {
  const id = taskIdOf(body)
  checkSize(body.result, 'result')
  const operatorOf = getAddress(body.operator ?? (await findTask(deps, id)).operator)
  if (body.signature === undefined) return signatureRequired(deps, 'complete', body, operatorOf)
  const operator = await authorize(deps, 'complete', body, operatorOf)
  let current = await advance(deps, await loadTask(deps, id, operator, 'operator'), { settle: true })
  const reported = (body.status ?? 'completed').toLowerCase()
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
  return {
    task_id: current.id,
    status: originalStatuses[current.status],
    escrow: escrowOf(current),
    result: current.result ?? null,
    taskRecord: view(current),
  }
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
    else if (now.getTime() >= new Date(task.depositBy).getTime())
      task = await observe(deps, task, { type: 'canceled' }, undefined, {
        enqueue: ended(deps, { ...task, status: 'canceled' }, now),
      })
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

/** The original gateway's word for what a task's escrow did: released to the operator, refunded, or nothing yet. */
function escrowOf(task: Task): 'released' | 'refunded' | null {
  const action = task.settlement?.action
  return action === 'release' ? 'released' : action === 'cancel' ? 'refunded' : null
}

/**
 * The work of a task coming to rest (its escrow settled, or canceled without a deposit): `robot.task.completed` with
 * the original gateway's callback fields, as a signed delivery to the task's `callback_url` when it named one, else
 * as the requester's event, to their webhooks. One id per task, so a retried write delivers it once.
 */
function ended(deps: Deps, task: Task, at: Date): Queue.Enqueue[] {
  const event = {
    id: `robot.task.completed:${task.id}`,
    type: 'robot.task.completed' as const,
    data: {
      event: 'task.completed',
      task_id: task.id,
      robot_id: task.robotId,
      status: originalStatuses[task.status],
      result: task.result ?? null,
      escrow: escrowOf(task),
      settlement: task.settlement ?? null,
      timestamp: at.toISOString(),
    },
  }
  if (task.callbackUrl !== undefined)
    return [
      Webhooks.deliveryItem({
        endpoint: { collection: callbacksCollection, id: task.id },
        owner: task.requester,
        event: { ...event, timestamp: at.toISOString() },
      }),
    ]
  return deps.events ? [deps.events.outbox({ ...event, owner: task.requester, timestamp: at })] : []
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
    {
      enqueue: [
        ...(escrowEvents(deps, task, action === 'release' ? 'released' : 'cancelled', transaction)?.enqueue ?? []),
        ...ended(deps, { ...task, settlement: { action, transaction, at: settledAt.toISOString() } }, settledAt),
      ],
    },
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
/**
 * The operator who signed `body` for `action`, checked: expiry within bounds, the EIP-712 signature of
 * {@link RobotRequest.typedData} over the body as sent with `operator` (the one it claims, or whose robot or task it
 * names) recovering to that operator, and the nonce never used before.
 */
async function authorize(
  deps: Deps,
  action: RobotRequest.Action,
  body: Record<string, unknown>,
  operator: Address,
): Promise<Address> {
  for (const field of ['nonce', 'expiry'] as const)
    if (body[field] === undefined)
      throw new ValidationError({ field, message: 'required with signature: send back the one the typed data holds' })
  const request = { ...body, operator } as Record<string, unknown> & {
    operator: Address
    nonce: string
    expiry: number
    signature: Hex
  }
  const nowSeconds = Math.floor(clock(deps).getTime() / 1000)
  if (request.expiry <= nowSeconds)
    throw new ValidationError({ field: 'expiry', message: `has passed (now is ${nowSeconds})` })
  if (request.expiry > nowSeconds + maxSignatureSeconds)
    throw new ValidationError({ field: 'expiry', message: `is more than ${maxSignatureSeconds} s ahead` })
  let signer: Address
  try {
    signer = await recoverTypedDataAddress({
      ...RobotRequest.typedData({ chainId: deps.chainId, action, request }),
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
  const token = TokenList.toToken({ tokens: deps.tokens, token: fields.token })
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
    description: fields.description,
    tags: fields.tags,
    metadata: fields.metadata,
  }
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
function profileOf(deps: Deps, robot: Robot) {
  const { webhookSecret: _secret, status, ...rest } = robot
  const prices = Object.values(robot.pricing).map(BigInt)
  const lowest = prices.reduce((low, price) => (price < low ? price : low), prices[0] ?? 0n)
  return {
    ...rest,
    /** Ours: active, or deregistered; `status` is the original gateway's (online, busy, offline). */
    registration: status,
    robot_id: robot.id,
    price_per_task: Units.toDecimal(lowest, TokenList.toToken({ tokens: deps.tokens, token: robot.token }).decimals),
    currency: robot.token,
    chain: 'base',
    payment_address: robot.operator,
    status: robot.availability === 'available' ? 'online' : robot.availability,
    connection: { type: 'webhook', webhookUrl: robot.endpoint },
    connection_type: 'webhook',
    // The original gateway's name of the robot at this gateway: rtp://<its host>/<robot id>.
    rtp_uri: deps.publicUrl === undefined ? null : `rtp://${new URL(deps.publicUrl).host}/${robot.id}`,
    tags: robot.tags ?? [],
    metadata: robot.metadata ?? {},
    description: robot.description ?? null,
    registered_at: robot.createdAt,
  }
}

/** A task as answered: no claim bookkeeping; the escrow with its on-chain state. */
function view(task: Task) {
  const { claim: _claim, ...rest } = task
  return { ...rest, phase: RobotTask.phaseOf(task.status), network: `eip155:${task.escrow.chainId}` }
}

function matchesLocation(location: Robot['location'], wanted: string): boolean {
  if (location === undefined) return false
  if (/^[A-Za-z]{2}$/.test(wanted) && location.country === wanted.toUpperCase()) return true
  return location.label.toLowerCase().includes(wanted.toLowerCase())
}

function checkSize(value: unknown, field: string) {
  if (value !== undefined && JSON.stringify(value).length > maxPayloadBytes)
    throw new ValidationError({ field, message: `is larger than ${maxPayloadBytes} bytes of JSON` })
}

/**
 * The value of a field the original gateway names `original` and we name `ours`, whichever was given; both at once is
 * a 400 naming ours.
 */
function either<original, ours>(
  original: [string, original | undefined],
  ours: [string, ours | undefined],
): original | ours | undefined {
  if (original[1] !== undefined && ours[1] !== undefined)
    throw new ValidationError({
      field: ours[0],
      message: `names the same field as the original gateway's ${original[0]}; give one of them`,
    })
  return original[1] ?? ours[1]
}

/** Default price of every task type where neither pricing nor price_per_task is given, as the original applies it. */
const defaultPricePerTask = '0.05'

/** A register body in our words: the original gateway's names resolved, one of each pair, defaults applied. */
function fieldsOf(deps: Deps, body: RegisterBody): Parameters<typeof checkProfile>[1] {
  checkChain(body.chain)
  const token = either(['currency', body.currency], ['token', body.token]) ?? 'USDC'
  const endpoint = either(['connection', endpointOf(body.connection)], ['endpoint', body.endpoint])
  if (endpoint === undefined)
    throw new ValidationError({
      field: 'connection',
      message: 'required: { type: "webhook", webhookUrl } (or endpoint), where tasks are delivered',
    })
  checkSize(body.metadata, 'metadata')
  const fields = {
    name: body.name,
    capabilities: body.capabilities,
    pricing: {} as Record<string, string>,
    token,
    location: body.location,
    availability: body.availability ?? 'available',
    endpoint,
    maxTaskSeconds: body.maxTaskSeconds ?? 3_600,
    description: body.description,
    tags: body.tags,
    metadata: body.metadata,
  }
  const pricing = either(['price_per_task', body.price_per_task], ['pricing', body.pricing])
  fields.pricing =
    typeof pricing === 'object'
      ? pricing
      : uniformPricing(fields.capabilities, pricePerTask(deps, token, pricing ?? defaultPricePerTask))
  return fields
}

/** An update body's changes in our words: the original gateway's names resolved, one of each pair. */
function changesOf(body: UpdateBody): Partial<Robot> {
  checkChain(body.chain)
  checkSize(body.metadata, 'metadata')
  either(['price_per_task', body.price_per_task], ['pricing', body.pricing])
  const status = either(['status', body.status], ['availability', body.availability])
  const changes: Partial<Robot> = {
    name: body.name,
    capabilities: body.capabilities,
    pricing: body.pricing,
    token: either(['currency', body.currency], ['token', body.token]),
    location: body.location,
    availability: status === 'online' ? 'available' : status,
    endpoint: either(['connection', endpointOf(body.connection)], ['endpoint', body.endpoint]),
    maxTaskSeconds: body.maxTaskSeconds,
    description: body.description,
    tags: body.tags,
    metadata: body.metadata,
  }
  return pick(changes)
}

/** The fields of `changes` that were given. */
function pick<value extends object>(changes: value): Partial<value> {
  return Object.fromEntries(Object.entries(changes).filter(([, given]) => given !== undefined)) as Partial<value>
}

/** The original gateway's human `price_per_task` in atomic units of the robot's token. */
function pricePerTask(deps: Deps, token: string, price: string | number): bigint {
  const { decimals } = TokenList.toToken({ tokens: deps.tokens, token })
  const atomic = Units.fromDecimal({ value: price, decimals, field: 'price_per_task' })
  if (atomic === 0n) throw new ValidationError({ field: 'price_per_task', message: 'must be more than zero' })
  return atomic
}

/** One atomic price for every capability. */
function uniformPricing(capabilities: string[], price: bigint): Record<string, string> {
  return Object.fromEntries(capabilities.map((capability) => [capability, price.toString()]))
}

/** The endpoint of the original gateway's connection; only webhook delivery exists here. */
function endpointOf(connection: RegisterBody['connection']): string | undefined {
  if (connection === undefined) return undefined
  if ((connection.type ?? 'webhook') !== 'webhook')
    throw new ValidationError({
      field: 'connection.type',
      message: `${connection.type} is not served here: tasks are delivered by webhook (Standard Webhooks) only`,
    })
  if (connection.webhookUrl === undefined)
    throw new ValidationError({ field: 'connection.webhookUrl', message: 'required: where tasks are delivered' })
  return connection.webhookUrl
}

/** Robots here are paid on the settlement chain, which the original gateway calls base. */
function checkChain(chain: string | undefined): void {
  if (chain !== undefined && chain.toLowerCase() !== 'base')
    throw new ValidationError({ field: 'chain', message: 'tasks are paid on base here; give base or leave it out' })
}

/** A robot, whoever operates it (to name the operator whose signature a request needs); unknown is a 404. */
async function findRobot(deps: Deps, id: string): Promise<Robot> {
  const robot = (await deps.store.get<Robot>(robotsCollection, id))?.value
  if (robot === undefined) throw new NotFoundError(`No robot ${id}.`)
  return robot
}

/** A task, whoever operates it (to name the operator whose signature a request needs); unknown is a 404. */
async function findTask(deps: Deps, id: string): Promise<Task> {
  const task = (await deps.store.get<Task>(tasksCollection, id))?.value
  if (task === undefined) throw new NotFoundError(`No task ${id}.`)
  return task
}

/**
 * The answer to a write sent without a signature: nothing is done; the EIP-712 typed data `operator` signs (exactly
 * what {@link authorize} checks), and the request to send again with that `signature`, a fresh `nonce` and an
 * `expiry` an hour ahead.
 */
function signatureRequired(deps: Deps, action: RobotRequest.Action, body: Record<string, unknown>, operator: Address) {
  const nonce = BigInt(toHex(crypto.getRandomValues(new Uint8Array(16)))).toString()
  const expiry = Math.floor(clock(deps).getTime() / 1000) + maxSignatureSeconds
  const request = { ...body, nonce, expiry }
  const typed = RobotRequest.typedData({ chainId: deps.chainId, action, request: { ...request, operator } })
  return {
    status: 'signature_required',
    action,
    operator,
    typedData: {
      ...typed,
      message: { ...typed.message, nonce: typed.message.nonce.toString(), expiry: typed.message.expiry.toString() },
    },
    request,
    instructions: [
      `Sign typedData with the key of operator ${operator} (EIP-712, eth_signTypedData_v4).`,
      'Send request again, unchanged, with the signature added as `signature`.',
      `Before ${new Date(expiry * 1000).toISOString()}; nothing was done yet.`,
    ],
  }
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
