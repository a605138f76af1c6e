import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { InfoQuery, PredictQuery, ProvisionBody, RevokeKeyBody, SessionKeyBody } from './schema.js'
import * as Service from './service.js'

/** Agent wallets: validate, name the verified payer as the owner, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'agent-wallet' })
    .get('/api/v1/agent-wallet/predict', ({ query, caller }) => Service.predict(deps, { ...query, payer: caller }), {
      query: PredictQuery,
    })
    .post(
      '/api/v1/agent-wallet/provision',
      ({ body, caller }) => Service.provision(deps, { ...(body ?? {}), payer: caller }),
      { body: ProvisionBody },
    )
    .get('/api/v1/agent-wallet/info', ({ query, caller }) => Service.info(deps, { ...query, payer: caller }), {
      query: InfoQuery,
    })
    .post(
      '/api/v1/agent-wallet/session-key',
      ({ body, caller }) => Service.sessionKey(deps, { ...body, payer: caller }),
      {
        body: SessionKeyBody,
        // Runs ahead of the payment guard: terms the account would refuse are refused before payment.
        transform: ({ body }) => Service.preflightSessionKey(deps, body),
      },
    )
    .post(
      '/api/v1/agent-wallet/revoke-key',
      ({ body, caller }) => Service.revokeKey(deps, { ...body, payer: caller }),
      {
        body: RevokeKeyBody,
        transform: ({ body }) => Service.preflightRevokeKey(body),
      },
    )
}
