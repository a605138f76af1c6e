import { Type } from '@sinclair/typebox'
import { das, heliusUrl } from '../../adapters/solana/das.js'
import { define } from './shared.js'

/** A Digital Asset Standard index: any provider at DAS_URL, or Helius's with HELIUS_API_KEY; none with neither. */
export const solanaAssets = define({
  port: 'solanaAssets',
  description: 'a DAS asset index (DAS_URL or HELIUS_API_KEY)',
  env: Type.Object({
    DAS_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: `${heliusUrl} with \`HELIUS_API_KEY\`; with neither, the asset-index endpoints are unavailable`,
        description:
          'JSON-RPC URL of any Digital Asset Standard provider behind `/api/v1/solana/assetindex/*`; may carry its key',
      }),
    ),
    HELIUS_API_KEY: Type.Optional(
      Type.String({
        secret: true,
        minLength: 1,
        description:
          "Helius key, sent as the `api-key` query parameter (the asset index is Helius's unless `DAS_URL` is set)",
      }),
    ),
  }),
  build: ({ env }) =>
    env.DAS_URL !== undefined || env.HELIUS_API_KEY !== undefined
      ? das({ url: env.DAS_URL ?? heliusUrl, key: env.HELIUS_API_KEY })
      : undefined,
})
