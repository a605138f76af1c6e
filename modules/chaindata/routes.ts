import { Elysia } from 'elysia'
import { BalancesQuery, NonceQuery } from './schema.js'
import * as Service from './service.js'

/** Chain data across EVM chains: gas, liveness, nonces, curated tokens and wallet balances. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'chaindata' })
    .get('/free/gas', () => Service.gasResponse(deps))
    .get('/api/v1/oracle/gas', () => Service.oracleGas(deps))
    .get('/free/chain-status', () => Service.chainStatus(deps))
    .get('/free/nonce', ({ query }) => Service.nonce(deps, query), { query: NonceQuery })
    .get('/api/v1/tokens', () => Service.tokens(deps))
    .get('/api/v1/balances', ({ query }) => Service.balances(deps, query), {
      query: BalancesQuery,
      transform: ({ query }) => {
        Service.assertTokensOnBase(query)
      },
    })
}
