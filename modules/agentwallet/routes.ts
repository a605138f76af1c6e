import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { InfoQuery, PredictQuery, ProvisionBody, RevokeKeyBody, SessionKeyBody } from './schema.js'
import * as Service from './service.js'

/** Agent wallets: validate, name the verified payer as the owner, call the service. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'agent-wallet' })
    .get(
      '/api/v1/agent-wallet/predict',
      ({ query, paid }) => Service.predict(Module.withJournal(deps, paid), { ...query, payer: paid.payer }),
      {
        query: PredictQuery,
      },
    )
    .post(
      '/api/v1/agent-wallet/provision',
      ({ body, paid }) => Service.provision(Module.withJournal(deps, paid), { ...(body ?? {}), payer: paid.payer }),
      { body: ProvisionBody },
    )
    .get(
      '/api/v1/agent-wallet/info',
      ({ query, paid }) => Service.info(Module.withJournal(deps, paid), { ...query, payer: paid.payer }),
      {
        query: InfoQuery,
      },
    )
    .post(
      '/api/v1/agent-wallet/session-key',
      ({ body, paid }) => Service.sessionKey(Module.withJournal(deps, paid), { ...body, payer: paid.payer }),
      {
        body: SessionKeyBody,
        // Runs ahead of the payment guard: terms the account would refuse are refused before payment.
        transform: ({ body }) => Service.preflightSessionKey(deps, body),
      },
    )
    .post(
      '/api/v1/agent-wallet/revoke-key',
      ({ body, paid }) => Service.revokeKey(Module.withJournal(deps, paid), { ...body, payer: paid.payer }),
      {
        body: RevokeKeyBody,
        transform: ({ body }) => Service.preflightRevokeKey(body),
      },
    )
}
