import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
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
    .get(
      '/api/v1/wallet/list',
      ({ query, paid }) => Service.list(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      { query: ListQuery },
    )
    .get(
      '/api/v1/wallet/:walletId',
      ({ params, paid }) => Service.get(Module.withJournal(deps, paid), { ...params, caller: paid.payer }),
      {
        params: WalletParams,
      },
    )
    .get(
      '/api/v1/wallet',
      ({ query, paid }) => Service.get(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      { query: WalletQuery },
    )
    .get(
      '/api/v1/wallet/:walletId/addresses',
      ({ params, paid }) => Service.addresses(Module.withJournal(deps, paid), { ...params, caller: paid.payer }),
      {
        params: WalletParams,
      },
    )
    .get(
      '/api/v1/wallet/addresses',
      ({ query, paid }) => Service.addresses(Module.withJournal(deps, paid), { ...query, caller: paid.payer }),
      {
        query: WalletQuery,
      },
    )
    .post(
      '/api/v1/wallet/sign-message',
      ({ body, paid }) => Service.signMessage(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: SignMessageBody,
        transform: ({ body }) => Service.preflightSign(body),
      },
    )
    .post(
      '/api/v1/wallet/send-transaction',
      ({ body, paid }) => Service.sendTransaction(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: SendTransactionBody,
        transform: ({ body }) => Service.preflightSend(deps, body),
      },
    )
}
