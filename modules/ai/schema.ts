import { type Static, Type } from '@sinclair/typebox'

// The schemas are built at boot from the operator's allow-list and ceiling, so a model outside the list or a token
// limit above the ceiling is a 400 before any payment is asked for. These bodies pass through to an API whose clients
// send fields of their own, so a field the schema does not name is not refused: inside a message, a tool or
// `stream_options` it is forwarded as the API defines it; at the top level it is dropped by the service, which
// forwards only the fields named here (`chatFields` and its siblings). Top-level vendor extensions (fallback
// `models`, `provider`, `plugins`, `service_tier`) could reach models or costs outside the price.

/** What the operator allows for a fixed price per call. */
export type Limits = {
  /** Model ids callers may name; at least one. */
  models: readonly string[]
  /** Largest `max_tokens` (and `max_completion_tokens`) a caller may ask for. */
  maxTokens: number
}

/** `model`: one of the allowed ids; `note` is appended to its description. */
function Model(models: readonly string[], note = '') {
  return Type.Union(
    models.map((id) => Type.Literal(id)),
    { description: `One of the models this gateway allows: ${models.join(', ')}.${note}` },
  )
}

/** A content part of a message: text, or an image (`image_url`) and the API's other part types. */
const Part = Type.Object({ type: Type.String({ maxLength: 64 }) }, { additionalProperties: true })

/** One message of the conversation, in the chat API's shape. */
const Message = Type.Object(
  {
    role: Type.Union(
      ['system', 'developer', 'user', 'assistant', 'tool', 'function'].map((role) => Type.Literal(role)),
      { description: 'Who speaks.' },
    ),
    content: Type.Optional(
      Type.Union([Type.String(), Type.Array(Part, { maxItems: 256 }), Type.Null()], {
        description: 'Text, or parts such as `{ type: "image_url", image_url: { url } }` for vision.',
      }),
    ),
  },
  { additionalProperties: true, description: 'Also `name`, `tool_calls`, `tool_call_id` as the API has them.' },
)

/** An object passed through as the API defines it (tool definitions, response formats, tool choices). */
const Passed = Type.Object({}, { additionalProperties: true })

/** Body of `POST /chat/completions`: the chat API's request, within the operator's limits. */
export function ChatBody(limits: Limits) {
  return Type.Object(chatProperties(limits), { additionalProperties: true })
}

/** Top-level fields of a chat request that are forwarded to the upstream. */
export const chatFields: readonly string[] = Object.keys(chatProperties({ models: ['-'], maxTokens: 1 }))

function chatProperties(limits: Limits) {
  const tokens = (description: string) =>
    Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: limits.maxTokens,
        description: `${description} At most ${limits.maxTokens}.`,
      }),
    )
  return {
    model: Model(limits.models),
    messages: Type.Array(Message, { minItems: 1, maxItems: 4096, description: 'The conversation so far.' }),
    max_tokens: tokens(`Most tokens to generate. Default: ${limits.maxTokens}.`),
    max_completion_tokens: tokens('Most tokens to generate, reasoning included (newer name of `max_tokens`).'),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: 'Sampling temperature.' })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Nucleus sampling mass.' })),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1, description: 'Choices to generate; one per paid call.' })),
    stream: Type.Optional(
      Type.Boolean({ description: 'Answer as server-sent events (`data: {...}` chunks, then `data: [DONE]`).' }),
    ),
    stream_options: Type.Optional(
      Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }),
    ),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 }), Type.Null()])),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    logit_bias: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 }))),
    logprobs: Type.Optional(Type.Boolean()),
    top_logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    seed: Type.Optional(Type.Integer()),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    tools: Type.Optional(Type.Array(Passed, { maxItems: 128, description: 'Function calling: tool definitions.' })),
    tool_choice: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Passed])),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    functions: Type.Optional(Type.Array(Passed, { maxItems: 128, description: 'Legacy function calling.' })),
    function_call: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Passed])),
    response_format: Type.Optional(
      Type.Object({ type: Type.String({ maxLength: 64 }) }, { additionalProperties: true }),
    ),
    reasoning_effort: Type.Optional(
      Type.Union(['minimal', 'low', 'medium', 'high'].map((effort) => Type.Literal(effort))),
    ),
  }
}
/** Body of `POST /chat/completions` (the model union is built at boot, so its static type is a plain string). */
export type ChatBody = Omit<Static<ReturnType<typeof ChatBody>>, 'model'> & { model: string }

/** Body of `POST /decentralized/v1/embeddings`: the embeddings API's request. */
export function EmbeddingsBody(limits: Pick<Limits, 'models'>) {
  return Type.Object(embeddingsProperties(limits), { additionalProperties: true })
}

/** Top-level fields of an embeddings request that are forwarded to the upstream. */
export const embeddingsFields: readonly string[] = Object.keys(embeddingsProperties({ models: ['-'] }))

function embeddingsProperties(limits: Pick<Limits, 'models'>) {
  return {
    model: Model(limits.models),
    input: Type.Union(
      [
        Type.String(),
        Type.Array(Type.String(), { minItems: 1, maxItems: 2048 }),
        Type.Array(Type.Integer(), { minItems: 1 }),
        Type.Array(Type.Array(Type.Integer(), { minItems: 1 }), { minItems: 1, maxItems: 2048 }),
      ],
      { description: 'Text, texts, or token arrays to embed.' },
    ),
    encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')])),
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
  }
}
/** Body of `POST /decentralized/v1/embeddings`. */
export type EmbeddingsBody = Omit<Static<ReturnType<typeof EmbeddingsBody>>, 'model'> & { model: string }

/**
 * Body of `POST /decentralized/v1/images/generations`: the image API's request, one image per paid call. `model` is
 * optional, as the original gateway's clients send none, when the operator names the image model it then means.
 */
export function ImagesBody(limits: ImagesLimits) {
  return Type.Object(imagesProperties(limits), { additionalProperties: true })
}

/** What the operator allows for an image request. */
export type ImagesLimits = Pick<Limits, 'models'> & {
  /** The allowed model a request without `model` draws with; without one, `model` is required. */
  imageModel: string | undefined
}

/** Top-level fields of an image request that are forwarded to the upstream. */
export const imagesFields: readonly string[] = Object.keys(imagesProperties({ models: ['-'], imageModel: undefined }))

function imagesProperties(limits: ImagesLimits) {
  const { models, imageModel } = limits
  return {
    model:
      imageModel === undefined
        ? Model(models)
        : Type.Optional(
            Model(
              models,
              ` Default \`${imageModel}\` (the operator's DECENTRALIZED_IMAGE_MODEL), used when none is named, as the original gateway's clients send none; the answer's \`model\` says which drew.`,
            ),
          ),
    prompt: Type.String({ minLength: 1, maxLength: 32_000, description: 'What to draw.' }),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1, description: 'Images to generate; one per paid call.' })),
    size: Type.Optional(Type.String({ pattern: '^(auto|[0-9]{2,5}x[0-9]{2,5})$', description: 'e.g. `1024x1024`.' })),
    quality: Type.Optional(Type.String({ maxLength: 32 })),
    style: Type.Optional(Type.String({ maxLength: 32 })),
    response_format: Type.Optional(Type.Union([Type.Literal('url'), Type.Literal('b64_json')])),
    user: Type.Optional(Type.String({ maxLength: 256 })),
  }
}
/** Body of `POST /decentralized/v1/images/generations` (`model` absent only when the operator names a default). */
export type ImagesBody = Omit<Static<ReturnType<typeof ImagesBody>>, 'model'> & { model?: string }
