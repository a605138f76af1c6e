import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import {
  InvoiceBody,
  InvoiceParams,
  InvoiceQuery,
  PayBody,
  PoBody,
  PoParams,
  PoQuery,
  SupplierBody,
  SupplierParams,
  SupplierQuery,
  VerifyBody,
} from './schema.js'
import * as Service from './service.js'

/** Supply-chain payments: validate, call the service with the verified payer, nothing else. */
export function routes(deps: Service.Deps) {
  return (
    new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'sctp' })
      // The preflights run in `transform`, ahead of the payment guard: one name of each pair (ours or the original
      // gateway's), chains, tokens and every human amount are judged before any payment is asked for.
      .post(
        '/api/v1/sctp/supplier',
        ({ body, paid }) => Service.supplier(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: SupplierBody,
          transform: ({ body }) => Service.preflightSupplier(deps, body),
        },
      )
      .get('/api/v1/sctp/supplier/:id', ({ params }) => Service.getSupplier(deps, params), { params: SupplierParams })
      .get('/api/v1/sctp/supplier', ({ query }) => Service.getSupplier(deps, query), { query: SupplierQuery })
      .post(
        '/api/v1/sctp/po',
        ({ body, paid }) => Service.po(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: PoBody,
          transform: ({ body }) => Service.preflightPo(deps, body),
        },
      )
      .get(
        '/api/v1/sctp/po/:id',
        ({ params, paid }) => Service.getPo(Module.withJournal(deps, paid), { id: params.id, caller: paid.payer }),
        {
          params: PoParams,
        },
      )
      .get(
        '/api/v1/sctp/po',
        ({ query, paid }) => Service.getPo(Module.withJournal(deps, paid), { id: query.id, caller: paid.payer }),
        { query: PoQuery },
      )
      .post(
        '/api/v1/sctp/invoice/verify',
        ({ body, paid }) => Service.verify(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: VerifyBody,
        },
      )
      .post(
        '/api/v1/sctp/invoice',
        ({ body, paid }) => Service.invoice(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: InvoiceBody,
          transform: ({ body }) => Service.preflightInvoice(deps, body),
        },
      )
      .get(
        '/api/v1/sctp/invoice/:id',
        ({ params, paid }) => Service.getInvoice(Module.withJournal(deps, paid), { id: params.id, caller: paid.payer }),
        {
          params: InvoiceParams,
        },
      )
      .get(
        '/api/v1/sctp/invoice',
        ({ query, paid }) => Service.getInvoice(Module.withJournal(deps, paid), { id: query.id, caller: paid.payer }),
        {
          query: InvoiceQuery,
        },
      )
      .post(
        '/api/v1/sctp/pay',
        ({ body, paid }) => Service.pay(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
        {
          body: PayBody,
          transform: ({ body }) => Service.preflightPay(body),
        },
      )
  )
}
