import type * as Chat from './Chat.js'
import type { Availability, Outcome } from './Upstream.js'

/**
 * An OpenAI-compatible images API as a port: generation (`POST /images/generations`, JSON) and editing
 * (`POST /images/edits`, a multipart upload of the image), each answered as the API's list (`data[]` of `url` or
 * `b64_json`, with `revised_prompt` where the model rewrote the prompt).
 */

/** An image file sent to the API. */
export type File = {
  /** Its bytes. */
  bytes: Uint8Array
  /** Its file name, whose extension says its format, e.g. `image.png`. */
  filename: string
  /** Its media type, e.g. `image/png`. */
  type: string
}

/** An image edit request in the API's terms. */
export type EditRequest = {
  /** The model, e.g. `dall-e-2`. */
  model: string
  /** What to change. */
  prompt: string
  /** The image edited. */
  image: File
  /** Where to edit: the transparent areas of this PNG; absent, the model decides. */
  mask?: File | undefined
  /** How many images. */
  n: number
  /** Size of each, `WxH`; absent, the model's default. */
  size?: string | undefined
  /** Quality of each (`standard` for DALL-E 2; `auto`, `low`, `medium`, `high` for GPT Image); absent, the model's default. */
  quality?: string | undefined
}

/** The images port. */
export type Images = {
  /** Generates images from a prompt. */
  generate: (request: Chat.ImagesRequest) => Promise<Outcome<{ body: Chat.List }>>
  /** Edits an image from a prompt. */
  edit: (request: EditRequest) => Promise<Outcome<{ body: Chat.List }>>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}

/** Where a model draws: an OpenAI-compatible images API (at once) or Replicate (an asynchronous job). */
export type Upstream = 'openai' | 'replicate'

/** An image model offered by the name callers give, with what its API documents it takes. */
export type Model = {
  /** Where it draws. */
  upstream: Upstream
  /** The upstream's model: the API's model id, or a Replicate `owner/name` (`:version` when pinned). */
  upstreamModel: string
  /** Sizes it draws, `WxH` (FLUX: read as their aspect ratio); the first is the default. */
  sizes: readonly string[]
  /** Most images one call asks for. */
  maxImages: number
  /** Qualities it takes; the first is the default (sent); none, no `quality`. */
  qualities: readonly string[]
  /** Styles it takes; the first is the default (sent); none, no `style`. */
  styles: readonly string[]
  /** Longest prompt, in characters. */
  maxPromptChars: number
  /** What it edits (`POST /api/v1/image/edit`): the largest image in bytes, and its media types; absent, it edits none. */
  edits?: { maxBytes: number; types: readonly string[] } | undefined
}

/** GPT Image's parameters (both of its names the original gateway and OpenAI use). */
const gptImage: Model = {
  upstream: 'openai',
  upstreamModel: '',
  sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'],
  maxImages: 4,
  qualities: ['auto', 'low', 'medium', 'high'],
  styles: [],
  maxPromptChars: 32_000,
  edits: { maxBytes: 25 * 1024 * 1024, types: ['image/png', 'image/jpeg', 'image/webp'] },
}

/**
 * The models of the original gateway (`dall-e-3`, its default, `gpt-image-2`, `dall-e-2`, `flux-schnell`, `sdxl`)
 * and `gpt-image-1`, each with what its API documents it takes. The original sent `n` up to 4 to every model; DALL-E
 * 3 draws one image per call (OpenAI refuses more), so here a larger `n` is a 400 before payment.
 */
export const models: Readonly<Record<string, Model>> = {
  'dall-e-3': {
    upstream: 'openai',
    upstreamModel: 'dall-e-3',
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    maxImages: 1,
    qualities: ['standard', 'hd'],
    styles: ['vivid', 'natural'],
    maxPromptChars: 4_000,
  },
  'dall-e-2': {
    upstream: 'openai',
    upstreamModel: 'dall-e-2',
    sizes: ['1024x1024', '512x512', '256x256'],
    maxImages: 4,
    qualities: ['standard'],
    styles: [],
    maxPromptChars: 1_000,
    edits: { maxBytes: 4 * 1024 * 1024, types: ['image/png'] },
  },
  'gpt-image-1': { ...gptImage, upstreamModel: 'gpt-image-1' },
  'gpt-image-2': { ...gptImage, upstreamModel: 'gpt-image-2' },
  'flux-schnell': {
    upstream: 'replicate',
    upstreamModel: 'black-forest-labs/flux-schnell',
    // FLUX draws by aspect ratio: a size is read as its ratio, one of these.
    sizes: [
      '1024x1024',
      '1344x768',
      '768x1344',
      '1216x832',
      '832x1216',
      '1152x896',
      '896x1152',
      '1536x640',
      '640x1536',
    ],
    maxImages: 4,
    qualities: [],
    styles: [],
    maxPromptChars: 4_000,
  },
  sdxl: {
    upstream: 'replicate',
    upstreamModel: 'stability-ai/sdxl:39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b',
    sizes: ['1024x1024', '1152x896', '896x1152', '1216x832', '832x1216', '1344x768', '768x1344', '768x768', '512x512'],
    maxImages: 4,
    qualities: [],
    styles: [],
    maxPromptChars: 4_000,
  },
}

/** The model of a generation that names none: the original gateway's default. */
export const defaultModel = 'dall-e-3'

/** The model of an edit that names none: the images API's own default for edits. */
export const defaultEditModel = 'dall-e-2'
