import { Type } from '@sinclair/typebox'
import { replicate as predictions } from '../../adapters/compute/replicate.js'
import { define } from './shared.js'

/**
 * Replicate's predictions API (compute images and videos, GPU runs), once REPLICATE_API_TOKEN is set; with PUBLIC_URL
 * and REPLICATE_WEBHOOK_SECRET it reports on jobs by signed webhooks, otherwise they are polled.
 */
export const replicate = define({
  port: 'replicate',
  description: 'Replicate (REPLICATE_API_TOKEN)',
  env: Type.Object({
    REPLICATE_API_TOKEN: Type.Optional(
      Type.String({
        minLength: 1,
        secret: true,
        description: 'Replicate API token (`replicate` models and the gpu family)',
      }),
    ),
    REPLICATE_URL: Type.String({ default: 'https://api.replicate.com/v1', description: 'Replicate API base URL' }),
    REPLICATE_WEBHOOK_SECRET: Type.Optional(
      Type.String({
        pattern: '^whsec_',
        secret: true,
        description:
          'Replicate’s webhook signing secret (`whsec_...`); with `PUBLIC_URL`, jobs are updated by signed webhooks, otherwise only polled',
      }),
    ),
  }),
  build: ({ env, shared: { config } }) => {
    const secret = env.REPLICATE_WEBHOOK_SECRET
    return env.REPLICATE_API_TOKEN
      ? predictions({
          baseUrl: env.REPLICATE_URL,
          token: env.REPLICATE_API_TOKEN,
          webhooks: config.publicUrl && secret ? { publicUrl: config.publicUrl, secret } : undefined,
        })
      : undefined
  },
})
