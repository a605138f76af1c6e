import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'
import * as Service from './service.js'

/**
 * The 23 research endpoints (`/api/v1/research/*`, all GET) over the public scholarly and data APIs: OpenAlex,
 * Crossref, arXiv, bioRxiv/medRxiv, NCBI E-utilities, PubChem, the Census Data API, data.gov's catalog and the Free
 * Dictionary API, each keyless and on by default, each a thin mapping on the vendor kit with its own rate limit and
 * cache. Identifiers are checked before payment; an unknown one is a 404 and an upstream 429 or 5xx a 503 or 502,
 * none of them charged.
 */
export const manifest = Module.define({
  name: 'research',
  paths: ['/api/v1/research/'],
  needs: ['research'],
  outputs,
  routes: ({ ports }) => routes({ sources: ports.research, now: Date.now }),
  ready: ({ ports }, key) => Service.readiness(ports.research, key),
})
