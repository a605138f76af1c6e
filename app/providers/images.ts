import { Type } from '@sinclair/typebox'
import { openai } from '../../adapters/images/openai.js'
import { define, keyed } from './shared.js'

/** OpenAI's images API, the default of IMAGES_UPSTREAM_URL. */
const openaiUrl = 'https://api.openai.com/v1'

/**
 * The images family's OpenAI-compatible images API (generations and edits): OpenAI's own once IMAGES_UPSTREAM_KEY is
 * set, or any server that speaks it at IMAGES_UPSTREAM_URL (a local one needs no key).
 */
export const images = define({
  port: 'images',
  description: 'an OpenAI-compatible images API (IMAGES_UPSTREAM_KEY, or IMAGES_UPSTREAM_URL of one that needs no key)',
  env: Type.Object({
    IMAGES_UPSTREAM_URL: Type.String({
      minLength: 1,
      default: openaiUrl,
      description:
        'base URL (ending in `/v1`) of the OpenAI-compatible images API behind `/api/v1/image/generate` (DALL-E and GPT Image models) and `/api/v1/image/edit`',
    }),
    IMAGES_UPSTREAM_KEY: Type.Optional(
      Type.String({
        minLength: 1,
        secret: true,
        description: 'bearer key of `IMAGES_UPSTREAM_URL` (OpenAI: `sk-...`)',
      }),
    ),
  }),
  build: ({ env }) => {
    const upstream = keyed(env.IMAGES_UPSTREAM_URL, env.IMAGES_UPSTREAM_KEY, openaiUrl)
    return upstream ? openai({ baseUrl: upstream.url, apiKey: upstream.key }) : undefined
  },
})
