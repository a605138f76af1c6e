import { Elysia } from 'elysia'
import type * as Chat from '../../core/Chat.js'
import type {
  ChatBody as ChatBodyType,
  EmbeddingsBody as EmbeddingsBodyType,
  ImagesBody as ImagesBodyType,
} from './schema.js'
import { ChatBody, EmbeddingsBody, ImagesBody } from './schema.js'
import * as Service from './service.js'

/** `POST /api/v1/chat/completions` and `GET /api/v1/models`. */
export function chat(deps: Service.Deps) {
  return new Elysia({ name: 'ai' })
    .post(
      '/api/v1/chat/completions',
      async ({ body }) => toResponse(await Service.complete(deps, body as ChatBodyType)),
      {
        body: ChatBody(deps),
      },
    )
    .get('/api/v1/models', () => Service.models(deps))
}

/** `/decentralized/v1/*`: chat completions, embeddings, images and models, in the OpenAI API's shapes. */
export function decentralized(deps: Service.InferenceDeps) {
  return new Elysia({ name: 'decentralized' })
    .post(
      '/decentralized/v1/chat/completions',
      async ({ body }) => toResponse(await Service.complete(deps, body as ChatBodyType)),
      {
        body: ChatBody(deps),
      },
    )
    .post('/decentralized/v1/embeddings', ({ body }) => Service.embed(deps, body as EmbeddingsBodyType), {
      body: EmbeddingsBody(deps),
    })
    .post('/decentralized/v1/images/generations', ({ body }) => Service.generateImages(deps, body as ImagesBodyType), {
      body: ImagesBody(deps),
    })
    .get('/decentralized/v1/models', () => Service.modelList(deps))
}

/**
 * A whole completion as JSON; a stream as a `Response` whose body is the upstream's events. The gateway settles
 * the payment before it hands that `Response` to the server, so no event reaches the caller before settlement.
 */
function toResponse(answer: Chat.Answer) {
  if (answer.type === 'completion') return answer.completion
  return new Response(answer.events, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    },
  })
}
