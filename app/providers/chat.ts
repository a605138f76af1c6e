import { Type } from '@sinclair/typebox'
import { openai } from '../../adapters/upstream/openai.js'
import { define } from './shared.js'

/** The OpenAI-compatible API behind the ai family's chat completions (the limits on it are the family's). */
export const chat = define({
  port: 'chat',
  description: 'an OpenAI-compatible upstream (CHAT_UPSTREAM_URL)',
  env: Type.Object({
    CHAT_UPSTREAM_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: 'none: chat endpoints unavailable',
        description:
          "OpenAI-compatible API (a hosted router, llama.cpp, vLLM; base URL ending in `/v1`) behind `/api/v1/chat/completions` and `/api/v1/models`; its limits are the `ai` family's",
      }),
    ),
    CHAT_UPSTREAM_KEY: Type.Optional(
      Type.String({ secret: true, minLength: 1, description: 'bearer key of that API' }),
    ),
  }),
  build: ({ env }) =>
    env.CHAT_UPSTREAM_URL
      ? openai({ name: 'the chat upstream', baseUrl: env.CHAT_UPSTREAM_URL, apiKey: env.CHAT_UPSTREAM_KEY })
      : undefined,
})
