import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import axios, { type AxiosInstance, type AxiosResponse } from 'axios'
import { payingAxios, replayGateway } from './gateway.js'

// The original gateway's Python client (scripts/spraay_client.py, with the smoke test scripts/live_batch_send_smoke.py
// that drives it), replayed from here: the same methods, paths, query and bodies, read as it reads the answers. It
// needs httpx and the x402 SDK, which this machine cannot install, so its live mode (the x402 SDK signing an EIP-3009
// authorization on a 402 and sending it again) pays through @x402/axios instead: the same protocol.

let replay: Awaited<ReturnType<typeof replayGateway>>
/** The client with no key: its dry-run mode, which never pays. */
let dryRun: AxiosInstance
/** The client with EVM_PRIVATE_KEY set: its live mode, which pays. */
let live: AxiosInstance

beforeAll(async () => {
  replay = await replayGateway()
  dryRun = axios.create({ baseURL: replay.url, validateStatus: () => true })
  live = payingAxios(replay.url, replay.payer)
})
afterAll(async () => {
  await replay?.close()
})

/** The batch the smoke test builds by default: 0.01 USDC on base to one recipient, from the payer. */
const batch = () => ({
  recipients: [{ to: replay.values.other, amount: '0.01' }],
  token: 'USDC',
  chain: 'base',
  sender: replay.payer.address,
})

/** The same batch as its to_batch_execute_payload sends it: flat addresses, amounts in base units (USDC: 6 decimals). */
const executePayload = () => ({ ...batch(), recipients: [replay.values.other], amounts: ['10000'] })

/** A paid request in live mode; an error status is the answer, as the client's handler reads it. */
async function paid(method: 'GET' | 'POST', path: string, data?: unknown): Promise<AxiosResponse> {
  try {
    return await live.request({ method, url: path, data, headers: { 'Content-Type': 'application/json' } })
  } catch (error) {
    if (axios.isAxiosError(error) && error.response) return error.response
    throw error
  }
}

describe('the original Python client', () => {
  test("get('/health'), its documented example: free, the original's status, uptime, version, services, network and protocol", async () => {
    const response = await dryRun.get('/health', { headers: { 'Content-Type': 'application/json' } })
    expect(response.status).toBe(200)
    expect(response.data).toMatchObject({
      uptime: expect.stringMatching(/^\d+m \d+s$/),
      version: expect.any(String),
      network: replay.gateway.terms.network,
      protocol: 'x402',
    })
    // Tavily's and Twilio's keys are missing here: degraded, and their services say so.
    expect(response.data.status).toBe('degraded')
    expect(Object.values(response.data.services)).toContain('partial')
  })

  test("get('/free/prices'): free, the spot prices it reads", async () => {
    const response = await dryRun.get('/free/prices', { headers: { 'Content-Type': 'application/json' } })
    expect(response.status).toBe(200)
    expect(response.data.prices).toBeObject()
  })

  test("post('/free/validate-batch', data): the BPA batch of the smoke test, human amounts, is valid", async () => {
    const response = await dryRun.post('/free/validate-batch', batch())
    expect(response.status).toBe(200)
    expect(response.data).toMatchObject({
      valid: true,
      summary: { token: 'USDC', uniqueAddresses: 1, totalAmount: '0.01', bpaVersion: '1.0' },
    })
  })

  test('dry run: the 402 of batch/execute gives the quote it parses from accepts[0] (amount, network, payTo)', async () => {
    const before = await replay.gateway.balance(replay.payer.address)
    const response = await dryRun.post('/api/v1/batch/execute', executePayload())
    expect(response.status).toBe(402)
    const [option] = response.data.accepts
    // What its _parse_402_response shows: the price in dollars from the atomic amount, the network and the payee.
    expect({ price: Number(option.amount) / 1_000_000, payTo: option.payTo }).toEqual({
      price: 0.02,
      payTo: replay.gateway.terms.payTo,
    })
    expect(option.network).toBeString()
    expect(await replay.gateway.balance(replay.payer.address)).toBe(before)
  })

  test('live: batch/execute with the payload it converts to, paid, answers the unsigned batch and the settlement', async () => {
    const before = await replay.gateway.balance(replay.payer.address)
    const response = await paid('POST', '/api/v1/batch/execute', executePayload())
    expect(response.status).toBe(200)
    expect(response.data).toMatchObject({
      success: true,
      token: { symbol: 'USDC', decimals: 6 },
      batch: { recipientCount: 1, totalAmount: '0.01', feePercent: '0.3%' },
      transaction: { to: response.data.contract, value: '0' },
      approvalRequired: { amount: '10030' },
    })
    // Its _decode_payment_response: the base64 JSON of x-payment-response or payment-response.
    const header = response.headers['x-payment-response'] ?? response.headers['payment-response']
    const settlement = JSON.parse(Buffer.from(header, 'base64').toString())
    expect(settlement).toMatchObject({ success: true, payer: replay.payer.address })
    const mined = await replay.gateway.devnet.publicClient.getTransactionReceipt({ hash: settlement.transaction })
    expect(mined.status).toBe('success')
    expect(before - (await replay.gateway.balance(replay.payer.address))).toBe(20_000n)
  })
})
