import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { BalanceQuery, DepositBody, ExecuteBody, HistoryQuery, RefundBody } from './schema.js'
import * as Service from './service.js'

/** Compute futures: validate, name the verified payer, call the service. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'compute-futures' })
      .get(
        '/api/v1/compute-futures/balance',
        ({ query, paid }) => Service.balance(deps, { ...query, caller: paid.payer }),
        {
          query: BalanceQuery,
          transform: ({ query }) => {
            Service.namedId(deps, query)
          },
        },
      )
      // Each preflight runs in `transform`, ahead of the payment guard: what cannot run is refused before payment.
      .post(
        '/api/v1/compute-futures/deposit',
        ({ body, paid }) => Service.deposit(deps, { ...body, caller: paid.payer }),
        {
          body: DepositBody,
          transform: ({ body }) => Service.preflightDeposit(deps, (body ?? {}) as Partial<DepositBody>),
        },
      )
      .post(
        '/api/v1/compute-futures/execute',
        ({ body, paid }) => Service.execute(deps, { ...body, caller: paid.payer }),
        {
          body: ExecuteBody,
          transform: ({ body }) => Service.preflightExecute(deps, (body ?? {}) as Partial<ExecuteBody>),
        },
      )
      .get(
        '/api/v1/compute-futures/history',
        ({ query, paid }) => Service.history(deps, { ...query, caller: paid.payer }),
        {
          query: HistoryQuery,
          transform: ({ query }) => {
            Service.namedId(deps, query)
          },
        },
      )
      .post(
        '/api/v1/compute-futures/refund',
        ({ body, paid }) => Service.refund(deps, { ...body, caller: paid.payer }),
        {
          body: RefundBody,
          transform: ({ body }) => Service.preflightRefund(deps, (body ?? {}) as Partial<RefundBody>),
        },
      )
  )
}

/** `GET /api/v1/compute-futures/pricing`: tiers, per-model costs and where deposits go, with or without a treasury. */
export function pricing(deps: Parameters<typeof Service.pricing>[0], bulk: Parameters<typeof Service.pricing>[1]) {
  return new Elysia({ name: 'compute-futures-pricing' }).get('/api/v1/compute-futures/pricing', () =>
    Service.pricing(deps, bulk),
  )
}
