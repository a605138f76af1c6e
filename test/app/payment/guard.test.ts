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
})
