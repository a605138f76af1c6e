import { type Static, Type } from '@sinclair/typebox'

/** A model id of the operator's catalog (`GET /api/v1/compute/models`). */
const Model = Type.String({ minLength: 1, maxLength: 100, description: 'a model id of `GET /api/v1/compute/models`' })

/** A model id, or absent or `auto` for the kind's default, as the original gateway reads it. */
const DefaultedModel = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'a model id of `GET /api/v1/compute/models`; absent or `auto`: the default of the kind, the first model of that kind in the operator’s COMPUTE_MODELS (`default_model` of the models answer)',
  }),
)

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
    model: DefaultedModel,
    messages: Type.Optional(Type.Array(Message, { minItems: 1, maxItems: 200 })),
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000, description: 'one user message' })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, description: "at most the model's `maxTokens`" })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    stream: Type.Optional(
      Type.Boolean({ description: 'the original gateway’s flag; the answer is one whole JSON either way, as there' }),
    ),
  },
  { additionalProperties: false },
)
export type TextBody = Static<typeof TextBody>

/** `POST /api/v1/compute/embeddings`. */
export const EmbeddingsBody = Type.Object(
  {
    model: DefaultedModel,
    input: Type.Union([
      Type.String({ minLength: 1, maxLength: 200_000 }),
      Type.Array(Type.String({ minLength: 1, maxLength: 200_000 }), { minItems: 1, maxItems: 2048 }),
    ]),
  },
  { additionalProperties: false },
)
export type EmbeddingsBody = Static<typeof EmbeddingsBody>

/** `POST /api/v1/compute/text-to-speech`: `text` (the original gateway's name) or `input`, one of them. */
export const SpeechBody = Type.Object(
  {
    model: DefaultedModel,
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000, description: 'the text to speak' })),
    input: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200_000, description: 'the text to speak (the OpenAI name of `text`)' }),
    ),
    voice: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '@default alloy' })),
    format: Type.Optional(
      Type.Union(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'].map((format) => Type.Literal(format))),
    ),
    language: Type.Optional(
      Type.String({
        pattern: '^[a-z]{2}$',
        description:
          'ISO-639-1 language of the text (the original gateway’s field); the model speaks the text as written',
      }),
    ),
  },
  { additionalProperties: false },
)
export type SpeechBody = Static<typeof SpeechBody>

/** `POST /api/v1/compute/speech-to-text`: `audio_url` (the original gateway's) or the audio as base64, one of them. */
export const TranscriptionBody = Type.Object(
  {
    model: DefaultedModel,
    audio_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'an http(s) URL of the audio file, fetched through the outbound guard (checked before payment), at most the model’s `maxAudioBytes`',
      }),
    ),
    audio: Type.Optional(Type.String({ minLength: 4, maxLength: 40_000_000, description: 'the audio file, base64' })),
    filename: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._-]{1,100}\\.[A-Za-z0-9]{1,5}$',
        description: '@default the last segment of `audio_url`, else audio.mp3',
      }),
    ),
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
  },
  { additionalProperties: false },
)
export type TranscriptionBody = Static<typeof TranscriptionBody>

/** Further model inputs of a Replicate model. */
const MediaInput = Type.Optional(
  Type.Record(Type.String({ pattern: '^(?!prompt$)[a-z_][a-z0-9_]{0,63}$' }), Type.Unknown(), {
    description: 'further model inputs, passed to Replicate as they are',
  }),
)

/** `POST /api/v1/compute/image-generation`: `size`, or the original gateway's `width` and `height`. */
export const ImageBody = Type.Object(
  {
    model: DefaultedModel,
    prompt: Type.String({ minLength: 1, maxLength: 200_000 }),
    size: Type.Optional(Size),
    width: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 8192, description: 'pixels; with `height`, the size `WxH` (a priced size)' }),
    ),
    height: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 8192, description: 'pixels; with `width`, the size `WxH` (a priced size)' }),
    ),
    num_outputs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1, description: 'images per call: 1 here (the price is per image)' }),
    ),
    input: MediaInput,
  },
  { additionalProperties: false },
)
export type ImageBody = Static<typeof ImageBody>

/** `POST /api/v1/compute/video-generation`: `size`, or the original gateway's `duration_seconds`. */
export const VideoBody = Type.Object(
  {
    model: DefaultedModel,
    prompt: Type.String({ minLength: 1, maxLength: 200_000 }),
    size: Type.Optional(Size),
    duration_seconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 600, description: 'seconds of video: the size `<n>s` (a priced size)' }),
    ),
    input: MediaInput,
  },
  { additionalProperties: false },
)
export type VideoBody = Static<typeof VideoBody>

/** The original gateway's job types: the job endpoints' names. */
export const jobTypes = [
  'text-inference',
  'embeddings',
  'text-to-speech',
  'speech-to-text',
  'image-generation',
  'video-generation',
] as const

/** The endpoints a batch job may name (those answered at once). */
export const batchable = [
  'text-inference',
  'embeddings',
  'text-to-speech',
  'speech-to-text',
  'image-generation',
] as const

/** `POST /api/v1/compute/batch`: up to 50 jobs, each an endpoint and its body, or the original's `{ type, ... }`. */
export const BatchBody = Type.Object(
  {
    jobs: Type.Array(
      Type.Union([
        Type.Object(
          {
            endpoint: Type.Union(batchable.map((name) => Type.Literal(name))),
            body: Type.Record(Type.String(), Type.Unknown()),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            type: Type.Union(
              jobTypes.map((name) => Type.Literal(name)),
              {
                description: 'the original gateway’s job: its type and that endpoint’s fields beside it',
              },
            ),
            model: DefaultedModel,
          },
          { additionalProperties: true },
        ),
      ]),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
)
export type BatchBody = Static<typeof BatchBody>

/** `POST /api/v1/compute/estimate`: one model and size, a batch's jobs, or the original's job `type` and `count`. */
export const EstimateBody = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        jobTypes.map((name) => Type.Literal(name)),
        { description: 'the original gateway’s job type' },
      ),
    ),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'jobs of `type`; above 1 the batch discount applies' }),
    ),
    model: Type.Optional(Model),
    size: Type.Optional(Size),
    jobs: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.Optional(
              Type.Union(
                jobTypes.map((name) => Type.Literal(name)),
                { description: 'the original gateway’s job type: with no model, its default model is priced' },
              ),
            ),
            model: DefaultedModel,
            size: Type.Optional(Size),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 50 },
      ),
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
