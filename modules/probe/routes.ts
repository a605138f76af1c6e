import { Elysia } from 'elysia'
import { X402CheckBody } from './schema.js'
import * as Service from './service.js'

/** The probe of another service's payment support: validate the body, call the service, nothing else. */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'probe' }).post('/free/x402-check', ({ body }) => Service.check(deps, body), {
    body: X402CheckBody,
  })
}
