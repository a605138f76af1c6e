import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'
import * as Service from './service.js'

/**
 * Prediction markets (`/api/v1/markets/*`, all GET): Polymarket's events and markets (its Gamma API), order books (its
 * CLOB) and trades (its data API), keyless and on by default, with the original gateway's parameters and answer
 * fields. Inputs are checked before payment; an unknown market or token is a 404 and an upstream 429 or 5xx a 503 or
 * 502, none of them charged.
 */
export const manifest = Module.define({
  name: 'markets',
  paths: ['/api/v1/markets/'],
  needs: ['predictionMarkets'],
  outputs,
  routes: ({ ports }) => routes({ venue: ports.predictionMarkets }),
  ready: ({ ports }, key) => Service.readiness(ports.predictionMarkets, key),
})
