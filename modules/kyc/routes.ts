import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { StatusQuery, VerifyBody } from './schema.js'
import * as Service from './service.js'

/** KYC: validate, call the service with the verified payer, nothing else. */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'kyc' })
    .post(
      '/api/v1/kyc/verify',
      ({ body, paid }) => Service.verify(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: VerifyBody,
        transform: ({ body }) => Service.preflightVerify(body as { chain?: unknown }),
      },
    )
    .get(
      '/api/v1/kyc/status',
      ({ query, paid }) => Service.status(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      {
        query: StatusQuery,
        // Ahead of the payment guard: a status call naming nothing is refused before any payment is asked for.
        transform: ({ query }) => Service.preflightStatus(query),
      },
    )
}
