import { Type } from '@sinclair/typebox'
import { openai } from '../../adapters/upstream/openai.js'
import { define } from './shared.js'

/**
 * A second, separately configured OpenAI-compatible API, which also embeds and draws: the decentralized family's
 * (the limits on it are that family's).
 */
export const decentralized = define({
  port: 'decentralized',
  description: 'an OpenAI-compatible upstream (DECENTRALIZED_UPSTREAM_URL)',
  env: Type.Object({
    DECENTRALIZED_UPSTREAM_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: 'none: `/decentralized/v1/*` unavailable',
        description:
          "a second, separately configured OpenAI-compatible API; its limits are the `decentralized` family's",
      }),
    ),
    DECENTRALIZED_UPSTREAM_KEY: Type.Optional(
      Type.String({ secret: true, minLength: 1, description: 'its bearer key' }),
    ),
  }),
  build: ({ env }) =>
    env.DECENTRALIZED_UPSTREAM_URL
      ? openai({
          name: 'the decentralized-inference upstream',
          baseUrl: env.DECENTRALIZED_UPSTREAM_URL,
          apiKey: env.DECENTRALIZED_UPSTREAM_KEY,
        })
      : undefined,
})
