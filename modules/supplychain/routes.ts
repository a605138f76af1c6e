import { Elysia } from 'elysia'
import type * as Module from '../../core/Module.js'
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
      .post('/api/v1/sctp/supplier', ({ body, caller }) => Service.supplier(deps, { ...body, caller }), {
        body: SupplierBody,
        transform: ({ body }) => Service.preflightSupplier(deps, body),
      })
      .get('/api/v1/sctp/supplier/:id', ({ params }) => Service.getSupplier(deps, params), { params: SupplierParams })
      .get('/api/v1/sctp/supplier', ({ query }) => Service.getSupplier(deps, query), { query: SupplierQuery })
      .post('/api/v1/sctp/po', ({ body, caller }) => Service.po(deps, { ...body, caller }), {
        body: PoBody,
        transform: ({ body }) => Service.preflightPo(deps, body),
      })
      .get('/api/v1/sctp/po/:id', ({ params, caller }) => Service.getPo(deps, { id: params.id, caller }), {
        params: PoParams,
      })
      .get('/api/v1/sctp/po', ({ query, caller }) => Service.getPo(deps, { id: query.id, caller }), { query: PoQuery })
      .post('/api/v1/sctp/invoice/verify', ({ body, caller }) => Service.verify(deps, { ...body, caller }), {
        body: VerifyBody,
      })
      .post('/api/v1/sctp/invoice', ({ body, caller }) => Service.invoice(deps, { ...body, caller }), {
        body: InvoiceBody,
        transform: ({ body }) => Service.preflightInvoice(deps, body),
      })
      .get('/api/v1/sctp/invoice/:id', ({ params, caller }) => Service.getInvoice(deps, { id: params.id, caller }), {
        params: InvoiceParams,
      })
      .get('/api/v1/sctp/invoice', ({ query, caller }) => Service.getInvoice(deps, { id: query.id, caller }), {
        query: InvoiceQuery,
      })
      .post('/api/v1/sctp/pay', ({ body, caller }) => Service.pay(deps, { ...body, caller }), {
        body: PayBody,
        transform: ({ body }) => Service.preflightPay(body),
      })
  )
}
