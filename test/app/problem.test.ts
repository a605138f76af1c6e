import { describe, expect, test } from 'bun:test'
import * as Problem from '../../app/problem.js'
import {
  ConflictError,
  InvalidTransitionError,
  PaymentRefusedError,
  PaymentRequiredError,
  type Refusal,
  SettlementPendingError,
} from '../../core/Errors.js'

const refusals: Refusal[] = [
  'invalid_signature',
  'amount_mismatch',
  'wrong_payee',
  'wrong_network',
  'wrong_asset',
  'not_yet_valid',
  'expired',
  'replayed',
  'insufficient_funds',
  'challenge_mismatch',
  'malformed_payment',
  'settlement_failed',
]

describe('statusOf', () => {
  test('behavior: every payment refusal is a 402, an undecided settlement a 503', () => {
    for (const reason of refusals) expect([reason, Problem.statusOf[reason]]).toEqual([reason, 402])
    expect(Problem.statusOf.payment_required).toBe(402)
    expect(Problem.statusOf.settlement_pending).toBe(503)
  })

  test('behavior: an invalid transition is a 409 conflict, like any conflict', () => {
    expect(new InvalidTransitionError('no').code).toBe(new ConflictError('no').code)
    expect(Problem.statusOf[new InvalidTransitionError('no').code]).toBe(409)
  })
})

describe('fromError', () => {
  test('behavior: a refused payment is a 402 problem with the reason as its code and the offer as extensions', () => {
    const error = new PaymentRefusedError(
      { reason: 'amount_mismatch', message: 'wrong amount' },
      { details: { x402Version: 1, error: 'amount_mismatch', accepts: [] } },
    )
    expect(Problem.fromError(error, '/api/v1/x')).toEqual({
      x402Version: 1,
      error: 'amount_mismatch',
      accepts: [],
      type: 'https://errors.agent-gateway.dev/amount_mismatch',
      title: 'Payment refused',
      status: 402,
      detail: 'wrong amount',
      code: 'amount_mismatch',
      instance: '/api/v1/x',
    })
  })

  test('behavior: a call without payment is payment_required', () => {
    expect(Problem.fromError(new PaymentRequiredError('pay'))).toMatchObject({ status: 402, code: 'payment_required' })
  })

  test('behavior: settlement_pending refused as data and raised as an error is the same 503 problem', () => {
    const asRefusal = Problem.fromError(new PaymentRefusedError({ reason: 'settlement_pending', message: 'later' }))
    const asError = Problem.fromError(new SettlementPendingError('later'))
    expect(asRefusal.status).toBe(503)
    expect(asError.status).toBe(503)
  })

  test('behavior: the internal problem shows no fault', () => {
    expect(Problem.internal('/x')).toEqual({
      type: 'https://errors.agent-gateway.dev/internal_error',
      title: 'Internal error',
      status: 500,
      detail: 'The gateway failed to complete the request. Nothing was charged.',
      code: 'internal_error',
      instance: '/x',
    })
  })
})

describe('toResponse', () => {
  test('behavior: a header in another letter case replaces the default rather than repeating it', async () => {
    const response = Problem.toResponse(Problem.internal(), { 'Cache-Control': 'no-store' })
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(response.status).toBe(500)
  })
})

describe('template', () => {
  test('default: renders what fromError and toResponse write, byte for byte', async () => {
    const error = new PaymentRequiredError('GET /api/v1/x costs $0.001 in USDC; pay with x402 or MPP.', {
      details: {
        x402Version: 1,
        error: 'X-PAYMENT header is required',
        accepts: [{ scheme: 'exact', note: '"quoted" \\' }],
      },
    })
    const { status, render } = Problem.template(error)
    expect(status).toBe(402)
    for (const requestId of ['3f0c', undefined]) {
      const expected = Problem.toResponse(Problem.fromError(error, '/api/v1/x"y', requestId))
      const rendered = Problem.respond(status, render('/api/v1/x"y', requestId))
      expect(await rendered.text()).toBe(await expected.text())
      expect([...rendered.headers]).toEqual([...expected.headers])
    }
  })

  test('error: details that name instance or requestId are refused at build time', () => {
    expect(() => Problem.template(new PaymentRequiredError('x', { details: { instance: '/elsewhere' } }))).toThrow()
    expect(() => Problem.template(new PaymentRequiredError('x', { details: { requestId: 'mine' } }))).toThrow()
  })
})
