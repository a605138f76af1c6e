import { Elysia } from 'elysia'
import { HistoryQuery, WalletQuery } from './schema.js'
import * as Service from './service.js'

/** Wallet analytics on the settlement chain: transaction history and a classification from facts. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'analytics' })
    .get('/api/v1/analytics/txhistory', ({ query }) => Service.txhistory(deps, query), { query: HistoryQuery })
    .get('/api/v1/analytics/wallet', ({ query }) => Service.wallet(deps, query), { query: WalletQuery })
}
