import { Elysia } from 'elysia'
import * as Chat from '../../core/Chat.js'
import type {
  ChatBody as ChatBodyType,
  EmbeddingsBody as EmbeddingsBodyType,
  ImagesBody as ImagesBodyType,
} from './schema.js'
import { ChatBody, EmbeddingsBody, ImagesBody } from './schema.js'
import * as Service from './service.js'

/** `POST /api/v1/chat/completions`, `GET /api/v1/models` and its free mirror `GET /free/models` (the original gateway's). */
export function chat(deps: Service.Deps) {
  return new Elysia({ name: 'ai' })
    .post(
      '/api/v1/chat/completions',
      async ({ body }) => Chat.toResponse(await Service.complete(deps, body as ChatBodyType)),
      {
        body: ChatBody(deps),
      },
    )
    .get('/api/v1/models', () => Service.models(deps))
    .get('/free/models', () => Service.models(deps))
}

/** `/decentralized/v1/*`: chat completions, embeddings, images and models, in the OpenAI API's shapes. */
export function decentralized(deps: Service.InferenceDeps) {
  return new Elysia({ name: 'decentralized' })
    .post(
      '/decentralized/v1/chat/completions',
      async ({ body }) => Chat.toResponse(await Service.complete(deps, body as ChatBodyType)),
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
