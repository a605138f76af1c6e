import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'
import * as Service from './service.js'

/**
 * Every token and NFT a wallet holds across the chains served (`/api/v1/portfolio/*`): the devnet read from its own
 * node, every mainnet from its keyless public Blockscout instance; tokens priced by the indexer's quote or, for the
 * native coin and listed tokens it does not price, by the gateway's own price source.
 */
export const manifest = Module.define({
  name: 'portfolio',
  paths: ['/api/v1/portfolio/'],
  needs: ['holdings'],
  uses: ['oracle'],
  outputs,
  routes: ({ ports }) => routes({ holdings: ports.holdings, oracle: ports.oracle }),
  ready: ({ ports }) => Service.readiness({ holdings: ports.holdings }),
})
