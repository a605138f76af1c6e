import * as Session from '../../core/Session.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The session module, mounted by the gateway. Fails at boot when the secret is too short. */
export function auth(deps: Deps) {
  Session.assertSecret(deps.secret)
  return routes(deps)
}
