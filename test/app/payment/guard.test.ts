import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as Module from '../../../core/Module.js'
import { stubPayment, testGateway } from '../../support/gateway.js'

/** A module serving one fixed-price entry, `GET /api/v1/models`, with nothing behind it. */
const models = Module.define({
  name: 'models',
  paths: ['/api/v1/models'],
  needs: [],
  routes: () => new Elysia().get('/api/v1/models', () => ({ models: [], count: 0 })),
})

describe('guard', () => {
  test("error: the ledger refusing the guard's own move is a 500 internal_error, not a 409, and nothing settles", async () => {
    const { payment, settled } = stubPayment()
    const apply = payment.ledger.apply
    // As if the claim were released under the handler (its process taken for dead): settle no longer applies.
    payment.ledger.apply = async (key, event) => {
      if (event.type === 'settle') await apply(key, { type: 'release', reason: 'taken for dead' })
      return apply(key, event)
    }
    const gateway = testGateway({ payment, families: [models] })
    const response = await gateway.paid('GET', '/api/v1/models', undefined, privateKeyToAccount(generatePrivateKey()))
    expect(response.status).toBe(500)
    expect(await response.json()).toMatchObject({ code: 'internal_error' })
    expect(settled).toEqual([])
  })

  test("behavior: every answer carries the CORS headers and its request id, once: a 402, a paid answer, a handler's own Response", async () => {
    const own = Module.define({
      name: 'models',
      paths: ['/api/v1/models'],
      needs: [],
      routes: () =>
        new Elysia().get(
          '/api/v1/models',
          () => new Response('{"models":[],"count":0}', { headers: { 'content-type': 'application/json' } }),
        ),
    })
    for (const family of [models, own]) {
      const gateway = testGateway({ payment: stubPayment().payment, families: [family] })
      const offer = await gateway.fetch('/api/v1/models', { headers: { 'x-request-id': 'offer-1' } })
      const paid = await gateway.paid('GET', '/api/v1/models', undefined, privateKeyToAccount(generatePrivateKey()))
      expect([offer.status, paid.status]).toEqual([402, 200])
      for (const response of [offer, paid]) {
        expect(response.headers.get('access-control-allow-origin')).toBe('*')
        expect(response.headers.get('access-control-expose-headers')).toBe('*')
        expect(response.headers.get('x-request-id')).toMatch(/^[\w.:-]+$/)
      }
      expect(offer.headers.get('x-request-id')).toBe('offer-1')
      expect(offer.headers.get('payment-required')).toBeTruthy()
      expect(paid.headers.get('payment-response')).toBeTruthy()
      expect(await paid.json()).toEqual({ models: [], count: 0 })
    }
  })
})
