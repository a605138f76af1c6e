import { Elysia } from 'elysia'
import * as Module from '../../core/Module.js'
import { ReadBody, WriteBody } from './schema.js'
import * as Service from './service.js'

/**
 * Any contract's functions: read with `eth_call`, written as an unsigned transaction or through the payer's custodial
 * wallet. A key in the body, the chain, the function and its arguments are judged in `transform`, before validation
 * and the payment guard: a key is refused before anything else reads the body.
 */
export function routes(deps: Service.Deps) {
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'contract' })
    .post('/api/v1/contract/read', ({ body }) => Service.read(deps, body), {
      body: ReadBody,
      transform: ({ body }) => Service.preflightRead(deps, body),
    })
    .post(
      '/api/v1/contract/write',
      ({ body, paid }) => Service.write(Module.withJournal(deps, paid), { ...body, caller: paid.payer }),
      {
        body: WriteBody,
        transform: ({ body }) => Service.preflightWrite(deps, body),
      },
    )
}
