import { Type } from '@sinclair/typebox'
import { embedded } from '../../adapters/storage/embedded.js'
import { kubo } from '../../adapters/storage/kubo.js'
import { pinata } from '../../adapters/storage/pinata.js'
import { pinningService } from '../../adapters/storage/pinningService.js'
import type * as Storage from '../../core/Storage.js'
import { define } from './shared.js'

/**
 * The embedded blockstore (on the store the module is given), and the pinning providers whose variables are set: Kubo
 * at KUBO_RPC_URL, Pinata with PINATA_JWT, a pinning service at PINNING_SERVICE_URL with its token.
 */
export const storage = define({
  port: 'storage',
  description: 'a blockstore (the store)',
  env: Type.Object({
    KUBO_RPC_URL: Type.Optional(
      Type.String({
        pattern: '^https?://',
        defaultText: 'none: no Kubo provider',
        description:
          'Kubo RPC API origin (e.g. `http://127.0.0.1:5001`) that `provider: kubo` pins to with `/api/v0/add`',
      }),
    ),
    KUBO_RPC_AUTHORIZATION: Type.Optional(
      Type.String({
        minLength: 1,
        description: "`Authorization` header value Kubo's `API.Authorizations` expects (e.g. `Bearer …` or `Basic …`)",
        secret: true,
      }),
    ),
    PINATA_JWT: Type.Optional(
      Type.String({
        minLength: 1,
        defaultText: 'none: no Pinata provider',
        description: 'Pinata API key (JWT) that `provider: pinata` uploads with',
        secret: true,
      }),
    ),
    PINATA_UPLOAD_URL: Type.String({
      pattern: '^https?://',
      default: 'https://uploads.pinata.cloud/v3',
      description: "Pinata's upload API (`POST /files`)",
    }),
    PINATA_API_URL: Type.String({
      pattern: '^https?://',
      default: 'https://api.pinata.cloud/v3',
      description: "Pinata's API, asked for a pin's state (`GET /files/public/{id}`)",
    }),
    PINNING_SERVICE_URL: Type.Optional(
      Type.String({
        pattern: '^https?://',
        defaultText: 'none: no pinning service',
        description:
          'IPFS Pinning Service API base (e.g. `https://api.pinata.cloud/psa`) that `provider: pinning-service` pins to by CID; needs PINNING_SERVICE_TOKEN',
      }),
    ),
    PINNING_SERVICE_TOKEN: Type.Optional(
      Type.String({ minLength: 1, description: 'bearer token of the pinning service', secret: true }),
    ),
  }),
  build: ({ env }) => {
    const remote: Record<string, Storage.Provider> = {}
    if (env.KUBO_RPC_URL) remote.kubo = kubo({ url: env.KUBO_RPC_URL, authorization: env.KUBO_RPC_AUTHORIZATION })
    if (env.PINATA_JWT)
      remote.pinata = pinata({ uploadUrl: env.PINATA_UPLOAD_URL, apiUrl: env.PINATA_API_URL, jwt: env.PINATA_JWT })
    if (env.PINNING_SERVICE_URL && env.PINNING_SERVICE_TOKEN)
      remote['pinning-service'] = pinningService({ url: env.PINNING_SERVICE_URL, token: env.PINNING_SERVICE_TOKEN })
    return { embedded: (store) => embedded({ store }), remote }
  },
})
