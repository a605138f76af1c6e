import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The FX module, mounted by the gateway. */
export function fx(deps: Service.Deps) {
  return routes(deps)
}

/**
 * Exchange rates (`/api/v1/oracle/fx`): of the original gateway's stablecoins from the settlement chain's Uniswap v3
 * pools, and of USD and the fiat currencies with a USD feed, each computed from two feeds and checked against published
 * reference rates when a source of them is configured.
 */
export const manifest = Module.define({
  name: 'fx',
  paths: ['/api/v1/oracle/fx'],
  needs: ['fx'],
  uses: ['fxReference', 'chains'],
  env: Type.Object({
    FX_REFERENCE_URL: Type.String({
      minLength: 1,
      default: 'https://api.frankfurter.dev/v1',
      description:
        'Frankfurter-compatible API (`GET /latest?base=USD&symbols=EUR`, the ECB reference rates) whose rates `/api/v1/oracle/fx` shows beside the feeds as a second opinion (keyless public API unless set)',
    }),
  }),
  routes: ({ ports }) => fx(Service.from({ feeds: ports.fx, reference: ports.fxReference, chain: ports.chains?.[0] })),
})
