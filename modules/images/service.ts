import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Address } from 'viem'
import type * as Chat from '../../core/Chat.js'
import * as Compute from '../../core/Compute.js'
import { ConfigError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import * as Image from '../../core/Image.js'
import type * as Module from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import * as Price from '../../core/Price.js'
import type { Store } from '../../core/Store.js'
import * as Upstream from '../../core/Upstream.js'
import type { EditBody, GenerateBody } from './schema.js'

/** What the images family runs on. */
export type Deps = {
  /** The OpenAI-compatible images API, when configured. */
  images?: Image.Images | undefined
  /** Replicate, when configured. */
  predictions?: Compute.Predictions | undefined
  /** Job records. */
  store: Store
  /** Settles or releases the payments of asynchronous generations. */
  deferred: Module.Deferred
  /** The events outbox. */
  events?: Events | undefined
  /** The guard in front of a caller's `image_url` and `mask_url`. */
  outbound: Outbound.Guard
  /** How long a generation on Replicate may run before it is canceled and its payment released, in seconds. */
  timeoutSeconds: number
  /** What a call costs, by what it asks for. */
  prices: Prices
}

/** The queue asynchronous generations are followed on. */
export const queueName = 'image-jobs'

/** The catalog keys of the family. */
export const keys = {
  generate: 'POST /api/v1/image/generate',
  edit: 'POST /api/v1/image/edit',
} as const

/** What each upstream is, as a sentence names it, with the variable that configures it. */
const needs: Record<Image.Upstream, string> = {
  openai: 'an OpenAI-compatible images API (IMAGES_UPSTREAM_KEY) for DALL-E and GPT Image',
  replicate: 'Replicate (REPLICATE_API_TOKEN) for FLUX and SDXL',
}

/** Why `upstream` cannot take calls now, if so. */
function unavailable(deps: Pick<Deps, 'images' | 'predictions'>, upstream: Image.Upstream): string | undefined {
  const port = upstream === 'openai' ? deps.images : deps.predictions
  if (!port) return `${needs[upstream]} is not configured.`
  const availability = port.available()
  return availability.ok ? undefined : availability.reason
}

/**
 * Why an endpoint cannot take calls now (discovery shows it; calls get 503 before payment): generate, when neither
 * upstream can; edit, when the images API cannot. `status` reads the store and always can.
 */
export function readiness(deps: Pick<Deps, 'images' | 'predictions'>, key: string): string | undefined {
  if (key !== keys.generate && key !== keys.edit) return undefined
  const upstreams: Image.Upstream[] = key === keys.generate ? ['openai', 'replicate'] : ['openai']
  const reasons = upstreams.map((upstream) => unavailable(deps, upstream))
  return reasons.every((reason) => reason !== undefined) ? reasons.join(' ') : undefined
}

/** The model `name` names, for generating or for editing; a 400 naming `model` when it is not offered for that. */
function modelOf(name: string, edit: boolean): Image.Model & { id: string } {
  const offered = Object.entries(Image.models).filter(([, model]) => !edit || model.edits)
  const found = offered.find(([id]) => id === name)
  if (!found)
    throw new ValidationError({
      field: 'model',
      message: `"${name}" is not offered${edit ? ' for editing' : ''}; one of ${offered.map(([id]) => id).join(', ')}`,
    })
  return { ...found[1], id: found[0] }
}

/** A request read and checked against its model: what the upstream is sent. */
type Read = {
  /** The model, with its id. */
  model: Image.Model & { id: string }
  /** What to draw. */
  prompt: string
  /** `WxH`, one the model draws. */
  size: string
  /** How many images. */
  n: number
  /** The quality sent (an edit's only when asked for), if the model takes one. */
  quality?: string | undefined
  /** The style sent, if the model takes one. */
  style?: string | undefined
}

/** One of `allowed`, the first by default; a 400 naming `field` otherwise (`none`: the model takes no such field). */
function oneOf(model: { id: string }, field: string, value: string | undefined, allowed: readonly string[]) {
  if (value === undefined) return allowed[0]
  if (allowed.includes(value)) return value
  throw new ValidationError({
    field,
    message:
      allowed.length === 0 ? `${model.id} takes no ${field}` : `${model.id} takes ${field} ${allowed.join(', ')}`,
  })
}

/**
 * A generation or edit request read into what the upstream is sent: the model (the default when absent), and the
 * prompt, size, count, quality and style checked against it (400s naming the field, before payment).
 */
function read(body: GenerateBody | EditBody, edit: boolean): Read {
  const model = modelOf(body.model ?? (edit ? Image.defaultEditModel : Image.defaultModel), edit)
  if (body.prompt.length > model.maxPromptChars)
    throw new ValidationError({
      field: 'prompt',
      message: `${model.id} takes at most ${model.maxPromptChars} characters`,
    })
  const n = body.n ?? 1
  if (n > model.maxImages)
    throw new ValidationError({ field: 'n', message: `${model.id} draws at most ${model.maxImages} per call` })
  return {
    model,
    prompt: body.prompt,
    size: oneOf(model, 'size', body.size, model.sizes)!,
    n,
    quality: oneOf(model, 'quality', body.quality, model.qualities),
    style: edit ? undefined : oneOf(model, 'style', (body as GenerateBody).style, model.styles),
  }
}

/** The original gateway's flat price of a call, in atomic USDC: no call costs less, and FLUX and SDXL cost this. */
const originalPrices = { [keys.generate]: 60_000n, [keys.edit]: 50_000n } as const

/**
 * OpenAI's published price of one image, in atomic USDC, by model, quality and size, before the operator's margin:
 * DALL-E 3 and DALL-E 2 per image; GPT Image 1 per image by quality (its image output tokens); GPT Image 2 at its
 * 1024x1024 price for every size (OpenAI's calculator bills its wide and tall images less). Quality `auto` is priced as
 * `high` and GPT Image 1's size `auto` as its dearest, since the model picks and the upstream bills what it drew; GPT
 * Image 2 at size `auto` may draw up to 3840 px and has no price.
 */
const published: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, bigint>>>>>> = {
  'dall-e-3': {
    standard: { '1024x1024': 40_000n, '1792x1024': 80_000n, '1024x1792': 80_000n },
    hd: { '1024x1024': 80_000n, '1792x1024': 120_000n, '1024x1792': 120_000n },
  },
  'dall-e-2': { standard: { '1024x1024': 20_000n, '512x512': 18_000n, '256x256': 16_000n } },
  'gpt-image-1': {
    auto: { '1024x1024': 167_000n, '1536x1024': 250_000n, '1024x1536': 250_000n, auto: 250_000n },
    low: { '1024x1024': 11_000n, '1536x1024': 16_000n, '1024x1536': 16_000n, auto: 16_000n },
    medium: { '1024x1024': 42_000n, '1536x1024': 63_000n, '1024x1536': 63_000n, auto: 63_000n },
    high: { '1024x1024': 167_000n, '1536x1024': 250_000n, '1024x1536': 250_000n, auto: 250_000n },
  },
  'gpt-image-2': {
    auto: { '1024x1024': 211_000n, '1536x1024': 211_000n, '1024x1536': 211_000n },
    low: { '1024x1024': 6_000n, '1536x1024': 6_000n, '1024x1536': 6_000n },
    medium: { '1024x1024': 53_000n, '1536x1024': 53_000n, '1024x1536': 53_000n },
    high: { '1024x1024': 211_000n, '1536x1024': 211_000n, '1024x1536': 211_000n },
  },
}

/**
 * What a GPT Image call bills besides its images, in atomic USDC before the margin: each prompt token (5 per token:
 * $5 per million text input tokens; a token is at least one byte of the prompt, so its bytes are counted), and each
 * image an edit sends, its image and its mask, at an allowance of image input tokens (GPT Image 1 reads them at low
 * fidelity, about 135 tokens at 1024x1024: 1,000 at $10 per million; GPT Image 2 at high fidelity, about 3,000:
 * 6,000 at $8 per million).
 */
const inputs: Readonly<Record<string, { promptToken: bigint; inputImage: bigint }>> = {
  'gpt-image-1': { promptToken: 5n, inputImage: 10_000n },
  'gpt-image-2': { promptToken: 5n, inputImage: 48_000n },
}

/** What calls cost: one image's price by model, quality and size, and the margin over it. */
export type Prices = {
  /** One image's price before the margin, in atomic USDC, by `model:quality:size`. */
  perImage: ReadonlyMap<string, bigint>
  /** The operator's margin over what the upstream bills, in percent. */
  marginPercent: number
}

/** The key of one image's price in {@link Prices}. */
function priceKey(model: string, quality: string, size: string): string {
  return `${model}:${quality}:${size}`
}

/**
 * The price table: OpenAI's published prices with `IMAGES_PRICES` (`model:quality:size=atomic,...`, one image in
 * atomic USDC before the margin) over them; a malformed entry, or one for a model, quality or size the family does
 * not offer on the images API, throws at boot naming the variable.
 */
export function pricesOf(parameters: { text?: string | undefined; marginPercent: number }): Prices {
  const perImage = new Map(
    Object.entries(published).flatMap(([model, qualities]) =>
      Object.entries(qualities).flatMap(([quality, sizes]) =>
        Object.entries(sizes).map(([size, price]) => [priceKey(model, quality, size), price] as const),
      ),
    ),
  )
  for (const entry of (parameters.text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')) {
    const match = /^([^:=\s]+):([^:=\s]+):([^:=\s]+)\s*=\s*(\d{1,18})$/.exec(entry)
    if (!match)
      throw new ConfigError(`IMAGES_PRICES: "${entry}" is not model:quality:size=price (atomic USDC per image).`)
    const [, id = '', quality = '', size = '', price = ''] = match
    const model = Image.models[id]
    if (model?.upstream !== 'openai')
      throw new ConfigError(
        `IMAGES_PRICES: ${id} is not a model of the images API (${Object.keys(published).join(', ')}).`,
      )
    if (!model.qualities.includes(quality))
      throw new ConfigError(`IMAGES_PRICES: ${id} takes quality ${model.qualities.join(', ')}, not ${quality}.`)
    if (!model.sizes.includes(size))
      throw new ConfigError(`IMAGES_PRICES: ${id} takes size ${model.sizes.join(', ')}, not ${size}.`)
    perImage.set(priceKey(id, quality, size), BigInt(price))
  }
  return { perImage, marginPercent: parameters.marginPercent }
}

/** `cost` with the margin over it, rounded up to the atomic unit. */
function withMargin(cost: bigint, marginPercent: number): bigint {
  return (cost * BigInt(100 + marginPercent) + 99n) / 100n
}

/**
 * What a call costs, in atomic USDC, before the original's floor: one image's price (with the margin) times `n`,
 * plus a GPT Image call's prompt and input images; FLUX and SDXL the original's price. An edit is priced at the
 * upstream's defaults for what it does not send (size `auto` where the model has it). A quality and size the table
 * has no price for is a 400 naming the field, before payment.
 */
export function priceOf(prices: Prices, body: GenerateBody | EditBody, edit: boolean): bigint {
  const request = read(body, edit)
  const { model, quality = '' } = request
  if (model.upstream === 'replicate') return originalPrices[keys.generate]
  const size = edit && body.size === undefined && model.sizes.includes('auto') ? 'auto' : request.size
  const perImage = prices.perImage.get(priceKey(model.id, quality, size))
  if (perImage === undefined)
    throw new ValidationError({
      field: model.sizes.some((other) => prices.perImage.has(priceKey(model.id, quality, other))) ? 'size' : 'quality',
      message: `${model.id} at quality ${quality} and size ${size} has no price on this gateway`,
    })
  const input = inputs[model.id]
  const promptBytes = BigInt(new TextEncoder().encode(body.prompt).byteLength)
  const inputImages = edit ? ((body as EditBody).mask_url === undefined ? 1n : 2n) : 0n
  const extra = input ? promptBytes * input.promptToken + inputImages * input.inputImage : 0n
  return withMargin(perImage * BigInt(request.n) + extra, prices.marginPercent)
}

/**
 * The lowest and highest a call may cost: the original's price, and the dearest image of any model the endpoint
 * offers times its most images, with its longest prompt (a UTF-16 unit is at most 3 bytes) and an edit's two images.
 */
function boundsOf(prices: Prices, edit: boolean): Price.Bounds {
  const min = originalPrices[edit ? keys.edit : keys.generate]
  const costs = Object.entries(Image.models)
    .filter(([, model]) => model.upstream === 'openai' && (!edit || model.edits))
    .map(([id, model]) => {
      const dearest = [...prices.perImage]
        .filter(([key]) => key.startsWith(`${id}:`))
        .reduce((most, [, price]) => (price > most ? price : most), 0n)
      const input = inputs[id]
      const extra = input
        ? BigInt(model.maxPromptChars * 3) * input.promptToken + (edit ? 2n : 0n) * input.inputImage
        : 0n
      return withMargin(dearest * BigInt(model.maxImages) + extra, prices.marginPercent)
    })
  return { min, max: costs.reduce((most, cost) => (cost > most ? cost : most), min) }
}

/**
 * The price rule of generate or edit ({@link priceOf}), held at or above the original gateway's flat price so its
 * clients' default request costs what it did.
 */
export function rule(prices: Prices, edit: boolean): Price.Rule {
  const floor = Price.fromAtomic(originalPrices[edit ? keys.edit : keys.generate])
  const margin = `OpenAI's published price plus ${prices.marginPercent}%`
  return {
    description: edit
      ? `per image by model, quality and size (${margin}) times n, plus GPT Image's prompt tokens and input images; at least the original gateway's $${floor}`
      : `per image by model, quality and size (${margin}) times n, plus GPT Image's prompt tokens; FLUX and SDXL $${floor} a call; at least the original gateway's $${floor}`,
    bounds: boundsOf(prices, edit),
    amount: ({ body }) => priceOf(prices, body as GenerateBody | EditBody, edit),
  }
}

/**
 * Before validation and payment: the endpoint and the model named must have their upstream (503); a body the schema
 * admits is read against its model (400s), and an edit's URLs must be ones the outbound guard lets through (400).
 * Malformed bodies are left to the schema.
 */
export async function preflight(deps: Deps, edit: boolean, schema: TSchema, body: unknown): Promise<void> {
  const unready = readiness(deps, edit ? keys.edit : keys.generate)
  if (unready) throw new UpstreamUnavailableError(`${unready} Nothing is charged for it.`)
  if (!Value.Check(schema, body)) return
  const { model } = read(body as GenerateBody, edit)
  const reason = unavailable(deps, model.upstream)
  if (reason) throw new UpstreamUnavailableError(`${model.id} cannot draw now: ${reason} Nothing is charged for it.`)
  // Refuses an option the table has no price for even where no payment is asked.
  priceOf(deps.prices, body as GenerateBody, edit)
  if (!edit) return
  const { image_url, mask_url } = body as EditBody
  for (const [field, url] of [
    ['image_url', image_url],
    ['mask_url', mask_url],
  ] as const) {
    if (url === undefined) continue
    const allowed = await deps.outbound.check(url)
    if (!allowed.ok) throw Outbound.toError(allowed, { field })
  }
}

/** One image drawn at once, as the original gateway lists it: its URL (or base64) and the prompt as revised. */
function drawnOf(item: unknown) {
  const fields = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {}
  return {
    url: typeof fields.url === 'string' ? fields.url : null,
    ...(typeof fields.b64_json === 'string' ? { b64_json: fields.b64_json } : {}),
    revised_prompt: typeof fields.revised_prompt === 'string' ? fields.revised_prompt : null,
  }
}

/** The answer of a drawing made at once, in the original gateway's fields. */
function drawn(model: string, outcome: Upstream.Outcome<{ body: Chat.List }>) {
  if (!outcome.ok) throw Upstream.toError(outcome)
  const { created } = outcome.body
  return {
    source: 'openai' as const,
    model,
    status: 'succeeded' as const,
    created: typeof created === 'number' ? created : null,
    images: outcome.body.data.map(drawnOf),
  }
}

/** FLUX's aspect ratios, by the size each draws at about one megapixel (Black Forest Labs' table). */
const fluxRatios: Readonly<Record<string, string>> = {
  '1024x1024': '1:1',
  '1344x768': '16:9',
  '768x1344': '9:16',
  '1216x832': '3:2',
  '832x1216': '2:3',
  '1152x896': '4:3',
  '896x1152': '3:4',
  '1536x640': '21:9',
  '640x1536': '9:21',
}

/** The input of a Replicate model: FLUX takes an aspect ratio, SDXL a width and height; both `num_outputs`. */
function replicateInput(request: Read): Record<string, unknown> {
  const [width, height] = request.size.split('x').map(Number)
  return request.model.upstreamModel.startsWith('black-forest-labs/flux')
    ? { prompt: request.prompt, num_outputs: request.n, aspect_ratio: fluxRatios[request.size] }
    : { prompt: request.prompt, num_outputs: request.n, width, height }
}

/** A generation on Replicate as its payer reads it: the original gateway's fields over the job's own. */
function jobView(record: Compute.JobRecord) {
  const view = Compute.toView(record)
  const statusUrl = `/api/v1/image/status/${record.id}`
  const output = view.output
  return {
    source: 'replicate' as const,
    ...view,
    images: output === null || output === undefined ? [] : Array.isArray(output) ? output : [output],
    statusUrl,
    poll_url: statusUrl,
    ...(Compute.finalStates.has(record.state) ? {} : { note: 'Poll statusUrl for completion.' }),
  }
}

/**
 * Starts a generation on Replicate: its payment stays held, unsettled, until the prediction ends (settled when it
 * succeeds, released otherwise); a channel voucher cannot wait for it (400).
 */
async function start(deps: Deps, request: Read, paid: Module.Paid) {
  const predictions = deps.predictions!
  const record = await Compute.start({
    ...deps,
    predictions,
    paid,
    queue: queueName,
    callbacks: '/callbacks/images/',
    unheld:
      'A FLUX or SDXL generation is paid with an x402 or MPP authorization, settled when it succeeds; a channel voucher cannot wait.',
    family: 'image',
    kind: 'image',
    model: request.model.id,
    create: (webhook) =>
      predictions.create({ model: request.model.upstreamModel, input: replicateInput(request), webhook }),
  })
  return jobView(record)
}

/** What a generation answers: the images at once (200), or the job started (202). */
export type Answer = { status: 200 | 202; body: Record<string, unknown> }

/**
 * `POST /api/v1/image/generate`: DALL-E and GPT Image draw at once on the images API (an upstream failure throws:
 * nothing charged); FLUX and SDXL start a Replicate job, paid when it succeeds.
 */
export async function generate(deps: Deps, input: { body: GenerateBody; paid: Module.Paid }): Promise<Answer> {
  const request = read(input.body, false)
  if (request.model.upstream === 'replicate') return { status: 202, body: await start(deps, request, input.paid) }
  const outcome = await deps.images!.generate({
    model: request.model.upstreamModel,
    prompt: request.prompt,
    n: request.n,
    size: request.size,
    ...(request.quality === undefined ? {} : { quality: request.quality }),
    ...(request.style === undefined ? {} : { style: request.style }),
  })
  return { status: 200, body: drawn(request.model.id, outcome) }
}

/**
 * An image a caller named, fetched through the outbound guard, at most `edits.maxBytes`, of one of `edits.types`; a
 * refusal, an answer other than 2xx or another type is a 400 naming `field` (the call is not charged).
 */
async function imageAt(
  deps: Deps,
  field: string,
  url: string,
  edits: NonNullable<Image.Model['edits']>,
): Promise<Image.File> {
  const fetched = Outbound.assertAnswered(await deps.outbound.fetch(url, { maxBytes: edits.maxBytes }), {
    field,
    what: 'an image',
  })
  const type = (fetched.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (!edits.types.includes(type))
    throw new ValidationError({
      field,
      message: `is ${type || 'of no type'}; the model edits ${edits.types.join(', ')}`,
    })
  return { bytes: fetched.body, filename: `${field.replace('_url', '')}.${type.split('/')[1]}`, type }
}

/** `POST /api/v1/image/edit`: the image (and mask) fetched through the outbound guard, edited on the images API. */
export async function edit(deps: Deps, body: EditBody) {
  const request = read(body, true)
  const edits = request.model.edits!
  const image = await imageAt(deps, 'image_url', body.image_url, edits)
  const mask =
    body.mask_url === undefined
      ? undefined
      : await imageAt(deps, 'mask_url', body.mask_url, { ...edits, types: ['image/png'] })
  const outcome = await deps.images!.edit({
    model: request.model.upstreamModel,
    prompt: request.prompt,
    image,
    mask,
    n: request.n,
    size: body.size === undefined ? undefined : request.size,
    quality: body.quality === undefined ? undefined : request.quality,
  })
  return drawn(request.model.id, outcome)
}

/** `GET /api/v1/image/status/:id`: the caller's own generation, brought up to date; anyone else's, or none, is 404. */
export async function status(deps: Deps, input: { id: string; caller: Address }) {
  const missing = `No image generation ${input.id} of yours.`
  return jobView(await Compute.ownJob({ ...deps, ...input, family: 'image', missing }))
}

/** A Replicate webhook for a generation (see `Compute.receive`). */
export function callback(deps: Deps, input: { jobId: string; body: string; headers: Headers }) {
  const { store, deferred, predictions, events } = deps
  return Compute.receive({ store, deferred, predictions, events, family: 'image', ...input })
}
