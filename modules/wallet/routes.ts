import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
import { CreateBody, ListQuery, SendTransactionBody, SignMessageBody, WalletParams, WalletQuery } from './schema.js'
import * as Service from './service.js'

/**
 * Custodial wallets: created free by a signed request of their owner, then listed, read, signed and sent with by that
 * owner's payments only. A `networkId` is judged in `transform`, before the payment guard.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'wallet' })
    .post(
      '/api/v1/wallet/create',
      async ({ body, set }) => {
        const answer = await Service.create(deps, body)
        if ('walletId' in answer) set.status = 201
        return answer
      },
      { body: CreateBody },
    )
    .get('/api/v1/wallet/list', ({ query, caller }) => Service.list(deps, { ...query, caller }), { query: ListQuery })
    .get('/api/v1/wallet/:walletId', ({ params, caller }) => Service.get(deps, { ...params, caller }), {
      params: WalletParams,
    })
    .get('/api/v1/wallet', ({ query, caller }) => Service.get(deps, { ...query, caller }), { query: WalletQuery })
    .get('/api/v1/wallet/:walletId/addresses', ({ params, caller }) => Service.addresses(deps, { ...params, caller }), {
      params: WalletParams,
    })
    .get('/api/v1/wallet/addresses', ({ query, caller }) => Service.addresses(deps, { ...query, caller }), {
      query: WalletQuery,
    })
    .post('/api/v1/wallet/sign-message', ({ body, caller }) => Service.signMessage(deps, { ...body, caller }), {
      body: SignMessageBody,
      transform: ({ body }) => Service.preflightSign(body),
    })
    .post('/api/v1/wallet/send-transaction', ({ body, caller }) => Service.sendTransaction(deps, { ...body, caller }), {
      body: SendTransactionBody,
      transform: ({ body }) => Service.preflightSend(deps, body),
    })
}
