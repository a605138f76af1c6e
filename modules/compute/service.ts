import { base64 } from '@scure/base'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import * as Compute from '../../core/Compute.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import type * as Module from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import * as Price from '../../core/Price.js'
import type { Queue } from '../../core/Queue.js'
import type { Store } from '../../core/Store.js'
import * as Upstream from '../../core/Upstream.js'
import type {
  BatchBody,
  EmbeddingsBody,
  EstimateBody,
  ImageBody,
  ModelsQuery,
  SpeechBody,
  TextBody,
  TranscriptionBody,
  VideoBody,
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
  deferred: Module.Deferred
  /** The events outbox. */
  events?: Events | undefined
  /** The OpenAI-compatible upstream, when configured. */
  direct?: Compute.Direct | undefined
  /** Replicate, when configured. */
  predictions?: Compute.Predictions | undefined
  /** How long an asynchronous job may run before it is canceled and its payment released, in seconds. */
  timeoutSeconds: number
  /** The guard in front of a caller's `audio_url`. */
  outbound: Outbound.Guard
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
  image: ImageBody
  video: VideoBody
}

/** The endpoint name (the original gateway's job type) of each kind. */
export const typeOf = Object.fromEntries(Object.entries(kindOf).map(([name, kind]) => [kind, name])) as Record<
  Compute.Kind,
  Endpoint
>

/** The voice of a speech call that names none: the first of the OpenAI API's voices. */
export const defaultVoice = 'alloy'

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
 * Before validation and payment: the model named (or the kind's default) must be of the endpoint's kind (400), its
 * upstream configured and healthy (503), a well-formed body within the model's limits (400), and an `audio_url` one
 * the outbound guard lets through (400). Malformed bodies are left to the schema.
 */
export async function preflight(deps: Deps, kind: Compute.Kind, schema: TSchema, body: unknown): Promise<void> {
  const unready = readiness(deps, Compute.endpoints[kind])
  if (unready) throw new UpstreamUnavailableError(`${unready} Nothing is charged for it.`)
  const model = (body as { model?: unknown } | undefined)?.model
  if (model !== undefined && typeof model !== 'string') return
  const found = Compute.modelFor({ models: deps.models, model: modelIdOf(deps, kind, model), kind })
  const reason = unavailable(deps, found)
  if (reason) throw new UpstreamUnavailableError(`${reason} Nothing is charged for it.`)
  if (!Value.Check(schema, body)) return
  // A body the schema admits is read and checked against the model's limits here, before the 402.
  jobOf(deps, kind, body as never)
  const url = (body as TranscriptionBody).audio_url
  if (kind === 'stt' && url !== undefined) {
    const allowed = await deps.outbound.check(url)
    if (!allowed.ok) throw Outbound.toError(allowed, { field: 'audio_url' })
  }
}

/** The model id a call names: its own, or the kind's default when absent or `auto` (400 when the kind has none). */
function modelIdOf(deps: Pick<Deps, 'models'>, kind: Compute.Kind, model: string | undefined, field = ''): string {
  if (model !== undefined && model !== 'auto') return model
  const fallback = Compute.defaultOf(deps.models, kind)
  if (!fallback) throw new ValidationError({ field: `${field}model`, message: `no ${kind} model is configured here.` })
  return fallback.id
}

/**
 * A request in this gateway's words: the model (the kind's default when absent or `auto`) and the original gateway's
 * names read into ours (`text` as `input`, `width` and `height` as the size `WxH`, `duration_seconds` as the size
 * `<n>s`). Both names of one thing at once is a 400 naming the original's; the price and the job both read this.
 */
export function read<kind extends Compute.Kind>(
  deps: Pick<Deps, 'models'>,
  kind: kind,
  body: Bodies[kind],
  field = '',
): Bodies[kind] & { model: string; size?: string | undefined } {
  const model = modelIdOf(deps, kind, body.model, field)
  const one = (original: string, ours: string) =>
    new ValidationError({ field: `${field}${original}`, message: `give ${original} or ${ours}, not both.` })
  switch (kind) {
    case 'tts': {
      const speech = body as SpeechBody
      if (speech.text !== undefined && speech.input !== undefined) throw one('text', 'input')
      if (speech.text === undefined && speech.input === undefined)
        throw new ValidationError({ field: `${field}text`, message: 'give the text to speak.' })
      return { ...speech, model, input: speech.input ?? speech.text } as never
    }
    case 'stt': {
      const heard = body as TranscriptionBody
      if (heard.audio_url !== undefined && heard.audio !== undefined) throw one('audio_url', 'audio')
      if (heard.audio_url === undefined && heard.audio === undefined)
        throw new ValidationError({ field: `${field}audio_url`, message: 'give the audio: audio_url or audio.' })
      return { ...heard, model } as never
    }
    case 'image': {
      const image = body as ImageBody
      if (image.width === undefined && image.height === undefined) return { ...image, model } as never
      if (image.size !== undefined) throw one(image.width === undefined ? 'height' : 'width', 'size')
      if (image.width === undefined || image.height === undefined)
        throw new ValidationError({
          field: `${field}${image.width === undefined ? 'width' : 'height'}`,
          message: 'give width and height together.',
        })
      return { ...image, model, size: `${image.width}x${image.height}` } as never
    }
    case 'video': {
      const video = body as VideoBody
      if (video.duration_seconds === undefined) return { ...video, model } as never
      if (video.size !== undefined) throw one('duration_seconds', 'size')
      return { ...video, model, size: `${video.duration_seconds}s` } as never
    }
    default:
      return { ...body, model } as never
  }
}

/**
 * A request read into a checked job; throws {@link ValidationError} (400, before payment) for what breaks a limit. The
 * audio of an `audio_url` is fetched later ({@link withAudio}); until then the job holds no bytes.
 */
export function jobOf<kind extends Compute.Kind>(
  deps: Pick<Deps, 'models'>,
  kind: kind,
  body: Bodies[kind],
  field = '',
): Compute.Job {
  const request = read(deps, kind, body, field)
  const model = Compute.modelFor({ models: deps.models, model: request.model, kind, field: `${field}model` })
  const job = ((): Compute.Job => {
    switch (kind) {
      case 'text': {
        const text = request as TextBody
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
        const { input } = request as EmbeddingsBody
        return { kind, model, input: typeof input === 'string' ? [input] : input }
      }
      case 'tts': {
        const speech = request as SpeechBody
        return { kind, model, input: speech.input!, voice: speech.voice ?? defaultVoice, format: speech.format }
      }
      case 'stt': {
        const heard = request as TranscriptionBody
        let audio: Uint8Array = new Uint8Array()
        if (heard.audio !== undefined)
          try {
            audio = base64.decode(heard.audio)
          } catch {
            throw new ValidationError({ field: `${field}audio`, message: 'is not base64.' })
          }
        const filename = heard.filename ?? (heard.audio_url ? fileNameOf(heard.audio_url) : 'audio.mp3')
        return { kind, model, audio, filename, language: heard.language }
      }
      default: {
        const media = request as ImageBody
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

/** The file name an audio URL ends in, when it is one a transcription takes; `audio.mp3` otherwise. */
function fileNameOf(url: string): string {
  let last = ''
  try {
    last = decodeURIComponent(new URL(url).pathname.split('/').at(-1) ?? '')
  } catch {
    return 'audio.mp3'
  }
  return /^[A-Za-z0-9._-]{1,100}\.[A-Za-z0-9]{1,5}$/.test(last) ? last : 'audio.mp3'
}

/**
 * A transcription job with the audio of its `audio_url`, fetched through the outbound guard, at most the model's
 * `maxAudioBytes`; a refusal or an answer other than 2xx is a 400 naming `audio_url` (the call is not charged).
 */
async function withAudio(deps: Deps, job: Compute.Job, url: string | undefined, field = ''): Promise<Compute.Job> {
  if (job.kind !== 'stt' || url === undefined) return job
  const fetched = Outbound.assertAnswered(
    await deps.outbound.fetch(url, { maxBytes: job.model.limits.maxAudioBytes }),
    { field: `${field}audio_url`, what: 'the audio' },
  )
  const checked = { ...job, audio: fetched.body }
  Compute.check(checked, field)
  return checked
}

/** The price rule of an endpoint priced by model and size, read as the job is ({@link read}). */
export function rule(deps: Pick<Deps, 'models'>, kind: Compute.Kind): Price.Rule {
  return {
    description: `the price of the model (and size) named, as \`GET /api/v1/compute/models\` lists it`,
    amount: ({ body }) => {
      const { model, size } = read(deps, kind, body as never)
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

/** A batch job in this gateway's words: the original's `{ type, ...fields }` as `{ endpoint, body }`. */
function batchItemOf(item: BatchBody['jobs'][number]): { endpoint: Endpoint; body: Record<string, unknown> } {
  if ('endpoint' in item) return item as { endpoint: Endpoint; body: Record<string, unknown> }
  const { type, ...body } = item as { type: Endpoint } & Record<string, unknown>
  return { endpoint: type, body }
}

/** A batch read and checked: its jobs, and its price. Replicate models are refused: their jobs end later. */
function batchOf(deps: Pick<Deps, 'models'>, body: BatchBody) {
  const items = body.jobs.map(batchItemOf)
  const jobs = items.map((item, index) => {
    const kind = kindOf[item.endpoint]
    const prefix = 'type' in body.jobs[index]! ? `jobs.${index}.` : `jobs.${index}.body.`
    const job = jobOf(deps, kind, item.body as never, prefix)
    if (job.model.upstream === 'replicate')
      throw new ValidationError({
        field: `${prefix}model`,
        message: `${job.model.id} runs as an asynchronous job; a batch takes models answered at once.`,
      })
    return { job, audioUrl: (item.body as TranscriptionBody).audio_url, prefix }
  })
  const price = Compute.batchPriceOf({
    models: deps.models,
    jobs: jobs.map(({ job }) => ({ model: job.model.id, kind: job.kind, size: 'size' in job ? job.size : undefined })),
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
 * The original gateway's fields of a job's answer: `provider` (where the model runs: `openai`, an OpenAI-compatible
 * upstream, or `replicate`), `model_label` (the model id: the catalog has no other label), `price_usdc` (its list
 * price, USD with 6 decimals) and what its kind answered there (`choices`, `transcription`, `audio_url` as a data URL,
 * embeddings' `data` as the OpenAI API lists them, `images`, `video_url`).
 */
function originalFields(job: Compute.Job, output: Record<string, unknown> | undefined): Record<string, unknown> {
  const price = Compute.priceOf({
    models: new Map([[job.model.id, job.model]]),
    request: { model: job.model.id, size: 'size' in job ? job.size : undefined },
  })
  const fields: Record<string, unknown> = {
    provider: job.model.upstream,
    model_label: job.model.id,
    price_usdc: Price.fromAtomic(price),
  }
  if (!output) return { ...fields, ...(job.kind === 'video' ? { video_url: null } : { images: [] }) }
  switch (job.kind) {
    case 'text':
      return {
        ...fields,
        choices: [
          { index: 0, message: { role: 'assistant', content: output.text }, finish_reason: output.finishReason },
        ],
      }
    case 'tts':
      return { ...fields, status: 'succeeded', audio_url: `data:${output.contentType};base64,${output.audio}` }
    case 'stt':
      return { ...fields, status: 'succeeded', transcription: output.text }
    case 'embeddings':
      return {
        ...fields,
        data: (output.embeddings as number[][]).map((embedding, index) => ({ object: 'embedding', index, embedding })),
      }
    case 'image':
      return { ...fields, status: 'succeeded' }
    default:
      return fields
  }
}

/**
 * Runs one job: an OpenAI-compatible model answers at once; a Replicate model starts a job whose payment stays
 * claimed, unsettled, until it ends (202 with its id).
 */
export async function submit<kind extends Compute.Kind>(
  deps: Deps,
  input: { kind: kind; body: Bodies[kind]; paid: Module.Paid },
): Promise<Answer> {
  const job = await withAudio(deps, jobOf(deps, input.kind, input.body), (input.body as TranscriptionBody).audio_url)
  if (job.model.upstream !== 'replicate') {
    const output = await runNow(deps, job)
    return { status: 200, body: { model: job.model.id, kind: job.kind, ...output, ...originalFields(job, output) } }
  }
  return { status: 202, body: { ...(await start(deps, job, input.paid)), ...originalFields(job, undefined) } }
}

/** Starts a Replicate job and keeps its record; its payment is handed to it. */
async function start(deps: Deps, job: Compute.Job, paid: Module.Paid): Promise<Record<string, unknown>> {
  const predictions = deps.predictions!
  const record = await Compute.start({
    ...deps,
    predictions,
    paid,
    queue: queueName,
    callbacks: '/callbacks/compute/',
    unheld:
      'An asynchronous job is paid with an x402 or MPP authorization, settled when the job succeeds; a channel voucher cannot wait.',
    family: 'compute',
    kind: job.kind,
    model: job.model.id,
    async create(webhook) {
      const outcome = await Compute.run({ predictions, job, webhook })
      if (!outcome.ok) return outcome
      if (outcome.ran.type !== 'started') throw new Error('A Replicate model answered at once.')
      return { ok: true, prediction: outcome.ran.prediction }
    },
  })
  const { id } = record
  const statusUrl = `/api/v1/compute/status/${id}`
  return { ...Compute.toView(record), statusUrl, poll_url: statusUrl }
}

/**
 * Runs a batch of models answered at once; any failure fails the whole batch (nothing charged). Beside ours, the
 * original gateway's fields: `batch_id`, job counts, `subtotal_usdc`, `discount_percent`, `total_cost_usdc` (USD with
 * 6 decimals) and each result's `job_index`, `type`, `status`, `result`.
 */
export async function batch(deps: Deps, body: BatchBody) {
  const { jobs, price } = batchOf(deps, body)
  const results = []
  for (const [index, { job, audioUrl, prefix }] of jobs.entries()) {
    const ready = await withAudio(deps, job, audioUrl, prefix)
    const output = await runNow(deps, ready)
    results.push({
      index,
      model: ready.model.id,
      kind: ready.kind,
      ...output,
      job_index: index,
      type: typeOf[ready.kind],
      status: 'completed',
      result: { ...output, ...originalFields(ready, output) },
    })
  }
  return {
    results,
    count: results.length,
    price: {
      sum: Price.fromAtomic(price.sum),
      discount: Price.fromAtomic(price.discount),
      total: Price.fromAtomic(price.total),
    },
    batch_id: `batch_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`,
    jobs_submitted: results.length,
    jobs_completed: results.length,
    jobs_processing: 0,
    jobs_failed: 0,
    subtotal_usdc: Price.fromAtomic(price.sum),
    discount_percent: `${Number(Compute.batchDiscountBps) / 100}%`,
    total_cost_usdc: Price.fromAtomic(price.total),
  }
}

/**
 * The exact price the gateway would ask: of one model and size, of a batch of jobs, or (the original gateway's) of
 * `count` jobs of one `type` (its model named or the default), less the batch discount above one.
 */
export function estimate(deps: Pick<Deps, 'models'>, body: EstimateBody) {
  const asked = [body.type, body.model, body.jobs].filter((given) => given !== undefined).length
  if (asked !== 1 && !(body.type !== undefined && body.model !== undefined && body.jobs === undefined))
    throw new ValidationError({ field: 'type', message: 'give type (and model, count), or model (and size), or jobs.' })
  if (body.count !== undefined && body.type === undefined)
    throw new ValidationError({ field: 'count', message: 'counts jobs of a type: give type with it.' })
  if (body.jobs) {
    // A job names its model, or its type (the original's job types, as its MCP server's estimate sends them) for
    // that kind's default model.
    const jobs = body.jobs.map((job, index) => {
      const kind = job.type === undefined ? undefined : kindOf[job.type]
      if (kind === undefined && (job.model === undefined || job.model === 'auto'))
        throw new ValidationError({
          field: `jobs.${index}.model`,
          message: 'give the model, or the type for its default.',
        })
      return {
        kind,
        size: job.size,
        model: kind === undefined ? job.model! : modelIdOf(deps, kind, job.model, `jobs.${index}.`),
      }
    })
    const price = Compute.batchPriceOf({ models: deps.models, jobs })
    return {
      endpoint: 'POST /api/v1/compute/batch',
      prices: price.prices.map(Price.fromAtomic),
      sum: Price.fromAtomic(price.sum),
      discount: Price.fromAtomic(price.discount),
      price: Price.fromAtomic(price.total),
      amount: price.total.toString(),
      // The original gateway's names of the three sums.
      subtotal_usdc: Price.fromAtomic(price.sum),
      batch_discount_usdc: Price.fromAtomic(price.discount),
      total_usdc: Price.fromAtomic(price.total),
    }
  }
  const kind = body.type === undefined ? undefined : kindOf[body.type]
  const model = Compute.modelFor({
    models: deps.models,
    model: kind === undefined ? body.model! : modelIdOf(deps, kind, body.model),
    kind,
  })
  const size = body.size ?? [...model.prices.keys()][0]!
  const unit = Compute.priceOf({ models: deps.models, request: { model: model.id, size } })
  const quantity = BigInt(body.count ?? 1)
  const subtotal = unit * quantity
  const total = quantity > 1n ? Compute.discounted(subtotal) : subtotal
  return {
    endpoint: Compute.endpoints[model.kind],
    model: { id: model.id, provider: model.upstream, label: model.id },
    modelId: model.id,
    kind: model.kind,
    size,
    price: Price.fromAtomic(total),
    amount: total.toString(),
    type: typeOf[model.kind],
    unit_price_usdc: Price.fromAtomic(unit),
    quantity: Number(quantity),
    subtotal_usdc: Price.fromAtomic(subtotal),
    batch_discount_usdc: Price.fromAtomic(subtotal - total),
    total_usdc: Price.fromAtomic(total),
  }
}

/**
 * The catalog, optionally of one kind; and in the original gateway's shape, `categories` by job type (each with its
 * `default_model` and models priced in `price_usdc`), `total_models`, `providers`, `batch_discount`, `max_batch_size`.
 */
export function models(deps: Pick<Deps, 'models'>, query: ModelsQuery) {
  const listed = Compute.list(deps.models, query.kind as Compute.Kind | undefined)
  const categories = Object.fromEntries(
    Compute.kinds
      .filter((kind) => listed.some((model) => model.kind === kind))
      .map((kind) => [
        typeOf[kind],
        {
          name: typeOf[kind],
          endpoint: Compute.endpoints[kind],
          default_model: Compute.defaultOf(deps.models, kind)!.id,
          models: listed
            .filter((model) => model.kind === kind)
            .map((model) => ({
              id: model.id,
              provider: model.upstream,
              label: model.id,
              price_usdc: model.prices[model.defaultSize],
            })),
        },
      ]),
  )
  return {
    models: listed,
    count: listed.length,
    batchDiscountBps: Number(Compute.batchDiscountBps),
    categories,
    total_models: listed.length,
    providers: [...new Set(listed.map((model) => model.upstream))],
    batch_discount: `${Number(Compute.batchDiscountBps) / 100}%`,
    max_batch_size: Compute.maxBatchJobs,
  }
}

/** The caller's own job, brought up to date; someone else's, or none, is 404. */
export async function status(deps: Deps, input: { jobId: string; caller: `0x${string}` }) {
  const { jobId: id, caller } = input
  return Compute.toView(
    await Compute.ownJob({ ...deps, id, caller, family: 'compute', missing: `No job ${id} of yours.` }),
  )
}

/** A Replicate webhook for a job (see `Compute.receive`). */
export function callback(deps: Deps, input: { jobId: string; body: string; headers: Headers }) {
  const { store, deferred, predictions, events } = deps
  return Compute.receive({ store, deferred, predictions, events, family: 'compute', ...input })
}
