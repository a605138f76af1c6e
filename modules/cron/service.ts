import { Cron as Croner } from 'croner'
import { type Address, getAddress } from 'viem'
import * as Batch from '../../core/Batch.js'
import type { Chains } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import * as Cron from '../../core/Cron.js'
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../core/Errors.js'
import type * as Events from '../../core/Events.js'
import * as Machine from '../../core/Machine.js'
import type { Outcome } from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import type { Claim } from '../../core/Queue.js'
import type { Store } from '../../core/Store.js'
import * as Webhooks from '../../core/Webhooks.js'
import { actions, type CancelBody, type CreateBody, type ListQuery, originalActions } from './schema.js'

/** The store collection of cron jobs. */
export const jobs = 'cron_jobs'

/** The store collection of the jobs' callbacks (endpoints of signed deliveries), by job id. */
export const callbacks = 'cron_callbacks'

/** The queue of due runs. */
export const runQueue = 'cron'

/** Runs included in a job. */
export const includedRuns = 100

/**
 * A job as stored: its schedule and where its runs are. A job with a callback has an endpoint of signed deliveries
 * in {@link callbacks} under its id; each run of a job without one is the owner's `cron.triggered` event.
 */
export type Job = Cron.Job & {
  /** What each run does. */
  action: CreateBody['action']
  /** The 5-field UTC schedule. */
  schedule: string
  /** Sent along with each run; a batch's recipients. */
  payload: Record<string, unknown>
  /** The owner's own JSON. */
  metadata?: Record<string, unknown> | undefined
  /** Whether its runs go to its callback in {@link callbacks} rather than to the owner's webhooks. */
  callback: boolean
  /** What the last run built or why it could not, as its `cron.triggered` event carries it. */
  lastOutput?: { run: number; transaction?: Awaited<ReturnType<typeof buildTransaction>>; error?: string } | undefined
  /** When it was created, ISO 8601. */
  createdAt: string
}

/**
 * A job as stored before callbacks had records of their own in {@link callbacks}: its record is its callback's endpoint
 * too (`url`, `secret`, `status`, `failures`, `lastDelivery`; no `url` without a callback), with no `callback` field.
 * Such a record is read as it was written: its runs still go to that callback, and cancelling it cancels that endpoint.
 */
type Legacy = Omit<Job, 'callback'> & Partial<Webhooks.Endpoint> & { callback?: undefined }

/** A job record as the store may hold it: written now, or before callbacks had records of their own. */
type Stored = Job | Legacy

/** The callback a legacy job record holds, if it has one. */
function legacyCallback(job: Stored): (Legacy & Webhooks.Endpoint) | undefined {
  return job.callback === undefined && job.url !== undefined && job.secret !== undefined
    ? { ...job, url: job.url, secret: job.secret, status: job.status ?? 'active' }
    : undefined
}

/** Where a job's callback is, as an endpoint record: its own in {@link callbacks}, or its job record when legacy. */
function endpointOf(id: string, job: Stored): { collection: string; id: string } | undefined {
  if (job.callback) return { collection: callbacks, id }
  return legacyCallback(job) ? { collection: jobs, id } : undefined
}

/** A due run's queue payload. */
type Run = { jobId: string; run: number; scheduledFor: string; owner: Address }

/** What the cron service needs. */
export type Deps = {
  store: Store
  outbound: Outbound.Guard
  /** The outbox, for the runs of jobs without a callback. */
  events?: Events.Events | undefined
  /** The batch contracts, for batch and payroll actions. */
  batch?: Chains | undefined
  /** The clock. */
  now?: () => Date
}

/** The schedule's next runs after `from`, or why it is refused: 5 fields, valid, at most once an hour. */
export function parseSchedule(schedule: string, from: Date): Croner {
  const fields = schedule.trim().split(/\s+/)
  if (fields.length !== 5)
    throw new ValidationError({
      field: 'schedule',
      message: `needs 5 fields (minute hour day month weekday), got ${fields.length}; 6-field forms with seconds are refused`,
    })
  let cron: Croner
  try {
    cron = new Croner(schedule, { timezone: 'UTC', paused: true })
  } catch (error) {
    throw new ValidationError({ field: 'schedule', message: `is not a cron expression: ${(error as Error).message}` })
  }
  const runs = cron.nextRuns(50, from)
  if (runs.length === 0) throw new ValidationError({ field: 'schedule', message: 'never fires' })
  for (let index = 1; index < runs.length; index++)
    if (runs[index]!.getTime() - runs[index - 1]!.getTime() < 3_600_000)
      throw new ValidationError({
        field: 'schedule',
        message: `fires more often than once an hour (${runs[index - 1]!.toISOString()} and ${runs[index]!.toISOString()}); the minimum interval is one hour`,
      })
  return cron
}

/** Whether an action builds a batch transaction at each run from its payload. */
const isBatch = (action: unknown) => action === 'batch.execute' || action === 'payroll.execute'

/** The chain of batch and payroll runs, and a payload's token on it. */
function tokenOf(batch: Chains | undefined, payload: Record<string, unknown>) {
  if (!batch) throw new BadRequestError('Batch and payroll actions need a batch contract, and none is configured.')
  const chain = batch.base
  const symbol = typeof payload.token === 'string' ? payload.token.toUpperCase() : ''
  const isETH = symbol === 'ETH'
  const address = isETH ? BatchPayment.nativeToken : chain.tokens[symbol]
  const decimals = Batch.tokens.base[symbol]?.decimals
  if (!address || decimals === undefined)
    throw new ValidationError({
      field: 'payload.token',
      message: `is not ETH or a configured token (${Object.keys(chain.tokens).join(', ')})`,
    })
  return { chain, symbol, isETH, address, decimals }
}

/**
 * A batch or payroll payload as a job stores it: its payments read as batch/execute reads them (`recipients` with
 * `amounts` RAW, the spec's form, or `{ address, amount }` objects with HUMAN amounts of the token), written in the
 * spec's form `{ ...payload, token, recipients, amounts }` so that every run reads RAW amounts only.
 */
export async function storedPayload(batch: Chains | undefined, payload: Record<string, unknown>) {
  const { symbol, decimals } = tokenOf(batch, payload)
  const { recipients } = await Batch.payments({
    recipients: payload.recipients,
    amounts: payload.amounts,
    decimals: () => decimals,
    prefix: 'payload.',
  })
  return {
    ...payload,
    token: symbol,
    recipients: recipients.map((entry) => entry.address),
    amounts: recipients.map((entry) => entry.amount.toString()),
  }
}

/**
 * The batch transaction of a stored batch or payroll payload, built now: `{ chainId, to, data, value, token, totalRaw }`.
 * A payload still holding `{ address, amount }` objects was stored before they were read as HUMAN amounts, and is
 * refused rather than read in another unit than its creator meant.
 */
export async function buildTransaction(batch: Chains | undefined, payload: Record<string, unknown>) {
  const { chain, symbol, isETH, address } = tokenOf(batch, payload)
  const { recipients, total } = await Batch.payments({
    recipients: payload.recipients,
    amounts: payload.amounts,
    decimals: () => {
      throw new ValidationError({
        field: 'payload.recipients',
        message:
          'holds { address, amount } objects stored before cron read their amounts as HUMAN decimals of the token, as batch/execute does; cancel the job and create it again',
      })
    },
    prefix: 'payload.',
  })
  return {
    chainId: chain.chainId,
    to: chain.address,
    data: BatchPayment.calldata({ token: { address, isETH }, recipients }),
    value: (isETH ? total : 0n).toString(),
    token: symbol,
    totalRaw: total.toString(),
  }
}

/** Everything a create is refused for, before payment: an action not run here, schedule, callback URL, batch payload. */
export async function preflight(deps: Deps, body: Partial<CreateBody>) {
  if ((originalActions as readonly unknown[]).includes(body?.action))
    throw new ValidationError({
      field: 'action',
      message: `${body.action} is an action of the original gateway, which stored it and never ran it; this gateway runs no such action on a schedule. Accepted: ${actions.join(', ')}`,
    })
  if (typeof body?.schedule === 'string') parseSchedule(body.schedule, (deps.now ?? (() => new Date()))())
  if (typeof body?.callback_url === 'string') {
    const allowed = await deps.outbound.check(body.callback_url)
    if (!allowed.ok) throw Outbound.toError(allowed, { field: 'callback_url' })
  }
  if (isBatch(body?.action) && body?.payload) await storedPayload(deps.batch, body.payload)
}

/** The public view of a job, with its callback's state. */
function view(id: string, job: Stored, callback: Webhooks.Endpoint | undefined) {
  return {
    id,
    action: job.action,
    schedule: job.schedule,
    timezone: 'UTC',
    // The original gateway's word for a job with runs to come.
    status: job.state === 'scheduled' ? 'active' : job.state,
    runCount: job.runs,
    maxRuns: job.maxRuns,
    nextRun: job.nextRun,
    lastRun: job.lastRunAt,
    lastRunAt: job.lastRunAt,
    lastResult: callback?.lastDelivery ?? null,
    lastOutput: job.lastOutput ?? null,
    callback: callback ? { url: callback.url, status: callback.status } : null,
    metadata: job.metadata ?? null,
    createdAt: job.createdAt,
  }
}

/** Creates a job and its first run, in one transaction; the callback secret is in this answer only. */
export async function create(deps: Deps, input: CreateBody & { caller: Address }) {
  await preflight(deps, input)
  const payload = isBatch(input.action) ? await storedPayload(deps.batch, input.payload) : input.payload
  const now = (deps.now ?? (() => new Date()))()
  const next = parseSchedule(input.schedule, now).nextRun(now)!
  const id = `cron_${crypto.randomUUID().replaceAll('-', '')}`
  const callback: Webhooks.Endpoint | undefined =
    input.callback_url === undefined
      ? undefined
      : { url: input.callback_url, secret: Webhooks.newSecret(), status: 'active', failures: 0 }
  const job: Job = {
    action: input.action,
    schedule: input.schedule.trim(),
    payload,
    metadata: input.metadata,
    callback: callback !== undefined,
    maxRuns: input.maxRuns ?? includedRuns,
    runs: 0,
    state: 'scheduled',
    nextRun: next.toISOString(),
    lastRunAt: null,
    createdAt: now.toISOString(),
  }
  const owner = getAddress(input.caller)
  const first: Run = { jobId: id, run: 1, scheduledFor: job.nextRun!, owner }
  // The callback first: a run never finds its job without it.
  if (callback) await deps.store.insert({ collection: callbacks, id, owners: [owner], value: callback, createdAt: now })
  await deps.store.insert(
    { collection: jobs, id, owners: [owner], value: job, createdAt: now },
    { enqueue: [{ queue: runQueue, id: `${id}#1`, payload: first, dueAt: next }] },
  )
  return {
    ...view(id, job, callback),
    callback: callback ? { url: callback.url, secret: callback.secret, status: callback.status } : null,
  }
}

/** The payer's jobs. */
export async function list(deps: Deps, input: ListQuery & { caller: Address }) {
  const [records, endpoints] = await Promise.all([
    deps.store.list<Stored>(jobs, { owner: input.caller, limit: 100 }),
    deps.store.list<Webhooks.Endpoint>(callbacks, { owner: input.caller, limit: 100 }),
  ])
  const callbackOf = new Map(endpoints.map(({ id, value }) => [id, value]))
  const selected = records
    .filter(
      ({ value }) =>
        (!input.status || value.state === (input.status === 'active' ? 'scheduled' : input.status)) &&
        (!input.action || value.action === input.action),
    )
    .map(({ id, value }) => view(id, value, callbackOf.get(id) ?? legacyCallback(value)))
  return { jobs: selected, total: selected.length }
}

/**
 * Cancels the payer's job: no further run fires, and its callback receives nothing more (not even the deliveries of
 * runs fired before, still being retried); cancelling a cancelled job is a 409.
 */
export async function cancel(deps: Deps, input: CancelBody & { caller: Address }) {
  const record = await deps.store.get<Stored>(jobs, input.jobId)
  if (!record?.owners.includes(getAddress(input.caller))) throw new NotFoundError(`No cron job ${input.jobId}.`)
  const now = (deps.now ?? (() => new Date()))()
  const updated = await deps.store.update<Stored>(jobs, input.jobId, (current) =>
    Machine.refusing(() => {
      const cancelled = Cron.transition(current.value, { type: 'cancelled' }, now)
      // A legacy record is its callback's endpoint too: cancelled with the job, unless it was already.
      const legacy = legacyCallback(cancelled)
      return legacy && legacy.status !== 'cancelled'
        ? Webhooks.endpointTransition(legacy, { type: 'cancelled' })
        : cancelled
    }),
  )
  if (!updated.ok) throw new ConflictError(`Cron job ${input.jobId} is already cancelled.`)
  if (record.value.callback)
    await deps.store.update<Webhooks.Endpoint>(callbacks, input.jobId, (current) =>
      Machine.refusing(() => Webhooks.endpointTransition(current.value, { type: 'cancelled' })),
    )
  return { jobId: input.jobId, status: updated.record.value.state, runCount: updated.record.value.runs }
}

/**
 * Worker of due runs: counts the run, stores the next one and enqueues the signed `cron.triggered` delivery, all in
 * one transaction guarded by the run number, so a run claimed twice (a lease that ran out) fires once.
 */
export async function fire(deps: Deps, item: Claim<Run>): Promise<Outcome> {
  const { jobId, run, scheduledFor, owner } = item.payload
  const record = await deps.store.get<Stored>(jobs, jobId)
  if (!record) return { failed: 'job_missing' }
  const job = record.value
  if (job.state !== 'scheduled' || job.runs >= run) return { done: true, result: { skipped: job.state } }
  let transaction: Awaited<ReturnType<typeof buildTransaction>> | undefined
  let error: string | undefined
  if (job.action !== 'webhook.trigger')
    try {
      transaction = await buildTransaction(deps.batch, job.payload)
    } catch (cause) {
      error = (cause as Error).message
    }
  const last = run >= job.maxRuns
  const next = last ? undefined : parseSchedule(job.schedule, new Date(scheduledFor)).nextRun(new Date(scheduledFor))
  const now = (deps.now ?? (() => new Date()))()
  const event = {
    id: `${jobId}#${run}`,
    type: 'cron.triggered' as const,
    timestamp: now.toISOString(),
    data: {
      jobId,
      action: job.action,
      run,
      maxRuns: job.maxRuns,
      scheduledFor,
      payload: job.payload,
      ...(transaction ? { transaction } : {}),
      ...(error ? { error } : {}),
    },
  }
  const endpoint = endpointOf(jobId, job)
  const enqueue = [
    ...(endpoint
      ? [Webhooks.deliveryItem({ endpoint, owner, event })]
      : deps.events
        ? [deps.events.outbox({ ...event, timestamp: now, owner })]
        : []),
    ...(next
      ? [
          {
            queue: runQueue,
            id: `${jobId}#${run + 1}`,
            payload: { jobId, run: run + 1, scheduledFor: next.toISOString(), owner },
            dueAt: next,
          },
        ]
      : []),
  ]
  const lastOutput = { run, ...(transaction ? { transaction } : {}), ...(error ? { error } : {}) }
  // A run fired already (a claim whose lease ran out) is refused here, and enqueues nothing again.
  await deps.store.update<Stored>(
    jobs,
    jobId,
    (current) =>
      Machine.refusing(() => ({
        ...Cron.transition(current.value, { type: 'fired', run, next: next ?? undefined }, now),
        lastOutput,
      })),
    { enqueue },
  )
  return { done: true, result: { run } }
}
