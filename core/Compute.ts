import { base64 } from '@scure/base'
import { Type } from '@sinclair/typebox'
import { Webhook } from 'standardwebhooks'
import * as Catalog from './Catalog.js'
import type * as Chat from './Chat.js'
import {
  BadRequestError,
  ConfigError,
  ForbiddenError,
  InvalidTransitionError,
  NotFoundError,
  ValidationError,
} from './Errors.js'
import type { Events } from './Events.js'
import type { Deferred, Paid } from './Module.js'
import * as Price from './Price.js'
import type { Store } from './Store.js'
import { type Availability, type Outcome, toError } from './Upstream.js'
import * as Webhooks from './Webhooks.js'

/**
 * Compute jobs sold per call: the operator's model catalog (which model ids callers may name, of which kind, on which
 * upstream, at which price), the exact price of a request, the batch discount, the life of an asynchronous job, and
 * one runner over the two upstream shapes (an OpenAI-compatible API for the synchronous kinds, Replicate's
 * predictions for the long ones). No model is built in: the catalog is what the operator configures, nothing else.
 */

/** What a model does. */
export const kinds = ['text', 'embeddings', 'tts', 'stt', 'image', 'video'] as const

/** A model's kind. */
export type Kind = (typeof kinds)[number]

/** The catalog entry (`"METHOD path"`) that sells each kind; its stated price bounds every model of the kind. */
export const endpoints: Readonly<Record<Kind, string>> = {
  text: 'POST /api/v1/compute/text-inference',
  embeddings: 'POST /api/v1/compute/embeddings',
  tts: 'POST /api/v1/compute/text-to-speech',
  stt: 'POST /api/v1/compute/speech-to-text',
  image: 'POST /api/v1/compute/image-generation',
  video: 'POST /api/v1/compute/video-generation',
}

/** Most jobs in one batch. */
export const maxBatchJobs = 50

/** The batch discount, in basis points of the sum of the jobs' prices. */
export const batchDiscountBps = 1_000n

/** Where a model runs. */
export type Upstream = 'openai' | 'replicate'

/** What a model accepts per call; the price is per call, so these cap what one call may ask of the upstream. */
export type Limits = {
  /** Ceiling of `max_tokens` of a text call, also sent when the caller gives none. @default 1024 */
  maxTokens: number
  /** Longest input text (prompt, messages, speech text, embedding inputs together), in characters. @default 32_000 */
  maxInputChars: number
  /** Most inputs of one embeddings call. @default 64 */
  maxInputs: number
  /** Largest audio of a speech-to-text call, in bytes (decoded). @default 10 MiB */
  maxAudioBytes: number
}

/** One model of the operator's catalog. */
export type Model = {
  /** The id callers name, e.g. `llama-3.1-8b`. */
  id: string
  /** What it does. */
  kind: Kind
  /** Where it runs. */
  upstream: Upstream
  /**
   * The upstream's name of the model: an OpenAI-compatible model id, or a Replicate `owner/name` (an official model)
   * or `owner/name:<64 hex version>` (a pinned version).
   */
  upstreamModel: string
  /**
   * The price of one call by size (image `WxH`, video resolution or duration, as the upstream takes it), in atomic
   * units; a model with one price has the single size `default`. The first size is the default of a call without one.
   */
  prices: ReadonlyMap<string, bigint>
  /** What one call may ask. */
  limits: Limits
}

/** The operator's model catalog, by id. */
export type Models = ReadonlyMap<string, Model>

/** The size of a model with a single price. */
export const defaultSize = 'default'

/** The default limits of a model. */
export const defaultLimits: Limits = {
  maxTokens: 1024,
  maxInputChars: 32_000,
  maxInputs: 64,
  maxAudioBytes: 10 * 1024 * 1024,
}

/** The bounds of the kind's catalog entry, in atomic units. */
export function boundsOf(kind: Kind): Price.Bounds {
  const [method, path] = endpoints[kind].split(' ') as [string, string]
  const entry = Catalog.find(method, path)
  if (!entry) throw new Error(`The catalog has no entry ${endpoints[kind]}.`)
  return Price.boundsOf(entry.price)
}

/** A Replicate model reference: `owner/name`, optionally pinned to a full 64-hex version. */
const replicateModel = /^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*(?::[0-9a-f]{64})?$/

/**
 * The `COMPUTE_MODELS` variable: read by the compute family (its entries and prices) and by the provider of the
 * `compute` port (the catalog compute-futures jobs run on), one schema in both slices.
 */
export const modelsVariable = Type.Optional(
  Type.String({
    defaultText: 'none: no model is offered and the paid endpoints answer 503',
    description:
      'JSON object of model ids, each `{ kind: text|embeddings|tts|stt|image|video, upstream: openai|replicate, upstreamModel, price | prices: { size: price }, limits? }`; every price within its endpoint’s catalog range',
  }),
)

/**
 * Reads the operator's catalog from JSON (the `COMPUTE_MODELS` variable): an object of model ids, each
 * `{ kind, upstream, upstreamModel, price | prices, limits? }` with `price` a USD decimal and `prices` an object of
 * sizes to USD decimals. Every price must lie within the catalog range of its kind's endpoint (text 0.003-0.10,
 * image 0.02-0.08, ...). Throws a {@link ConfigError} that names the model and the rule it breaks.
 */
export function fromJson(text: string | undefined, variable = 'COMPUTE_MODELS'): Models {
  if (text === undefined || text.trim() === '') return new Map()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new ConfigError(
      `${variable} is not JSON: an object of model ids, each { kind, upstream, upstreamModel, price }.`,
    )
  }
  if (!isObject(parsed)) throw new ConfigError(`${variable} must be a JSON object of model ids.`)
  const models = new Map<string, Model>()
  for (const [id, value] of Object.entries(parsed)) models.set(id, modelOf(id, value, variable))
  return models
}

/** One model of the catalog JSON, checked. */
function modelOf(id: string, value: unknown, variable: string): Model {
  const fail = (message: string) => new ConfigError(`${variable}: model "${id}" ${message}`)
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/.test(id))
    throw fail('has an id that is not 1-100 letters, digits and . _ : / -.')
  if (!isObject(value)) throw fail('must be an object.')
  const { kind, upstream, upstreamModel, price, prices, limits } = value
  if (!kinds.includes(kind as Kind)) throw fail(`has kind ${String(kind)}; one of ${kinds.join(', ')}.`)
  if (upstream !== 'openai' && upstream !== 'replicate') throw fail('has upstream that is not openai or replicate.')
  if (typeof upstreamModel !== 'string' || upstreamModel === '') throw fail('needs upstreamModel, a string.')
  if (upstream === 'replicate' && !replicateModel.test(upstreamModel))
    throw fail('needs upstreamModel as owner/name or owner/name:<64 hex version> on Replicate.')
  if (upstream === 'openai' && kind === 'video') throw fail('is a video model: those run on Replicate only.')
  if (upstream === 'replicate' && kind !== 'image' && kind !== 'video')
    throw fail('runs on Replicate, which serves the image and video kinds here; use an OpenAI-compatible upstream.')
  const stated: [string, unknown][] =
    price !== undefined && prices === undefined
      ? [[defaultSize, price]]
      : price === undefined && isObject(prices)
        ? Object.entries(prices)
        : []
  if (stated.length === 0) throw fail('needs either price (a USD decimal) or prices (an object of sizes).')
  const bounds = boundsOf(kind as Kind)
  const sized = new Map<string, bigint>()
  for (const [size, amount] of stated) {
    if (typeof amount !== 'string' && typeof amount !== 'number')
      throw fail(`has a price for ${size} that is not a decimal.`)
    let atomic: bigint
    try {
      atomic = Price.toAtomic(String(amount))
    } catch {
      throw fail(`has a price for ${size} that is not a USD decimal with at most 6 places.`)
    }
    if (atomic < bounds.min || atomic > bounds.max)
      throw fail(
        `costs $${Price.fromAtomic(atomic)} (${size}), outside $${Price.fromAtomic(bounds.min)}-$${Price.fromAtomic(bounds.max)} of ${endpoints[kind as Kind]}.`,
      )
    sized.set(size, atomic)
  }
  return {
    id,
    kind: kind as Kind,
    upstream,
    upstreamModel,
    prices: sized,
    limits: limitsOf(limits, fail),
  }
}

/** The limits of the catalog JSON, each a positive integer, over the defaults. */
function limitsOf(value: unknown, fail: (message: string) => ConfigError): Limits {
  if (value === undefined) return defaultLimits
  if (!isObject(value)) throw fail('has limits that are not an object.')
  const limits = { ...defaultLimits }
  for (const [name, limit] of Object.entries(value)) {
    if (!(name in defaultLimits))
      throw fail(`has an unknown limit ${name}; known: ${Object.keys(defaultLimits).join(', ')}.`)
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1)
      throw fail(`has limit ${name} that is not a positive integer.`)
    limits[name as keyof Limits] = limit
  }
  return limits
}

/** A model as `models` lists it: prices as USD decimals. */
export type Listed = {
  /** The id callers name. */
  id: string
  /** What it does. */
  kind: Kind
  /** Where it runs (`openai`: answered at once; `replicate`: an asynchronous job). */
  upstream: Upstream
  /** The endpoint that sells it. */
  endpoint: string
  /** Price per call by size, USD with 6 decimals. */
  prices: Record<string, string>
  /** The default size. */
  defaultSize: string
  /** What one call may ask. */
  limits: Limits
}

/** The catalog as callers read it, optionally of one kind, ordered by kind then id. */
export function list(models: Models, kind?: Kind): Listed[] {
  return [...models.values()]
    .filter((model) => kind === undefined || model.kind === kind)
    .sort((a, b) => kinds.indexOf(a.kind) - kinds.indexOf(b.kind) || a.id.localeCompare(b.id))
    .map((model) => ({
      id: model.id,
      kind: model.kind,
      upstream: model.upstream,
      endpoint: endpoints[model.kind],
      prices: Object.fromEntries([...model.prices].map(([size, amount]) => [size, Price.fromAtomic(amount)])),
      defaultSize: [...model.prices.keys()][0]!,
      limits: model.limits,
    }))
}

/** What decides a call's price: the model, its size, and the kind the endpoint sells. */
export type Priced = {
  /** The model id. */
  model: string
  /** The size; the model's first when absent. */
  size?: string | undefined
}

/**
 * The model a request names, of the endpoint's kind when given. Throws {@link ValidationError} (`model`) for an
 * id not in the catalog or of another kind, naming what is allowed.
 */
export function modelFor(parameters: modelFor.Parameters): Model {
  const { models, model: id, kind, field = 'model' } = parameters
  const model = models.get(id)
  if (!model || (kind !== undefined && model.kind !== kind)) {
    const allowed = [...models.values()].filter((candidate) => kind === undefined || candidate.kind === kind)
    throw new ValidationError({
      field,
      message:
        allowed.length === 0
          ? `"${id}" is not offered: no ${kind ?? 'compute'} model is configured here.`
          : `"${id}" is not a ${kind ?? 'compute'} model here; one of ${allowed.map((candidate) => candidate.id).join(', ')}.`,
    })
  }
  return model
}

export declare namespace modelFor {
  type Parameters = {
    /** The catalog. */
    models: Models
    /** The id named. */
    model: string
    /** The kind the endpoint sells. @default any kind (batch, estimate) */
    kind?: Kind | undefined
    /** The field named in the error. @default 'model' */
    field?: string
  }
}

/**
 * The default model of a kind, for a call that names none (or `auto`, as the original gateway's clients do): the first
 * model of that kind in the operator's catalog, in the order COMPUTE_MODELS lists them. `undefined` when there is none.
 */
export function defaultOf(models: Models, kind: Kind): Model | undefined {
  return [...models.values()].find((model) => model.kind === kind)
}

/**
 * The exact price of one call, in atomic units: the model's price for the size. Throws {@link ValidationError} for
 * an unknown model, a model of another kind, or a size the model has no price for.
 */
export function priceOf(parameters: priceOf.Parameters): bigint {
  const { models, request, kind, field = '' } = parameters
  const model = modelFor({ models, model: request.model, kind, field: `${field}model` })
  const size = request.size ?? [...model.prices.keys()][0]!
  const amount = model.prices.get(size)
  if (amount === undefined)
    throw new ValidationError({
      field: `${field}size`,
      message: `"${size}" is not a size of ${model.id}; one of ${[...model.prices.keys()].join(', ')}.`,
    })
  return amount
}

export declare namespace priceOf {
  type Parameters = {
    /** The catalog. */
    models: Models
    /** The model and size named. */
    request: Priced
    /** The kind the endpoint sells. @default any kind */
    kind?: Kind | undefined
    /** Prefix of the field named in errors, e.g. `jobs.3.`. @default '' */
    field?: string
  }
}

/**
 * The price of a batch: the sum of its jobs' prices less {@link batchDiscountBps} (10%). The discount is rounded up
 * to the atomic unit, so the total (rounded down) is never more than 90% of the sum: the caller never pays above the
 * advertised discount. Throws {@link ValidationError} for an empty batch or more than {@link maxBatchJobs} jobs.
 */
export function batchPriceOf(parameters: batchPriceOf.Parameters): batchPriceOf.ReturnType {
  const { models, jobs, field = 'jobs' } = parameters
  if (jobs.length === 0) throw new ValidationError({ field, message: 'a batch needs at least one job.' })
  if (jobs.length > maxBatchJobs)
    throw new ValidationError({
      field,
      message: `a batch takes at most ${maxBatchJobs} jobs; this one has ${jobs.length}.`,
    })
  const prices = jobs.map((job, index) =>
    priceOf({ models, request: job, kind: job.kind, field: `${field}.${index}.` }),
  )
  const sum = prices.reduce((total, price) => total + price, 0n)
  const total = discounted(sum)
  return { prices, sum, discount: sum - total, total }
}

export declare namespace batchPriceOf {
  type Parameters = {
    /** The catalog. */
    models: Models
    /** The jobs, each naming a model (of `kind` when given) and a size. */
    jobs: readonly (Priced & { kind?: Kind | undefined })[]
    /** The field named in errors. @default 'jobs' */
    field?: string
  }
  type ReturnType = {
    /** Each job's own price, in atomic units. */
    prices: bigint[]
    /** Their sum. */
    sum: bigint
    /** What the discount takes off. */
    discount: bigint
    /** What the batch costs: `sum - discount`. */
    total: bigint
  }
}

/** The batch total of `sum`, in atomic units: 90% of it, rounded down to the atomic unit. */
export function discounted(sum: bigint): bigint {
  return (sum * (10_000n - batchDiscountBps)) / 10_000n
}

/**
 * The bounds of a batch's price: one job at the cheapest catalog price of any kind, up to {@link maxBatchJobs} at
 * the dearest, both discounted. The catalog states `varies`; these make it a charged range.
 */
export function batchBounds(): Price.Bounds {
  const all = kinds.map(boundsOf)
  const min = all.reduce((low, bounds) => (bounds.min < low ? bounds.min : low), all[0]!.min)
  const max = all.reduce((high, bounds) => (bounds.max > high ? bounds.max : high), all[0]!.max)
  return { min: discounted(min), max: discounted(max * BigInt(maxBatchJobs)) }
}

/** The life of an asynchronous job. */
export type State = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled'

/** States a job never leaves. */
export const finalStates: ReadonlySet<State> = new Set(['succeeded', 'failed', 'canceled'])

/** What moves a job. */
export type Event =
  | { /** The upstream started it. */ type: 'start' }
  | { /** It finished with its output. */ type: 'succeed'; output: unknown }
  | { /** It failed, or timed out. */ type: 'fail'; error: string }
  | { /** It was canceled. */ type: 'cancel'; error?: string | undefined }

/** A job's state and what it came to. */
export type Progress = {
  /** Its state. */
  state: State
  /** Its output once succeeded. */
  output?: unknown
  /** Why it failed or was canceled. */
  error?: string | undefined
}

/**
 * The next state of a job: queued -> running -> succeeded | failed | canceled, and queued straight to any final
 * state. Pure. Throws {@link InvalidTransitionError} for an event that does not apply (a final state takes none).
 */
export function transition(progress: Progress, event: Event): Progress {
  const invalid = () => new InvalidTransitionError(`A job in state ${progress.state} cannot take event ${event.type}.`)
  if (finalStates.has(progress.state)) throw invalid()
  switch (event.type) {
    case 'start':
      if (progress.state !== 'queued') throw invalid()
      return { state: 'running' }
    case 'succeed':
      return { state: 'succeeded', output: event.output }
    case 'fail':
      return { state: 'failed', error: event.error }
    case 'cancel':
      return { state: 'canceled', error: event.error ?? 'canceled' }
  }
}

/** Replicate's prediction, as its API documents it (fields the gateway reads; the rest pass through unread). */
export type Prediction = {
  /** Replicate's id of the prediction. */
  id: string
  /** Its status. */
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted'
  /** The model's output once succeeded (a URL, a list of URLs, text, ...). */
  output?: unknown
  /** Why it failed. */
  error?: unknown
  /** Timings reported by Replicate. */
  metrics?: unknown
}

/** The event a prediction's status stands for, or `undefined` while it is still where the job is. */
export function eventOf(prediction: Prediction, current: State): Event | undefined {
  switch (prediction.status) {
    case 'starting':
      return undefined
    case 'processing':
      return current === 'queued' ? { type: 'start' } : undefined
    case 'succeeded':
      return { type: 'succeed', output: prediction.output ?? null }
    case 'failed':
      return { type: 'fail', error: typeof prediction.error === 'string' ? prediction.error : 'the prediction failed' }
    case 'canceled':
    case 'aborted':
      return { type: 'cancel', error: `the prediction was ${prediction.status}` }
  }
}

/** The moves from `current` to where the prediction is (`start` then the final one), applied in order. */
export function advance(progress: Progress, prediction: Prediction): Progress {
  let next = progress
  if (next.state === 'queued' && prediction.status !== 'starting' && prediction.status !== 'processing')
    next = transition(next, { type: 'start' })
  const event = finalStates.has(next.state) ? undefined : eventOf(prediction, next.state)
  return event ? transition(next, event) : next
}

/** Most age of a signed webhook, in seconds, either way (the Standard Webhooks tolerance). */
export const webhookToleranceSeconds = 5 * 60

/**
 * Verifies a Replicate webhook (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the `whsec_...` secret, within five minutes) and reads
 * the prediction in it. `undefined` when the signature, the time or the body does not hold.
 */
export function verifyWebhook(parameters: verifyWebhook.Parameters): Prediction | undefined {
  const { secret, body, headers } = parameters
  const read = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? ''
  try {
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': read('webhook-id'),
      'webhook-timestamp': read('webhook-timestamp'),
      'webhook-signature': read('webhook-signature'),
    })
    return isPrediction(verified) ? verified : undefined
  } catch {
    return undefined
  }
}

export declare namespace verifyWebhook {
  type Parameters = {
    /** The webhook signing secret, `whsec_...`. */
    secret: string
    /** The raw body, exactly as received. */
    body: string
    /** The request's headers. */
    headers: Headers | Record<string, string | undefined>
  }
}

/** Whether `value` has a prediction's id and a known status. */
export function isPrediction(value: unknown): value is Prediction {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'].includes(String(value.status))
  )
}

/** A speech synthesis request in the OpenAI API's shape (`/audio/speech`). */
export type SpeechRequest = {
  /** Upstream model id. */
  model: string
  /** The text to speak. */
  input: string
  /** The voice. */
  voice: string
  /** Audio format, e.g. `mp3`, `wav`. */
  response_format?: string | undefined
  /** Speed, 0.25-4. */
  speed?: number | undefined
}

/** A transcription request (`/audio/transcriptions`, multipart). */
export type TranscriptionRequest = {
  /** Upstream model id. */
  model: string
  /** The audio bytes. */
  audio: Uint8Array
  /** File name sent with them (its extension tells the format). */
  filename: string
  /** Language of the audio, ISO-639-1. */
  language?: string | undefined
  /** A hint for the transcription. */
  prompt?: string | undefined
}

/** An OpenAI-compatible upstream of the synchronous kinds: chat, embeddings, images, speech, transcription. */
export type Direct = Chat.InferenceUpstream & {
  /** Synthesizes speech: the audio bytes and their content type. */
  speak: (request: SpeechRequest) => Promise<Outcome<{ audio: Uint8Array; contentType: string }>>
  /** Transcribes audio: the upstream's JSON answer, which has at least `text`. */
  transcribe: (request: TranscriptionRequest) => Promise<Outcome<{ body: { text: string; [field: string]: unknown } }>>
}

/** A prediction to create on Replicate. */
export type CreatePrediction = {
  /** `owner/name` (an official model) or `owner/name:<version>`. */
  model: string
  /** The model's input. */
  input: Record<string, unknown>
  /** Where Replicate posts the prediction when it completes; absent, the job is polled. */
  webhook?: string | undefined
}

/** Replicate's predictions API as a port. */
export type Predictions = {
  /** Creates a prediction (answers at once, `starting`). */
  create: (request: CreatePrediction) => Promise<Outcome<{ prediction: Prediction }>>
  /** Reads a prediction. */
  get: (id: string) => Promise<Outcome<{ prediction: Prediction }>>
  /** Asks Replicate to cancel a prediction. */
  cancel: (id: string) => Promise<Outcome<{ prediction: Prediction }>>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
  /** Signed webhooks, when the operator gave a public URL and Replicate's signing secret; absent, jobs are polled. */
  webhooks?:
    | {
        /** The public URL of a callback path, e.g. `/callbacks/compute/<jobId>`. */
        url: (path: string) => string
        /** The prediction of a webhook whose signature verifies (see {@link verifyWebhook}); `undefined` otherwise. */
        verify: (body: string, headers: Headers) => Prediction | undefined
      }
    | undefined
}

/** Whether `value` is a plain JSON object. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One job, its request read and checked: what the runner sends. */
export type Job =
  | {
      /** Chat completion. */
      kind: 'text'
      /** The model. */
      model: Model
      /** The conversation (a bare prompt is one user message). */
      messages: readonly Chat.Message[]
      /** Ceiling of tokens to generate; the model's limit when absent. */
      maxTokens?: number | undefined
      /** Sampling temperature, 0-2. */
      temperature?: number | undefined
    }
  | {
      /** Embeddings. */
      kind: 'embeddings'
      /** The model. */
      model: Model
      /** The texts to embed. */
      input: readonly string[]
    }
  | {
      /** Text to speech. */
      kind: 'tts'
      /** The model. */
      model: Model
      /** The text to speak. */
      input: string
      /** The voice. */
      voice: string
      /** Audio format, e.g. `mp3`. */
      format?: string | undefined
    }
  | {
      /** Speech to text. */
      kind: 'stt'
      /** The model. */
      model: Model
      /** The audio bytes. */
      audio: Uint8Array
      /** File name of the audio (its extension tells the format). */
      filename: string
      /** Language of the audio, ISO-639-1. */
      language?: string | undefined
    }
  | {
      /** An image or a video. */
      kind: 'image' | 'video'
      /** The model. */
      model: Model
      /** What to draw. */
      prompt: string
      /** The priced size. */
      size: string
      /** Further model inputs, passed to Replicate as they are (never `prompt`). */
      input?: Readonly<Record<string, unknown>> | undefined
    }

/**
 * Checks a job against its model's limits (tokens, input length, inputs, audio size, size priced); throws
 * {@link ValidationError} naming the field (prefixed by `field`) before anything is paid or sent.
 */
export function check(job: Job, field = ''): void {
  const { limits } = job.model
  const tooLong = (name: string, length: number) => {
    if (length > limits.maxInputChars)
      throw new ValidationError({
        field: `${field}${name}`,
        message: `holds ${length} characters; ${job.model.id} takes at most ${limits.maxInputChars} per call.`,
      })
  }
  switch (job.kind) {
    case 'text':
      if (job.maxTokens !== undefined && job.maxTokens > limits.maxTokens)
        throw new ValidationError({
          field: `${field}max_tokens`,
          message: `${job.maxTokens} is above ${limits.maxTokens}, the ceiling of ${job.model.id} for its price.`,
        })
      tooLong('messages', JSON.stringify(job.messages).length)
      return
    case 'embeddings':
      if (job.input.length > limits.maxInputs)
        throw new ValidationError({
          field: `${field}input`,
          message: `holds ${job.input.length} inputs; ${job.model.id} takes at most ${limits.maxInputs} per call.`,
        })
      tooLong(
        'input',
        job.input.reduce((total, text) => total + text.length, 0),
      )
      return
    case 'tts':
      tooLong('input', job.input.length)
      return
    case 'stt':
      if (job.audio.byteLength > limits.maxAudioBytes)
        throw new ValidationError({
          field: `${field}audio`,
          message: `holds ${job.audio.byteLength} bytes; ${job.model.id} takes at most ${limits.maxAudioBytes}.`,
        })
      return
    case 'image':
    case 'video':
      tooLong('prompt', job.prompt.length)
      if (!job.model.prices.has(job.size))
        throw new ValidationError({
          field: `${field}size`,
          message: `"${job.size}" is not a size of ${job.model.id}; one of ${[...job.model.prices.keys()].join(', ')}.`,
        })
      return
  }
}

/** What a job came to at once: its output, or a prediction started on Replicate to follow. */
export type Ran =
  | {
      /** Finished: the output is here. */
      type: 'done'
      /** The output, in the kind's shape (see {@link run}). */
      output: Record<string, unknown>
    }
  | {
      /** Started on Replicate: follow the prediction (webhook or polling). */
      type: 'started'
      /** The prediction as created. */
      prediction: Prediction
    }

/**
 * Runs one checked job on its model's upstream. OpenAI-compatible kinds answer at once: text
 * `{ text, finishReason, usage }`, embeddings `{ embeddings, usage }`, speech `{ audio (base64), contentType }`,
 * transcription `{ text, language?, duration? }`, images `{ images }`. A Replicate model starts a prediction whose
 * input is the caller's `input`, the `prompt`, and the size: `WxH` as `width` and `height`, `<n>s` as `duration`,
 * any other size but `default` as `resolution`. A missing upstream is an `unavailable` failure.
 */
export async function run(parameters: run.Parameters): Promise<Outcome<{ ran: Ran }>> {
  const { direct, predictions, job, webhook } = parameters
  const { model } = job
  const missing = (name: string) =>
    ({ ok: false, reason: 'unavailable', status: undefined, message: `No ${name} upstream is configured.` }) as const
  if (model.upstream === 'replicate') {
    if (!predictions) return missing('Replicate')
    if (job.kind !== 'image' && job.kind !== 'video') return missing('Replicate model of this kind')
    const created = await predictions.create({
      model: model.upstreamModel,
      input: { ...job.input, prompt: job.prompt, ...sizeInput(job.size) },
      webhook,
    })
    return created.ok ? { ok: true, ran: { type: 'started', prediction: created.prediction } } : created
  }
  if (!direct) return missing('OpenAI-compatible')
  const done = (output: Record<string, unknown>) => ({ ok: true as const, ran: { type: 'done' as const, output } })
  switch (job.kind) {
    case 'text': {
      const answered = await direct.complete({
        model: model.upstreamModel,
        messages: job.messages,
        max_tokens: job.maxTokens ?? model.limits.maxTokens,
        ...(job.temperature === undefined ? {} : { temperature: job.temperature }),
      })
      if (!answered.ok) return answered
      if (answered.answer.type !== 'completion') return malformed('a whole completion')
      const { choices, usage } = answered.answer.completion
      const first = fields(choices[0])
      const content = fields(first.message).content
      if (typeof content !== 'string') return malformed('choices[0].message.content')
      return done({ text: content, finishReason: first.finish_reason ?? null, usage: usage ?? null })
    }
    case 'embeddings': {
      const answered = await direct.embed({ model: model.upstreamModel, input: job.input })
      if (!answered.ok) return answered
      const vectors = [...answered.body.data]
        .map(fields)
        .sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0))
        .map((item) => item.embedding)
      if (vectors.length !== job.input.length || !vectors.every(Array.isArray))
        return malformed('one embedding per input')
      return done({ embeddings: vectors, usage: answered.body.usage ?? null })
    }
    case 'tts': {
      const spoken = await direct.speak({
        model: model.upstreamModel,
        input: job.input,
        voice: job.voice,
        ...(job.format === undefined ? {} : { response_format: job.format }),
      })
      if (!spoken.ok) return spoken
      return done({ audio: base64.encode(spoken.audio), contentType: spoken.contentType })
    }
    case 'stt': {
      const heard = await direct.transcribe({
        model: model.upstreamModel,
        audio: job.audio,
        filename: job.filename,
        language: job.language,
      })
      if (!heard.ok) return heard
      const { text, language, duration } = heard.body
      return done({
        text,
        ...(language === undefined ? {} : { language }),
        ...(duration === undefined ? {} : { duration }),
      })
    }
    case 'video':
      return missing('video model on an OpenAI-compatible')
    case 'image': {
      const drawn = await direct.generateImages({
        model: model.upstreamModel,
        prompt: job.prompt,
        n: 1,
        ...(job.size === defaultSize ? {} : { size: job.size }),
      })
      if (!drawn.ok) return drawn
      return done({ images: drawn.body.data })
    }
  }
}

export declare namespace run {
  type Parameters = {
    /** The OpenAI-compatible upstream, when configured. */
    direct?: Direct | undefined
    /** Replicate's predictions, when configured. */
    predictions?: Predictions | undefined
    /** The job, checked. */
    job: Job
    /** Where Replicate posts the completed prediction; absent, the job is polled. */
    webhook?: string | undefined
  }
}

/** The Replicate input fields of a priced size. */
function sizeInput(size: string): Record<string, unknown> {
  if (size === defaultSize) return {}
  const dimensions = /^(\d+)x(\d+)$/.exec(size)
  if (dimensions) return { width: Number(dimensions[1]), height: Number(dimensions[2]) }
  const seconds = /^(\d+)s$/.exec(size)
  if (seconds) return { duration: Number(seconds[1]) }
  return { resolution: size }
}

/** The failure of an answer that lacks what the API documents. */
function malformed(expected: string) {
  return {
    ok: false,
    reason: 'failed',
    status: undefined,
    message: `The upstream answered without ${expected}.`,
  } as const
}

/** The fields of a JSON object; none for anything else. */
function fields(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {}
}

/** The store collection of asynchronous jobs (compute and GPU). */
export const jobs = 'compute_jobs'

/** The store collection of the webhook endpoints callers gave with their jobs (`url`, `secret`, `status`), by job id. */
export const webhooks = 'compute_job_webhooks'

/** Where a job's payment is: held by the job, then settled, released, failed; `pending` while its outcome is unknown. */
export type PaymentState = 'held' | 'pending' | 'settled' | 'released' | 'failed'

/** An asynchronous job as the store keeps it (owned by its payer). */
export type JobRecord = {
  /** Our id, `job_<hex>`. */
  id: string
  /** The family that sold it. */
  family: 'compute' | 'gpu' | 'image'
  /** What it runs: a compute kind, or `gpu` for a GPU model run. */
  kind: Kind | 'gpu'
  /** The model id the caller named. */
  model: string
  /** Replicate's prediction id. */
  prediction: string
  /** The job's state. */
  state: State
  /** The output once succeeded. */
  output?: unknown
  /** Why it failed or was canceled. */
  error?: string | undefined
  /** When it times out (is canceled and its payment released), ISO 8601. */
  deadline: string
  /** When it was started, ISO 8601. */
  createdAt?: string | undefined
  /** When it reached a final state, ISO 8601. */
  completedAt?: string | undefined
  /** Replicate's timings of the prediction once final (e.g. `predict_time` in seconds). */
  metrics?: unknown
  /** Whether the caller's webhook endpoint (in {@link webhooks}, under the job's id) receives the job's end. */
  webhook?: boolean | undefined
  /** Its payment: the ledger key, the amount (atomic units, decimal string), and what became of it. */
  payment: {
    /** The payer. */
    payer: `0x${string}`
    /** The authorization's nonce. */
    nonce: `0x${string}`
    /** Amount in atomic units. */
    amount: string
    /** Where it is. */
    state: PaymentState
    /** The settlement transaction, once settled. */
    transaction?: string | undefined
    /** The receipt header of the payment's protocol, once settled. */
    receipt?: Record<string, string> | undefined
    /** Why it was not settled. */
    reason?: string | undefined
  }
}

/** The job as its owner reads it: the output only once the payment for it settled. */
export function toView(record: JobRecord): Record<string, unknown> {
  const { payment } = record
  return {
    id: record.id,
    status: record.state,
    kind: record.kind,
    model: record.model,
    output: record.state === 'succeeded' && payment.state === 'settled' ? record.output : null,
    error: record.error ?? null,
    deadline: record.deadline,
    prediction_id: record.prediction,
    created_at: record.createdAt ?? null,
    completed_at: record.completedAt ?? null,
    metrics: record.metrics ?? null,
    payment: {
      state: payment.state,
      amount: Price.fromAtomic(BigInt(payment.amount)),
      transaction: payment.transaction ?? null,
      receipt: payment.receipt ?? null,
      reason: payment.reason ?? null,
    },
  }
}

/** The ports that follow a job to its end. */
export type Followers = {
  /** Where the job record is. */
  store: Store
  /** Settles or releases the job's payment. */
  deferred: Deferred
  /** Replicate, to read the prediction when no webhook brought it. */
  predictions: Predictions
  /** The events outbox (`job.completed`, `job.failed`). */
  events?: Events | undefined
}

/** How often a job is polled when no webhook has ended it, in ms. */
export const pollMs = 10_000

/**
 * Starts an asynchronous job whose payment it holds: hands the paid call's payment to a new job id (`defer`; a call
 * that cannot wait, a channel voucher, is a 400 saying `unheld`), creates its prediction (`create`, given the URL of
 * the job's callback when Replicate sends webhooks), and keeps its record, queued and owned by the payer, with its
 * first poll on `queue`. An upstream failure throws: the payment is not held, nothing is charged.
 */
export async function start(parameters: start.Parameters): Promise<JobRecord> {
  const { predictions, paid, queue, callbacks, unheld, timeoutSeconds, create, webhook } = parameters
  const id = `job_${crypto.randomUUID().replaceAll('-', '')}`
  const held = paid.defer(id)
  if (!held) throw new BadRequestError(unheld)
  const created = await create(predictions.webhooks?.url(`${callbacks}${id}`))
  if (!created.ok) throw toError(created)
  const now = new Date()
  const record: JobRecord = {
    id,
    family: parameters.family,
    kind: parameters.kind,
    model: parameters.model,
    prediction: created.prediction.id,
    state: 'queued',
    deadline: new Date(now.getTime() + timeoutSeconds * 1000).toISOString(),
    createdAt: now.toISOString(),
    ...(webhook === undefined ? {} : { webhook }),
    payment: { payer: held.payer, nonce: held.nonce, amount: held.amount.toString(), state: 'held' },
  }
  await paid.journal.insert(
    { collection: jobs, id, owners: [held.payer], value: record, createdAt: now },
    { enqueue: [{ queue, id, payload: { id }, dueAt: new Date(now.getTime() + pollMs) }] },
  )
  return record
}

export declare namespace start {
  type Parameters = Pick<Followers, 'predictions'> &
    Pick<JobRecord, 'family' | 'kind' | 'model' | 'webhook'> & {
      /** The paid call that starts the job: its payment is handed to the job, its record written through its journal. */
      paid: Pick<Paid, 'defer' | 'journal'>
      /** The queue the job is followed on. */
      queue: string
      /** Path of the family's callbacks, ending in `/` (the job's id follows), e.g. `/callbacks/gpu/`. */
      callbacks: string
      /** Why a call whose payment cannot wait is refused (a channel voucher). */
      unheld: string
      /** How long the job may run before it is canceled and its payment released, in seconds. */
      timeoutSeconds: number
      /** Creates the prediction, with the URL Replicate sends its webhook to (none: the job is polled). */
      create: (webhook: string | undefined) => Promise<Outcome<{ prediction: Prediction }>>
    }
}

/**
 * One run of a family's job worker: follows the job ({@link follow}); one that has not ended, or whose Replicate is
 * not configured, is looked at again after {@link pollMs}.
 */
export async function work(
  followers: Omit<Followers, 'predictions'> & { predictions?: Predictions | undefined },
  id: string,
): Promise<{ done: true } | { retryAt: Date; error: string }> {
  const { predictions } = followers
  if (!predictions) return { retryAt: new Date(Date.now() + pollMs), error: 'Replicate is not configured' }
  const { done } = await follow({ ...followers, predictions, id })
  return done ? { done: true } : { retryAt: new Date(Date.now() + pollMs), error: 'still running' }
}

/**
 * Brings a job up to date and to its end: reads the prediction (or takes the one a verified webhook brought), moves
 * the job, cancels it once past its deadline (failed: timed out), then settles its payment if it succeeded or
 * releases it otherwise, and announces the end once (`job.completed` or `job.failed`, id `job:<family>:<jobId>`).
 * `done` once the job is final and its payment decided; otherwise the caller asks again later.
 */
export async function follow(
  parameters: follow.Parameters,
): Promise<{ done: boolean; record?: JobRecord | undefined }> {
  const { store, deferred, predictions, events, id, now = new Date() } = parameters
  const current = await store.get<JobRecord>(jobs, id)
  if (!current) return { done: true }
  let record = current.value
  if (!finalStates.has(record.state)) {
    let progress: Progress = { state: record.state }
    let prediction = parameters.prediction
    if (!prediction) {
      const read = await predictions.get(record.prediction)
      if (read.ok) prediction = read.prediction
    }
    if (prediction && prediction.id === record.prediction) progress = advance(progress, prediction)
    if (!finalStates.has(progress.state) && now.getTime() >= Date.parse(record.deadline)) {
      await predictions.cancel(record.prediction)
      progress = transition(progress, { type: 'fail', error: `timed out at ${record.deadline}` })
    }
    if (progress.state !== record.state) {
      const changed = await store.update<JobRecord>(jobs, id, ({ value }) =>
        finalStates.has(value.state)
          ? { refused: true, reason: 'already final' }
          : {
              ...value,
              state: progress.state,
              output: progress.output,
              error: progress.error,
              ...(finalStates.has(progress.state)
                ? { completedAt: now.toISOString(), metrics: prediction?.metrics ?? null }
                : {}),
            },
      )
      record = changed.ok ? changed.record.value : ((await store.get<JobRecord>(jobs, id))?.value ?? record)
    }
  }
  if (!finalStates.has(record.state)) return { done: false, record }
  if (record.payment.state === 'held' || record.payment.state === 'pending') {
    const held = { payer: record.payment.payer, nonce: record.payment.nonce, amount: BigInt(record.payment.amount) }
    let payment: JobRecord['payment']
    if (record.state === 'succeeded') {
      const settled = await deferred.settle(held)
      payment = settled.ok
        ? { ...record.payment, state: 'settled', transaction: settled.transaction, receipt: settled.receipt }
        : {
            ...record.payment,
            state: settled.reason === 'pending' ? 'pending' : settled.reason,
            reason: settled.message,
          }
    } else {
      const reason = `the job ${record.state}: ${record.error ?? 'no output'}`
      await deferred.release(held, reason)
      payment = { ...record.payment, state: 'released', reason }
    }
    const first = payment.state !== 'pending'
    const ended = {
      id: `job:${record.family}:${record.id}`,
      type: record.state === 'succeeded' ? ('job.completed' as const) : ('job.failed' as const),
      data: {
        jobId: record.id,
        kind: record.family,
        status: record.state,
        ...(record.state === 'succeeded'
          ? payment.state === 'settled'
            ? { result: record.output }
            : {}
          : { error: record.error ?? null }),
        payment: { state: payment.state, transaction: payment.transaction ?? null },
      },
    }
    const owner = record.payment.payer
    const event = [
      ...(first && events ? [events.outbox({ ...ended, owner })] : []),
      // The caller's own webhook of this job hears its end too, signed with the secret its start answered.
      ...(first && record.webhook
        ? [
            Webhooks.deliveryItem({
              endpoint: { collection: webhooks, id: record.id },
              owner,
              event: { ...ended, timestamp: now.toISOString() },
            }),
          ]
        : []),
    ]
    const changed = await store.update<JobRecord>(jobs, id, ({ value }) => ({ ...value, payment }), { enqueue: event })
    if (changed.ok) record = changed.record.value
  }
  return { done: record.payment.state !== 'pending', record }
}

export declare namespace follow {
  type Parameters = Followers & {
    /** The job's id. */
    id: string
    /** The prediction a verified webhook brought; absent, it is read from Replicate. */
    prediction?: Prediction | undefined
    /** Current time. @default new Date() */
    now?: Date
  }
}

/**
 * The job `id` of `caller`, brought up to date when Replicate is configured ({@link follow}); a job of another payer or
 * of another family, or none, is a 404 saying `missing`: nobody learns that someone else's job exists.
 */
export async function ownJob(parameters: ownJob.Parameters): Promise<JobRecord> {
  const { store, predictions, id, caller, family, missing } = parameters
  const found = await store.get<JobRecord>(jobs, id)
  if (!found || found.value.payment.payer !== caller || found.value.family !== family) throw new NotFoundError(missing)
  const followed = predictions ? await follow({ ...parameters, predictions, id }) : undefined
  return followed?.record ?? found.value
}

export declare namespace ownJob {
  type Parameters = Omit<Followers, 'predictions'> & {
    /** Replicate, when configured. */
    predictions?: Predictions | undefined
    /** The job's id. */
    id: string
    /** Who asks: the verified payer. */
    caller: `0x${string}`
    /** The family whose jobs the asking route serves. */
    family: JobRecord['family']
    /** What the 404 says. */
    missing: string
  }
}

/**
 * A Replicate webhook for a job of `family`: verified over its raw body (403 when it does not), matched with the job
 * it names (404 otherwise), then the job follows the prediction it carries.
 */
export async function receive(
  parameters: Omit<Followers, 'predictions'> & {
    /** Replicate, when configured; 404 without its webhooks. */
    predictions: Predictions | undefined
    /** The family whose jobs this callback route serves. */
    family: JobRecord['family']
    /** The job the callback URL names. */
    jobId: string
    /** The raw body, as signed. */
    body: string
    /** The request's headers (the signature's). */
    headers: Headers
  },
): Promise<{ received: true; status: State | null }> {
  const { predictions, family, jobId, body, headers, ...followers } = parameters
  const webhooks = predictions?.webhooks
  if (!predictions || !webhooks) throw new NotFoundError('This gateway asks Replicate for no webhooks.')
  const prediction = webhooks.verify(body, headers)
  if (!prediction) throw new ForbiddenError('The webhook signature does not verify.')
  const found = await followers.store.get<JobRecord>(jobs, jobId)
  if (found?.value.family !== family || found.value.prediction !== prediction.id)
    throw new NotFoundError(`No ${family} job ${jobId} for this prediction.`)
  const followed = await follow({ ...followers, predictions, id: jobId, prediction })
  return { received: true, status: followed.record?.state ?? null }
}

/** A GPU model the operator allows: the id callers name and the Replicate version it runs, pinned. */
export type GpuModel = {
  /** The id callers name. */
  id: string
  /** `owner/name:<64 hex version>` on Replicate. */
  upstreamModel: string
}

/** A model shortcut of the original gateway: the Replicate model it names and what it is for. */
export type GpuShortcut = {
  /** The Replicate `owner/name` it stands for. */
  model: string
  /** What the model does. */
  description: string
  /** `image`, `video`, `llm`, `audio` or `utility`. */
  category: string
}

/**
 * The original gateway's 13 model shortcuts of `POST /api/v1/gpu/run` (its `gpu.ts` MODEL_SHORTCUTS), so its clients'
 * names keep working: a shortcut runs here only where the operator pinned a version of the model it names.
 */
export const gpuShortcuts: Readonly<Record<string, GpuShortcut>> = {
  'flux-pro': {
    model: 'black-forest-labs/flux-1.1-pro',
    description: 'Fastest high-quality image generation',
    category: 'image',
  },
  'flux-dev': {
    model: 'black-forest-labs/flux-dev',
    description: 'FLUX dev model for experimentation',
    category: 'image',
  },
  sdxl: { model: 'stability-ai/sdxl', description: 'Stable Diffusion XL', category: 'image' },
  ideogram: {
    model: 'ideogram-ai/ideogram-v2-turbo',
    description: 'Ideogram v2 turbo, text rendering',
    category: 'image',
  },
  'wan-video': { model: 'wavespeed-ai/wan-2.1-i2v-480p', description: 'Wan 2.1 image-to-video', category: 'video' },
  'minimax-video': { model: 'minimax/video-01', description: 'MiniMax video generation', category: 'video' },
  'llama-70b': { model: 'meta/meta-llama-3-70b-instruct', description: 'Llama 3 70B Instruct', category: 'llm' },
  'llama-8b': { model: 'meta/meta-llama-3-8b-instruct', description: 'Llama 3 8B Instruct', category: 'llm' },
  mixtral: { model: 'mistralai/mixtral-8x7b-instruct-v0.1', description: 'Mixtral 8x7B', category: 'llm' },
  whisper: { model: 'openai/whisper', description: 'Speech-to-text transcription', category: 'audio' },
  musicgen: { model: 'meta/musicgen', description: 'Music generation from text', category: 'audio' },
  esrgan: { model: 'nightmareai/real-esrgan', description: 'Image upscaling 4x', category: 'utility' },
  rembg: { model: 'cjwbw/rembg', description: 'Background removal', category: 'utility' },
}

/**
 * The pinned model a run names: an operator's id, else an original shortcut or a Replicate `owner/name` (any case)
 * whose model the operator pinned. `undefined` when the name reaches no pinned model.
 */
export function gpuModelFor(models: ReadonlyMap<string, GpuModel>, name: string): GpuModel | undefined {
  const own = models.get(name)
  if (own) return own
  const wanted = (gpuShortcuts[name.toLowerCase()]?.model ?? name).toLowerCase()
  return [...models.values()].find((model) => model.upstreamModel.split(':')[0] === wanted)
}

/** A Replicate model pinned to a full version: `owner/name:<64 hex>`. */
const pinnedModel = /^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*:[0-9a-f]{64}$/

/**
 * Reads the GPU models (the `GPU_MODELS` variable): a JSON object of ids, each `owner/name:<version>` with the full
 * 64-hex version, so a run is exactly the code the operator approved. Throws a {@link ConfigError} naming the id.
 */
export function gpuModelsFromJson(text: string | undefined, variable = 'GPU_MODELS'): ReadonlyMap<string, GpuModel> {
  if (text === undefined || text.trim() === '') return new Map()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new ConfigError(`${variable} is not JSON: an object of model ids, each "owner/name:<64 hex version>".`)
  }
  if (!isObject(parsed)) throw new ConfigError(`${variable} must be a JSON object of model ids.`)
  const models = new Map<string, GpuModel>()
  for (const [id, upstreamModel] of Object.entries(parsed)) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id))
      throw new ConfigError(`${variable}: "${id}" is not 1-100 letters, digits and . _ -.`)
    if (typeof upstreamModel !== 'string' || !pinnedModel.test(upstreamModel))
      throw new ConfigError(`${variable}: "${id}" must be "owner/name:<64 hex version>", its version pinned in full.`)
    models.set(id, { id, upstreamModel })
  }
  return models
}
