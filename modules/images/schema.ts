import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { defaultEditModel, defaultModel, models } from '../../core/Image.js'

/** `POST /api/v1/image/generate`. */
export const GenerateBody = Type.Object({
  prompt: Type.String({
    minLength: 1,
    maxLength: 32_000,
    examples: ['a serene mountain lake at sunset'],
    description: 'What to draw (each model has its own limit).',
  }),
  model: Type.Optional(
    Type.String({
      maxLength: 64,
      description: `One of ${Object.keys(models).join(', ')}; FLUX and SDXL run on Replicate as a job paid when it succeeds. @default ${defaultModel}`,
    }),
  ),
  size: Type.Optional(
    Type.String({ maxLength: 16, description: "`WxH`, one the model draws. @default the model's first (1024x1024)" }),
  ),
  quality: Type.Optional(
    Type.String({
      maxLength: 16,
      description:
        'dall-e-3: `standard` or `hd`; gpt-image: `auto`, `low`, `medium`, `high`. @default the model’s first',
    }),
  ),
  n: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 4,
      description: 'How many images, up to the model’s most (dall-e-3: 1). @default 1',
    }),
  ),
  style: Type.Optional(
    Type.String({ maxLength: 16, description: 'dall-e-3 only: `vivid` or `natural`. @default vivid' }),
  ),
})
/** `POST /api/v1/image/generate`. */
export type GenerateBody = Static<typeof GenerateBody>

/** `POST /api/v1/image/edit`. */
export const EditBody = Type.Object({
  image_url: Type.String({
    minLength: 1,
    maxLength: 2048,
    examples: ['https://example.com/cat.png'],
    description:
      'An http(s) URL of the image to edit (PNG for dall-e-2, square, at most 4 MB; PNG, JPEG or WebP for gpt-image, at most 25 MB), fetched through the outbound guard.',
  }),
  prompt: Type.String({
    minLength: 1,
    maxLength: 32_000,
    examples: ['make it watercolor'],
    description: 'What to change.',
  }),
  mask_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      examples: ['https://example.com/mask.png'],
      description:
        'An http(s) URL of a PNG whose transparent areas are the ones to edit. @default none: the model decides',
    }),
  ),
  model: Type.Optional(
    Type.String({
      maxLength: 64,
      description: `dall-e-2, gpt-image-1 or gpt-image-2. @default ${defaultEditModel}`,
    }),
  ),
  size: Type.Optional(Type.String({ maxLength: 16, description: "`WxH`, one the model draws. @default the model's" })),
  quality: Type.Optional(
    Type.String({
      maxLength: 16,
      description: "dall-e-2: `standard`; gpt-image: `auto`, `low`, `medium`, `high`. @default the model's first",
    }),
  ),
  n: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, description: 'How many images. @default 1' })),
})
/** `POST /api/v1/image/edit`. */
export type EditBody = Static<typeof EditBody>

/** `GET /api/v1/image/status/:id`. */
export const StatusParams = Type.Object({ id: Type.String({ pattern: '^job_[0-9a-f]{32}$' }) })

const nullable = <schema extends TSchema>(schema: schema, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {})

/** One image drawn at once: a URL (valid for an hour at OpenAI) or the image itself in base64. */
const Drawn = Type.Object({
  url: nullable(Type.String()),
  b64_json: Type.Optional(Type.String({ description: 'The image, base64 (GPT Image answers so).' })),
  revised_prompt: nullable(Type.String(), 'The prompt as the model rewrote it (DALL-E 3).'),
})

/** A job's payment, as `status` shows it. */
const Payment = Type.Object({
  state: Type.String({ description: '`held` until the job ends, then `settled`, `released` or `failed`.' }),
  amount: Type.String(),
  transaction: nullable(Type.String()),
  receipt: nullable(Type.Record(Type.String(), Type.String())),
  reason: nullable(Type.String()),
})

/** An asynchronous generation, as its start and `status` answer it. */
const Job = Type.Object({
  source: Type.Literal('replicate'),
  id: Type.String({ description: 'Our job id, `job_` and 32 hex digits.' }),
  status: Type.String({ description: '`queued`, `running`, `succeeded`, `failed` or `canceled`.' }),
  model: Type.String(),
  images: Type.Array(Type.Unknown(), { description: "Replicate's output (image URLs), once succeeded and paid." }),
  error: nullable(Type.String()),
  statusUrl: Type.String(),
  prediction_id: Type.String(),
  payment: Payment,
})

/** The answers of the image endpoints, for discovery. */
export const outputs: Record<string, TSchema> = {
  'POST /api/v1/image/generate': Type.Union([
    Type.Object({
      source: Type.Literal('openai'),
      model: Type.String(),
      status: Type.Literal('succeeded'),
      created: nullable(Type.Integer()),
      images: Type.Array(Drawn),
    }),
    Job,
  ]),
  'POST /api/v1/image/edit': Type.Object({
    source: Type.Literal('openai'),
    model: Type.String(),
    status: Type.Literal('succeeded'),
    created: nullable(Type.Integer()),
    images: Type.Array(Drawn),
  }),
  'GET /api/v1/image/status/:id': Job,
}
