import { parse } from '../../app/config.js'
import { createGateway } from '../../app/gateway.js'
import { silent } from '../../app/log.js'
import { terms } from '../../app/terms.js'

/** A gateway on embedded defaults (plus any overrides), answering in process. */
export function testGateway(parameters: { env?: Record<string, string>; oracle?: createGateway.Parameters['oracle'] } = {}) {
  const config = parse(parameters.env ?? {})
  const gateway = createGateway({ config, terms: terms(config), logger: silent(), oracle: parameters.oracle })
  return {
    ...gateway,
    /** Sends a request to the gateway at `http://gateway.test`. */
    fetch: (path: string, init?: RequestInit) => gateway.handle(new Request(`http://gateway.test${path}`, init)),
    /** Sends a JSON body. */
    post: (path: string, body: unknown, method = 'POST') =>
      gateway.handle(
        new Request(`http://gateway.test${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ),
  }
}
