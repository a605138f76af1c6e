import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { ExecuteBody, PositionsQuery, QuoteQuery } from './schema.js'
import * as Service from './service.js'

/**
 * Swaps on Uniswap v3 and DeFi positions. Each preflight runs in `transform`, ahead of schema validation and of the
 * payment guard, so an unknown token, a bad amount or address, or a past deadline is answered before any payment.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'swap' })
    .get(
      '/api/v1/swap/quote',
      ({ query, paid }) => Service.quote(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      {
        query: QuoteQuery,
        transform: ({ query }) => Service.preflightQuote(deps, query),
      },
    )
    .get('/api/v1/swap/tokens', () => Service.tokens(deps))
    .post(
      '/api/v1/swap/execute',
      ({ body, paid }) => Service.execute(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: ExecuteBody,
        transform: ({ body }) => Service.preflightExecute(deps, body),
      },
    )
    .get('/api/v1/defi/positions', ({ query }) => Service.positions(deps, query), {
      query: PositionsQuery,
      transform: ({ query }) => Service.preflightPositions(query),
    })
}
