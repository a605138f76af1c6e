import { parse } from '../../app/config.js'
import { createGateway } from '../../app/gateway.js'
import { type Logger, silent } from '../../app/log.js'
import { terms } from '../../app/terms.js'

/** A gateway on embedded defaults (plus any overrides), answering in process. */
export function testGateway(
  parameters: {
    env?: Record<string, string>
    oracle?: createGateway.Parameters['oracle']
    /** Durable records; with it the stateful modules validate their input (and answer 503 for want of payments). */
    store?: createGateway.Parameters['store']
    /** The settlement chain's contracts; with a store, invoices and escrows validate their input too. */
    onchain?: createGateway.Parameters['onchain']
    /** Chains for RPC forwarding. */
    chains?: createGateway.Parameters['chains']
    /** Payment settlement; absent, every paid endpoint is unavailable. */
    payment?: createGateway.Parameters['payment']
    /** Where events go. @default silent */
    logger?: Logger
  } = {},
) {
  const config = parse(parameters.env ?? {})
  const gateway = createGateway({
    config,
    terms: terms(config),
    logger: parameters.logger ?? silent(),
    oracle: parameters.oracle,
    store: parameters.store,
    onchain: parameters.onchain,
    chains: parameters.chains,
    payment: parameters.payment,
  })
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
