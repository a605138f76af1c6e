import { type Static, Type } from '@sinclair/typebox'

/** A model id of the operator's catalog (`GET /api/v1/compute/models`). */
const Model = Type.String({ minLength: 1, maxLength: 100, description: 'a model id of `GET /api/v1/compute/models`' })

/** A priced size of the model; its first when absent. */
const Size = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'a priced size of the model (its first when absent)',
})

/** One message of a conversation. */
const Message = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String({ maxLength: 200_000 }),
  },
  { additionalProperties: false },
)

/** `POST /api/v1/compute/text-inference`: a conversation or a bare prompt. */
export const TextBody = Type.Object(
  {
    model: Model,
    messages: Type.Optional(Type.Array(Message, { minItems: 1, maxItems: 200 })),
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000, description: 'one user message' })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, description: "at most the model's `maxTokens`" })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  },
  { additionalProperties: false },
)
export type TextBody = Static<typeof TextBody>

/** `POST /api/v1/compute/embeddings`. */
export const EmbeddingsBody = Type.Object(
  {
    model: Model,
    input: Type.Union([
      Type.String({ minLength: 1, maxLength: 200_000 }),
      Type.Array(Type.String({ minLength: 1, maxLength: 200_000 }), { minItems: 1, maxItems: 2048 }),
    ]),
  },
  { additionalProperties: false },
)
export type EmbeddingsBody = Static<typeof EmbeddingsBody>

/** `POST /api/v1/compute/text-to-speech`. */
export const SpeechBody = Type.Object(
  {
    model: Model,
    input: Type.String({ minLength: 1, maxLength: 200_000 }),
    voice: Type.String({ minLength: 1, maxLength: 64 }),
    format: Type.Optional(
      Type.Union(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'].map((format) => Type.Literal(format))),
    ),
  },
  { additionalProperties: false },
)
export type SpeechBody = Static<typeof SpeechBody>

/** `POST /api/v1/compute/speech-to-text`: the audio as base64. */
export const TranscriptionBody = Type.Object(
  {
    model: Model,
    audio: Type.String({ minLength: 4, maxLength: 40_000_000, description: 'the audio file, base64' }),
    filename: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}\\.[A-Za-z0-9]{1,5}$', description: '@default audio.mp3' }),
    ),
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
  },
  { additionalProperties: false },
)
export type TranscriptionBody = Static<typeof TranscriptionBody>

/** `POST /api/v1/compute/image-generation` and `video-generation`. */
export const MediaBody = Type.Object(
  {
    model: Model,
    prompt: Type.String({ minLength: 1, maxLength: 200_000 }),
    size: Type.Optional(Size),
    input: Type.Optional(
      Type.Record(Type.String({ pattern: '^(?!prompt$)[a-z_][a-z0-9_]{0,63}$' }), Type.Unknown(), {
        description: 'further model inputs, passed to Replicate as they are',
      }),
    ),
  },
  { additionalProperties: false },
)
export type MediaBody = Static<typeof MediaBody>

/** The endpoints a batch job may name (those answered at once). */
export const batchable = [
  'text-inference',
  'embeddings',
  'text-to-speech',
  'speech-to-text',
  'image-generation',
] as const

/** `POST /api/v1/compute/batch`: up to 50 jobs, each an endpoint and that endpoint's body. */
export const BatchBody = Type.Object(
  {
    jobs: Type.Array(
      Type.Object(
        {
          endpoint: Type.Union(batchable.map((name) => Type.Literal(name))),
          body: Type.Record(Type.String(), Type.Unknown()),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
)
export type BatchBody = Static<typeof BatchBody>

/** `POST /api/v1/compute/estimate`: one model and size, or a batch's jobs. */
export const EstimateBody = Type.Object(
  {
    model: Type.Optional(Model),
    size: Type.Optional(Size),
    jobs: Type.Optional(
      Type.Array(Type.Object({ model: Model, size: Type.Optional(Size) }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 50,
      }),
    ),
  },
  { additionalProperties: false },
)
export type EstimateBody = Static<typeof EstimateBody>

/** `GET /api/v1/compute/models`. */
export const ModelsQuery = Type.Object({
  kind: Type.Optional(
    Type.Union(['text', 'embeddings', 'tts', 'stt', 'image', 'video'].map((kind) => Type.Literal(kind))),
  ),
})
export type ModelsQuery = Static<typeof ModelsQuery>

/** `GET /api/v1/compute/status/:jobId`. */
export const StatusParams = Type.Object({ jobId: Type.String({ pattern: '^job_[0-9a-f]{32}$' }) })
