import { Type } from '@sinclair/typebox'
import { openai } from '../../adapters/compute/openai.js'
import { define } from './shared.js'

/**
 * The compute family's own OpenAI-compatible upstream (chat, embeddings, images, speech, transcription), kept apart
 * from the ai family's chat upstream so that each has its own key and limits.
 */
export const computeUpstream = define({
  port: 'computeUpstream',
  description: 'an OpenAI-compatible compute upstream (COMPUTE_UPSTREAM_URL)',
  env: Type.Object({
    COMPUTE_UPSTREAM_URL: Type.Optional(
      Type.String({
        description: 'base URL (ending in `/v1`) of the OpenAI-compatible upstream of the `openai` models',
      }),
    ),
    COMPUTE_UPSTREAM_KEY: Type.Optional(
      Type.String({ minLength: 1, secret: true, description: 'bearer key of `COMPUTE_UPSTREAM_URL`' }),
    ),
  }),
  build: ({ env }) =>
    env.COMPUTE_UPSTREAM_URL
      ? openai({ baseUrl: env.COMPUTE_UPSTREAM_URL, apiKey: env.COMPUTE_UPSTREAM_KEY })
      : undefined,
})
