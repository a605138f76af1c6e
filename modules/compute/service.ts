import { base64 } from '@scure/base'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import * as Compute from '../../core/Compute.js'
import { BadRequestError, NotFoundError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import type { Deferred } from '../../core/Module.js'
import * as Price from '../../core/Price.js'
import type { Queue } from '../../core/Queue.js'
import type { Store } from '../../core/Store.js'
import * as Upstream from '../../core/Upstream.js'
import type {
  BatchBody,
  EmbeddingsBody,
  EstimateBody,
  MediaBody,
  ModelsQuery,
  SpeechBody,
  TextBody,
  TranscriptionBody,
} from './schema.js'

/** What the compute family runs on. */
export type Deps = {
  /** The operator's model catalog. */
  models: Compute.Models
  /** Job records. */
  store: Store
  /** The queue the jobs are followed on. */
  queue: Queue
  /** Settles or releases the payments of asynchronous jobs. */
  deferred: Deferred
  /** The events outbox. */
  events?: Events | undefined
  /** The OpenAI-compatible upstream, when configured. */
  direct?: Compute.Direct | undefined
  /** Replicate, when configured. */
  predictions?: Compute.Predictions | undefined
  /** How long an asynchronous job may run before it is canceled and its payment released, in seconds. */
  timeoutSeconds: number
}

/** The queue asynchronous compute jobs are followed on. */
export const queueName = 'compute-jobs'

/** The kind each job endpoint sells, by its last path segment. */
export const kindOf = {
  'text-inference': 'text',
  embeddings: 'embeddings',
  'text-to-speech': 'tts',
  'speech-to-text': 'stt',
  'image-generation': 'image',
  'video-generation': 'video',
} as const satisfies Record<string, Compute.Kind>

/** A job endpoint's name. */
export type Endpoint = keyof typeof kindOf

/** The body of each kind's endpoint. */
type Bodies = {
  text: TextBody
  embeddings: EmbeddingsBody
  tts: SpeechBody
  stt: TranscriptionBody
  image: MediaBody
  video: MediaBody
}

/** Why a model's upstream cannot take calls, if so. */
function unavailable(deps: Deps, model: Compute.Model): string | undefined {
  if (model.upstream === 'replicate')
    return deps.predictions
      ? reasonOf(deps.predictions.available())
      : `${model.id} runs on Replicate, which is not configured (REPLICATE_API_TOKEN).`
  return deps.direct
    ? reasonOf(deps.direct.available())
    : `${model.id} runs on an OpenAI-compatible upstream, which is not configured (COMPUTE_UPSTREAM_URL).`
}

function reasonOf(availability: Upstream.Availability): string | undefined {
  return availability.ok ? undefined : availability.reason
}

/**
 * Why an endpoint cannot take calls now (discovery shows it, and calls get 503 before payment): no model of its kind
 * is configured, or none of them has its upstream.
 */
export function readiness(deps: Deps, key: string): string | undefined {
  const name = key.slice(key.lastIndexOf('/') + 1) as Endpoint | 'batch'
  if (!(name in kindOf) && name !== 'batch') return undefined
  const kind = name === 'batch' ? undefined : kindOf[name as Endpoint]
  const models = [...deps.models.values()].filter((model) => kind === undefined || model.kind === kind)
  if (models.length === 0) return `no ${kind ?? 'compute'} model is configured (COMPUTE_MODELS).`
  const reasons = models.map((model) => unavailable(deps, model))
  return reasons.every((reason) => reason !== undefined) ? reasons[0] : undefined
}

/**
 * Before validation and payment: a named model must be of the endpoint's kind (400), its upstream configured and
 * healthy (503), and a well-formed body within the model's limits (400). Malformed bodies are left to the schema.
 */
export function preflight(deps: Deps, kind: Compute.Kind, schema: TSchema, body: unknown): void {
  const unready = readiness(deps, Compute.endpoints[kind])
  if (unready) throw new UpstreamUnavailableError(`${unready} Nothing is charged for it.`)
  const model = (body as { model?: unknown } | undefined)?.model
  if (typeof model !== 'string') return
  const found = Compute.modelFor({ models: deps.models, model, kind })
  const reason = unavailable(deps, found)
  if (reason) throw new UpstreamUnavailableError(`${reason} Nothing is charged for it.`)
  // A body the schema admits is read and checked against the model's limits here, before the 402.
  if (Value.Check(schema, body)) jobOf(deps, kind, body as never)
}

/** A request read into a checked job; throws {@link ValidationError} (400, before payment) for what breaks a limit. */
export function jobOf<kind extends Compute.Kind>(
  deps: Pick<Deps, 'models'>,
  kind: kind,
  body: Bodies[kind],
  field = '',
): Compute.Job {
  const model = Compute.modelFor({ models: deps.models, model: body.model, kind, field: `${field}model` })
  const job = ((): Compute.Job => {
    switch (kind) {
      case 'text': {
        const text = body as TextBody
        if ((text.messages === undefined) === (text.prompt === undefined))
          throw new ValidationError({ field: `${field}messages`, message: 'give either messages or prompt.' })
        return {
          kind,
          model,
          messages: text.messages ?? [{ role: 'user', content: text.prompt! }],
          maxTokens: text.max_tokens,
          temperature: text.temperature,
        }
      }
      case 'embeddings': {
        const { input } = body as EmbeddingsBody
        return { kind, model, input: typeof input === 'string' ? [input] : input }
      }
      case 'tts': {
        const speech = body as SpeechBody
        return { kind, model, input: speech.input, voice: speech.voice, format: speech.format }
      }
      case 'stt': {
        const heard = body as TranscriptionBody
        let audio: Uint8Array
        try {
          audio = base64.decode(heard.audio)
        } catch {
          throw new ValidationError({ field: `${field}audio`, message: 'is not base64.' })
        }
        return { kind, model, audio, filename: heard.filename ?? 'audio.mp3', language: heard.language }
      }
      default: {
        const media = body as MediaBody
        return {
          kind: kind as 'image' | 'video',
          model,
          prompt: media.prompt,
          size: media.size ?? [...model.prices.keys()][0]!,
          input: media.input,
        }
      }
    }
  })()
  Compute.check(job, field)
  return job
}

/** The price rule of an endpoint priced by model and size. */
export function rule(deps: Pick<Deps, 'models'>, kind: Compute.Kind): Price.Rule {
  return {
    description: `the price of the model (and size) named, as \`GET /api/v1/compute/models\` lists it`,
    amount: ({ body }) => {
      const { model, size } = body as { model: string; size?: string }
      return Compute.priceOf({ models: deps.models, request: { model, size }, kind })
    },
  }
}

/** The batch's price rule: each job read and checked (400 before payment), their sum less 10%. */
export function batchRule(deps: Pick<Deps, 'models'>): Price.Rule {
  return {
    description: 'the sum of the jobs’ prices less 10% (rounded down to the atomic unit)',
    bounds: Compute.batchBounds(),
    amount: ({ body }) => batchOf(deps, body as BatchBody).price.total,
  }
}

/** A batch read and checked: its jobs, and its price. Replicate models are refused: their jobs end later. */
function batchOf(deps: Pick<Deps, 'models'>, body: BatchBody) {
  const jobs = body.jobs.map((item, index) => {
    const kind = kindOf[item.endpoint]
    const job = jobOf(deps, kind, item.body as never, `jobs.${index}.body.`)
    if (job.model.upstream === 'replicate')
      throw new ValidationError({
        field: `jobs.${index}.body.model`,
        message: `${job.model.id} runs as an asynchronous job; a batch takes models answered at once.`,
      })
    return job
  })
  const price = Compute.batchPriceOf({
    models: deps.models,
    jobs: jobs.map((job, index) => ({
      model: job.model.id,
      kind: job.kind,
      size: 'size' in job ? job.size : (body.jobs[index]!.body.size as string | undefined),
    })),
  })
  return { jobs, price }
}

/** Runs a job answered at once; an upstream failure throws (the call is released, nothing charged). */
async function runNow(deps: Deps, job: Compute.Job): Promise<Record<string, unknown>> {
  const outcome = await Compute.run({ direct: deps.direct, predictions: deps.predictions, job })
  if (!outcome.ok) throw Upstream.toError(outcome)
  if (outcome.ran.type !== 'done') throw new Error('A model answered at once started a job.')
  return outcome.ran.output
}

/** What a job endpoint answers: the output at once (200), or the job started (202). */
export type Answer = { status: 200 | 202; body: Record<string, unknown> }

/**
 * Runs one job: an OpenAI-compatible model answers at once; a Replicate model starts a job whose payment stays
 * claimed, unsettled, until it ends (202 with its id).
 */
export async function submit<kind extends Compute.Kind>(
  deps: Deps,
  input: { kind: kind; body: Bodies[kind]; request: Request },
): Promise<Answer> {
  const job = jobOf(deps, input.kind, input.body)
  if (job.model.upstream !== 'replicate')
    return { status: 200, body: { model: job.model.id, kind: job.kind, ...(await runNow(deps, job)) } }
  return { status: 202, body: await start(deps, job, input.request) }
}

/** A new job id: `job_` and 32 hex digits. */
function newId(): string {
  return `job_${crypto.randomUUID().replaceAll('-', '')}`
}

/** Starts a Replicate job and keeps its record; its payment is handed to it. */
async function start(deps: Deps, job: Compute.Job, request: Request): Promise<Record<string, unknown>> {
  const predictions = deps.predictions!
  const id = newId()
  const held = deps.deferred.defer(request, id)
  if (!held)
    throw new BadRequestError(
      'An asynchronous job is paid with an x402 or MPP authorization, settled when the job succeeds; a channel voucher cannot wait.',
    )
  const outcome = await Compute.run({
    predictions,
    job,
    webhook: predictions.webhooks?.url(`/callbacks/compute/${id}`),
  })
  if (!outcome.ok) throw Upstream.toError(outcome)
  if (outcome.ran.type !== 'started') throw new Error('A Replicate model answered at once.')
  const { prediction } = outcome.ran
  const now = new Date()
  const record: Compute.JobRecord = {
    id,
    family: 'compute',
    kind: job.kind,
    model: job.model.id,
    prediction: prediction.id,
    state: 'queued',
    deadline: new Date(now.getTime() + deps.timeoutSeconds * 1000).toISOString(),
    payment: { payer: held.payer, nonce: held.nonce, amount: held.amount.toString(), state: 'held' },
  }
  await deps.store.insert(
    { collection: Compute.jobs, id, owners: [held.payer], value: record, createdAt: now },
    { enqueue: [{ queue: queueName, id, payload: { id }, dueAt: new Date(now.getTime() + Compute.pollMs) }] },
  )
  return { ...Compute.toView(record), statusUrl: `/api/v1/compute/status/${id}` }
}

/** Runs a batch of models answered at once; any failure fails the whole batch (nothing charged). */
export async function batch(deps: Deps, body: BatchBody) {
  const { jobs, price } = batchOf(deps, body)
  const results = []
  for (const [index, job] of jobs.entries())
    results.push({ index, model: job.model.id, kind: job.kind, ...(await runNow(deps, job)) })
  return {
    results,
    count: results.length,
    price: {
      sum: Price.fromAtomic(price.sum),
      discount: Price.fromAtomic(price.discount),
      total: Price.fromAtomic(price.total),
    },
  }
}

/** The exact price the gateway would ask: of one model and size, or of a batch of jobs. */
export function estimate(deps: Pick<Deps, 'models'>, body: EstimateBody) {
  if ((body.model === undefined) === (body.jobs === undefined))
    throw new ValidationError({ field: 'model', message: 'give either model (and size) or jobs.' })
  if (body.jobs) {
    const price = Compute.batchPriceOf({ models: deps.models, jobs: body.jobs })
    return {
      endpoint: 'POST /api/v1/compute/batch',
      prices: price.prices.map(Price.fromAtomic),
      sum: Price.fromAtomic(price.sum),
      discount: Price.fromAtomic(price.discount),
      price: Price.fromAtomic(price.total),
      amount: price.total.toString(),
    }
  }
  const model = Compute.modelFor({ models: deps.models, model: body.model! })
  const size = body.size ?? [...model.prices.keys()][0]!
  const amount = Compute.priceOf({ models: deps.models, request: { model: model.id, size } })
  return {
    endpoint: Compute.endpoints[model.kind],
    model: model.id,
    kind: model.kind,
    size,
    price: Price.fromAtomic(amount),
    amount: amount.toString(),
  }
}

/** The catalog, optionally of one kind. */
export function models(deps: Pick<Deps, 'models'>, query: ModelsQuery) {
  const listed = Compute.list(deps.models, query.kind as Compute.Kind | undefined)
  return { models: listed, count: listed.length, batchDiscountBps: Number(Compute.batchDiscountBps) }
}

/** The caller's own job, brought up to date; someone else's, or none, is 404. */
export async function status(deps: Deps, input: { jobId: string; caller: `0x${string}` }) {
  const found = await deps.store.get<Compute.JobRecord>(Compute.jobs, input.jobId)
  if (!found || found.value.payment.payer !== input.caller || found.value.family !== 'compute')
    throw new NotFoundError(`No job ${input.jobId} of yours.`)
  const followed = deps.predictions
    ? await Compute.follow({ ...deps, predictions: deps.predictions, id: input.jobId })
    : undefined
  return Compute.toView(followed?.record ?? found.value)
}

/** A Replicate webhook for a job (see `Compute.receive`). */
export function callback(deps: Deps, input: { jobId: string; body: string; headers: Headers }) {
  const { store, deferred, predictions, events } = deps
  return Compute.receive({ store, deferred, predictions, events, family: 'compute', ...input })
}
