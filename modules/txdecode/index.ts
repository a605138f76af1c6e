import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/** The transaction decoder, mounted by the gateway. */
export function txdecode(deps: txdecode.Deps) {
  return routes(deps)
}

export declare namespace txdecode {
  /** What the module needs: the service's dependencies. */
  type Deps = Service.Deps
}

/**
 * Plain-language decoding of a settlement-chain transaction (`/api/v1/tx/decode`): the chain it reads is the one of
 * `chains` whose id is the settlement chain's.
 */
export const manifest = Module.define({
  name: 'txdecode',
  paths: ['/api/v1/tx/decode'],
  needs: ['settlementChain', 'onchain'],
  routes: ({ ports }) => txdecode(Service.from({ endpoint: ports.settlementChain, tokens: ports.onchain.tokens })),
})
