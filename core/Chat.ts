import type { Availability, Outcome } from './Upstream.js'

/**
 * The OpenAI-compatible inference API (chat completions, models, embeddings, image generation) as ports. Requests
 * and answers keep the API's own JSON shapes: the gateway forwards what it admitted and relays what came back.
 */

/** One message of a conversation: `role`, and `content` as text or parts (text, images); other fields as the API has them. */
export type Message = { role: string; content?: unknown; [field: string]: unknown }

/** A chat completion request in the API's shape; standard fields beyond these pass through unchanged. */
export type Request = {
  /** Model id. */
  model: string
  /** The conversation so far. */
  messages: readonly Message[]
  /** Answer as server-sent events. */
  stream?: boolean
  [field: string]: unknown
}

/** A whole (non-streamed) chat completion: the upstream's JSON body, which has at least `choices`. */
export type Completion = { choices: unknown[]; usage?: unknown; [field: string]: unknown }

/** What a chat completion request gets back. */
export type Answer =
  | {
      /** Not streamed. */
      type: 'completion'
      /** The upstream's body. */
      completion: Completion
    }
  | {
      /** Streamed. */
      type: 'stream'
      /** The upstream's server-sent events, byte for byte (`data: {...}` chunks, then `data: [DONE]`). */
      events: ReadableStream<Uint8Array>
    }

/** A model the upstream serves, as its `/models` lists it. */
export type Model = { id: string; [field: string]: unknown }

/** An embeddings request in the API's shape (`model`, `input`, ...). */
export type EmbeddingsRequest = { model: string; input: unknown; [field: string]: unknown }

/** An image generation request in the API's shape (`model`, `prompt`, ...). */
export type ImagesRequest = { model: string; prompt: string; [field: string]: unknown }

/** A list answer of the API (`{ object: 'list', data: [...] }` for embeddings and images), as the upstream sent it. */
export type List = { data: unknown[]; [field: string]: unknown }

/** An upstream that answers chat completions and lists its models. */
export type ChatUpstream = {
  /** Sends a chat completion; a streamed one resolves once the upstream's first event has arrived. */
  complete: (request: Request) => Promise<Outcome<{ answer: Answer }>>
  /** The models the upstream serves; adapters may cache the list. */
  models: () => Promise<Outcome<{ models: Model[] }>>
  /** Whether calls may start now (checked before payment). */
  available: () => Availability
}

/** An upstream that also computes embeddings and generates images. */
export type InferenceUpstream = ChatUpstream & {
  /** Computes embeddings. */
  embed: (request: EmbeddingsRequest) => Promise<Outcome<{ body: List }>>
  /** Generates images. */
  generateImages: (request: ImagesRequest) => Promise<Outcome<{ body: List }>>
}

/**
 * An answer as the caller gets it: a whole completion as its JSON body, a stream as a `Response` whose body is the
 * upstream's events. The gateway settles a paid call before it hands that `Response` to the server, so no event
 * reaches the caller before settlement.
 */
export function toResponse(answer: Answer): Completion | Response {
  if (answer.type === 'completion') return answer.completion
  return new Response(answer.events, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    },
  })
}
