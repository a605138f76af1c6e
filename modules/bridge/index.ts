import { Type } from '@sinclair/typebox'
import type * as Bridge from '../../core/Bridge.js'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type * as Service from './service.js'

/** The bridge module, mounted by the gateway. */
export function bridge(deps: Service.Deps) {
  return routes(deps)
}

const env = Type.Object({
  LIFI_API_URL: Type.String({
    minLength: 1,
    default: 'https://li.quest/v1',
    description: 'Base URL of the LI.FI API the bridge endpoints ask (keyless public API unless set)',
    secret: true,
  }),
  LIFI_API_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      defaultText: 'none (keyless)',
      description: 'LI.FI API key, sent as `x-lifi-api-key`, for higher rate limits',
      secret: true,
    }),
  ),
  ACROSS_API_URL: Type.String({
    minLength: 1,
    default: 'https://app.across.to/api',
    description: 'Base URL of the Across API the bridge endpoints ask (keyless public API unless set)',
    secret: true,
  }),
})

/**
 * The bridges of one mounted gateway, opened once and shared by `routes` and `ready` (the gateway hands both the same
 * resources object), so that readiness reads the breakers the calls move.
 */
const opened = new WeakMap<object, readonly Bridge.Bridge[]>()

/** The bridges `resources` name, opened on first use. */
function bridgesOf(resources: Module.Resources<'bridges', typeof env, 'oracle'>): readonly Bridge.Bridge[] {
  let bridges = opened.get(resources)
  if (!bridges) {
    const { ports, env } = resources
    bridges = ports.bridges({
      lifi: { url: env.LIFI_API_URL, key: env.LIFI_API_KEY },
      across: { url: env.ACROSS_API_URL },
    })
    opened.set(resources, bridges)
  }
  return bridges
}

/**
 * Cross-chain bridge quotes (`/api/v1/bridge/quote`) from LI.FI and Across, the better one with its unsigned
 * transaction, and the chains they serve (`/api/v1/bridge/chains`). Unavailable (503, before payment) only while
 * neither bridge takes calls.
 */
export const manifest = Module.define({
  name: 'bridge',
  paths: ['/api/v1/bridge/'],
  needs: ['bridges'],
  uses: ['oracle'],
  env,
  routes: (resources) => bridge({ bridges: bridgesOf(resources), oracle: resources.ports.oracle }),
  ready: (resources) => {
    const refused = bridgesOf(resources).map((bridge) => bridge.available())
    if (refused.some((availability) => availability.ok)) return undefined
    return refused.map((availability) => (availability.ok ? '' : availability.reason)).join(' ')
  },
})
