import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { horizon } from '../../../adapters/stellar/horizon.js'
import { openai } from '../../../adapters/upstream/openai.js'
import { rippled } from '../../../adapters/xrp/rippled.js'
import { stubPayment, testGateway } from '../../support/gateway.js'
import { openaiStub } from '../../support/openai.js'
import { startHorizon } from '../stellar/horizon-fixture.js'
import { startRippled } from '../xrp/rippled-fixture.js'

// An open breaker in a vendor adapter is read by the gateway before payment: the route answers 503, never 402, and
// neither the payment nor the vendor is touched.

const stub = openaiStub()
const stellarServer = startHorizon()
const xrpServer = startRippled()
afterAll(() => {
  stub.stop()
  stellarServer.stop()
  xrpServer.stop()
})
beforeEach(() => stub.reset())

const breaker = { threshold: 1, coolDownMs: 60_000 }

async function problem(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  return (await response.json()) as { code: string; detail: string }
}

describe('readiness before payment', () => {
  test('behavior: GET /api/v1/models is a 402 while the upstream is healthy, a 503 once its breaker is open', async () => {
    const { payment, settled } = stubPayment()
    const upstream = openai({
      name: 'the chat upstream',
      baseUrl: stub.url,
      apiKey: 'sk-operator',
      retries: 0,
      breaker,
    })
    const gateway = testGateway({
      env: { CHAT_ALLOWED_MODELS: 'small-model', CHAT_MAX_TOKENS: '64' },
      inference: { chat: upstream },
      payment,
    })
    expect((await gateway.fetch('/api/v1/models')).status).toBe(402)

    stub.state.answer = () => Response.json({ error: { message: 'overloaded' } }, { status: 503 })
    expect(await upstream.complete({ model: 'small-model', messages: [] })).toMatchObject({ ok: false, status: 503 })
    expect(upstream.available().ok).toBe(false)
    const hits = stub.received.length

    const refused = await gateway.fetch('/api/v1/models')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('payment-required')).toBeNull()
    const body = await problem(refused)
    expect(body.code).toBe('upstream_unavailable')
    expect(body.detail).toContain('the chat upstream failed 1 calls in a row; calls resume after')
    // A caller who pays anyway is refused before the payment is verified or settled.
    expect((await gateway.paid('GET', '/api/v1/models')).status).toBe(503)
    expect(settled).toHaveLength(0)
    expect(stub.received).toHaveLength(hits)
  })

  test('behavior: the Stellar and XRP endpoints are refused the same way while Horizon or rippled is failing', async () => {
    const { payment, settled } = stubPayment()
    const stellar = horizon({
      url: stellarServer.url,
      networkPassphrase: stellarServer.networkPassphrase,
      retries: 0,
      breaker,
    })
    const xrp = rippled({ url: xrpServer.url, retries: 0, breaker })
    const gateway = testGateway({ stellar, xrp, payment })
    expect((await gateway.post('/api/v1/stellar/estimate', { recipientCount: 2 })).status).toBe(402)
    expect((await gateway.fetch('/api/v1/xrp/info')).status).toBe(402)

    stellarServer.faults.push('server_error')
    expect(await stellar.feeStats()).toMatchObject({ ok: false, status: 500 })
    xrpServer.faults.push('http_error')
    expect(await xrp.fee()).toMatchObject({ ok: false, status: 503 })
    const received = { stellar: stellarServer.received.length, xrp: xrpServer.received.length }

    const estimate = await gateway.post('/api/v1/stellar/estimate', { recipientCount: 2 })
    expect(estimate.status).toBe(503)
    expect((await problem(estimate)).detail).toContain('Horizon failed 1 calls in a row')
    const info = await gateway.fetch('/api/v1/xrp/info')
    expect(info.status).toBe(503)
    expect((await problem(info)).detail).toContain('rippled failed 1 calls in a row')
    expect((await gateway.paid('GET', '/api/v1/xrp/info')).status).toBe(503)
    expect(settled).toHaveLength(0)
    expect({ stellar: stellarServer.received.length, xrp: xrpServer.received.length }).toEqual(received)
  })
})
