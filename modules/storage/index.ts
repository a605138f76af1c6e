import { Type } from '@sinclair/typebox'
import { ConfigError } from '../../core/Errors.js'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The storage module, mounted by the gateway. */
export function storage(deps: Service.Deps) {
  return routes(deps)
}

/** One MiB, in bytes. */
const mib = 1_048_576

/**
 * Content-addressed storage (`/api/v1/storage/*`): the CID is computed here from the caller's bytes (ContentId's
 * profile), the blocks kept in the embedded blockstore on the store, and pinned at Kubo, Pinata or a Pinning Service
 * API when configured, each of which must answer the same CID. Pins belong to the payer.
 */
export const manifest = Module.define({
  name: 'storage',
  paths: ['/api/v1/storage/'],
  needs: ['store', 'storage'],
  env: Type.Object({
    STORAGE_PROVIDER: Type.String({
      pattern: '^(embedded|kubo|pinata|pinning-service)$',
      default: 'embedded',
      description:
        'provider of a `storage/pin` that names none: `embedded` (the blockstore on the store), `kubo`, `pinata` or `pinning-service` (each needs its variables, under the `storage` port)',
    }),
    STORAGE_MAX_OBJECT_BYTES: Type.Integer({
      minimum: 1,
      default: mib,
      description:
        'largest object one `storage/pin` takes, in bytes (the JSON body is bounded by BODY_LIMIT_BYTES too: raise both for larger objects)',
    }),
    STORAGE_MAX_READ_BYTES: Type.Integer({
      minimum: 1,
      default: mib,
      description: 'largest object `storage/get` answers, in bytes',
    }),
    STORAGE_MAX_PINS_PER_PAYER: Type.Integer({
      minimum: 1,
      default: 1000,
      description: 'most pins (distinct CIDs) one payer may hold',
    }),
    STORAGE_MAX_BYTES_PER_PAYER: Type.Integer({
      minimum: 1,
      default: 100 * mib,
      description: "most bytes one payer's pins may hold in all",
    }),
  }),
  routes: ({ ports, env }) => {
    const deps: Service.Deps = {
      store: ports.store,
      embedded: ports.storage.embedded,
      remote: ports.storage.remote,
      defaultProvider: env.STORAGE_PROVIDER,
      limits: {
        maxObjectBytes: env.STORAGE_MAX_OBJECT_BYTES,
        maxReadBytes: env.STORAGE_MAX_READ_BYTES,
        maxPinsPerPayer: env.STORAGE_MAX_PINS_PER_PAYER,
        maxBytesPerPayer: env.STORAGE_MAX_BYTES_PER_PAYER,
      },
      now: Date.now,
    }
    if (!Service.providerNames(deps).includes(env.STORAGE_PROVIDER))
      throw new ConfigError(`STORAGE_PROVIDER is ${env.STORAGE_PROVIDER}, whose variables are not set.`)
    return storage(deps)
  },
})
