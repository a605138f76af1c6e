import * as Module from '../../core/Module.js'
import * as Session from '../../core/Session.js'
import { routes } from './routes.js'
import type { Deps } from './service.js'

/** The session module, mounted by the gateway. Fails at boot when the secret is too short. */
export function auth(deps: Deps) {
  Session.assertSecret(deps.secret)
  return routes(deps)
}

/** Session tokens (`/api/v1/auth/*`): revocations in the store, signed with the deployment's session secret. */
export const manifest = Module.define({
  name: 'auth',
  paths: ['/api/v1/auth/'],
  needs: ['store', 'sessionSecret'],
  routes: ({ ports }) => auth({ store: ports.store, secret: ports.sessionSecret }),
})
