import { Elysia } from 'elysia'
import * as Chat from '../../core/Chat.js'
import { ChatBody, type ChatBody as ChatBodyType } from './schema.js'
import * as Service from './service.js'

/** `POST /free/chat` and `GET /free/chat/models`: validate, call the service, nothing else. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'free-chat' })
    .post('/free/chat', async ({ body }) => Chat.toResponse(await Service.complete(deps, body as ChatBodyType)), {
      body: ChatBody(deps),
    })
    .get('/free/chat/models', () => Service.models(deps))
}
