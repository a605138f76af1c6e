import { describe, expect, test } from 'bun:test'
import type { Oracle } from '../../core/Oracle.js'
import * as Units from '../../core/Units.js'
import { testGateway } from '../support/gateway.js'

const gateway = testGateway()

async function ok(path: string) {
  const response = await gateway.fetch(path)
  expect(response.status).toBe(200)
  return (await response.json()) as any
}

async function refused(response: Response, status: number, field?: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  const body = (await response.json()) as any
  if (field !== undefined) expect(body.field).toBe(field)
  return body
}

describe('GET /free/timestamp', () => {
  test('default: seconds, milliseconds and ISO 8601 of the same instant', async () => {
    const before = Date.now()
    const body = await ok('/free/timestamp')
    expect(body.milliseconds).toBeGreaterThanOrEqual(before)
    expect(body.seconds).toBe(Math.floor(body.milliseconds / 1000))
    expect(new Date(body.iso).getTime()).toBe(body.milliseconds)
  })

  test("behavior: the original gateway's unix and unixMs name the same instant", async () => {
    const body = await ok('/free/timestamp')
    expect(body.unixMs).toBe(body.milliseconds)
    expect(body.unix).toBe(body.seconds)
  })
})

describe('GET /free/uuid', () => {
  test("default: one v4 UUID, a string under the original gateway's `uuids`", async () => {
    const body = await ok('/free/uuid')
    expect(body.uuids).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(body.uuidList).toEqual([body.uuids])
  })

  test('behavior: up to 100 distinct identifiers', async () => {
    const body = await ok('/free/uuid?count=100')
    expect(new Set(body.uuids).size).toBe(100)
    expect(body.uuidList).toEqual(body.uuids)
  })

  test.each(['0', '101', 'abc', '1.5', '-1', ''])('error: count=%p is 400', async (count) => {
    await refused(await gateway.fetch(`/free/uuid?count=${count}`), 400, 'count')
  })
})

describe('GET /free/convert', () => {
  test('behavior: native units convert exactly', async () => {
    expect((await ok('/free/convert?amount=1.5&from=ether&to=wei')).amount).toBe('1500000000000000000')
    expect((await ok('/free/convert?amount=1&from=wei&to=ether')).amount).toBe('0.000000000000000001')
    expect((await ok('/free/convert?amount=1&from=SOL&to=lamports')).amount).toBe('1000000000')
    expect((await ok('/free/convert?amount=123456&from=drops&to=xrp')).amount).toBe('0.123456')
    expect((await ok('/free/convert?amount=1&from=xlm&to=stroops')).amount).toBe('10000000')
  })

  test("behavior: the original gateway's input, output and type", async () => {
    expect(await ok('/free/convert?amount=1.50&from=ETH&to=gwei')).toMatchObject({
      input: { amount: '1.5', currency: 'eth' },
      output: { amount: '1500000000', currency: 'gwei' },
      type: 'unit_conversion',
    })
  })

  test('error: a fraction of a base unit is 400', async () => {
    await refused(await gateway.fetch('/free/convert?amount=0.5&from=wei&to=ether'), 400, 'amount')
  })

  test('error: fiat and cross-asset conversion are 503 until an oracle is configured', async () => {
    const body = await refused(await gateway.fetch('/free/convert?amount=1&from=ether&to=usd'), 503)
    expect(body.code).toBe('upstream_unavailable')
  })

  test('behavior: with an oracle, cross-asset conversion uses its prices and says so', async () => {
    const prices: Record<string, string> = { ETH: '3000', SOL: '150', EUR: '1.08' }
    const oracle: Oracle = {
      async usdPrice(symbol) {
        const usd = prices[symbol]
        if (!usd) return { ok: false, reason: 'unknown_asset', message: `No price for ${symbol}.` }
        return { ok: true, usd, source: 'test', observedAt: new Date(0) }
      },
    }
    const priced = testGateway({ oracle })
    const usd = (await (await priced.fetch('/free/convert?amount=1.5&from=ether&to=usd')).json()) as any
    expect(usd.amount).toBe('4500')
    expect(usd.exact).toBe(false)
    expect(usd.rates.ETH.usd).toBe('3000')
    expect(usd).toMatchObject({
      input: { amount: '1.5', currency: 'ether' },
      output: { amount: '4500', currency: 'usd' },
      type: 'price_conversion',
      rate: '3000',
    })
    const lamports = (await (await priced.fetch('/free/convert?amount=1&from=ether&to=lamports')).json()) as any
    expect(lamports.amount).toBe('20000000000')
    await refused(await priced.fetch('/free/convert?amount=1&from=DOGE&to=usd'), 400, 'from')
  })
})

describe('GET /free/validate-address', () => {
  test('behavior: an EIP-55 address matches evm only, and the others say why not', async () => {
    const body = await ok('/free/validate-address?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')
    expect(body.valid).toBe(true)
    expect(body.matches).toEqual(['evm'])
    expect(body.results.solana.valid).toBe(false)
    expect(typeof body.results.solana.reason).toBe('string')
  })

  test('behavior: a broken checksum is reported', async () => {
    const body = await ok('/free/validate-address?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')
    expect(body.valid).toBe(false)
    expect(body.results.evm.reason).toBe('bad_checksum')
  })

  test('error: an unknown family is 400', async () => {
    await refused(await gateway.fetch('/free/validate-address?address=x&family=bitcoin'), 400, 'family')
  })

  test("behavior: the original gateway's chain, checksummed, format and input", async () => {
    const lower = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'
    expect(await ok(`/free/validate-address?address=${lower}&chain=base`)).toMatchObject({
      valid: true,
      chain: 'evm',
      checksummed: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      format: 'ERC-55',
      input: lower,
      requestedChain: 'base',
    })
    const solana = '11111111111111111111111111111111'
    expect(await ok(`/free/validate-address?address=${solana}&chain=sol`)).toMatchObject({
      valid: true,
      chain: 'solana',
      checksummed: solana,
    })
    expect(await ok(`/free/validate-address?address=${solana}&chain=base-mainnet`)).toMatchObject({
      valid: false,
      chain: null,
      checksummed: null,
    })
    expect((await ok(`/free/validate-address?address=${lower}`)).requestedChain).toBe('auto-detect')
  })

  test('error: an unknown chain, or both chain and family, is 400', async () => {
    await refused(await gateway.fetch('/free/validate-address?address=x&chain=bitcoin'), 400, 'chain')
    await refused(await gateway.fetch('/free/validate-address?address=x&chain=evm&family=evm'), 400, 'family')
  })
})

describe('POST /free/validate-batch', () => {
  const recipient = (index: number) => `0x${(index + 1).toString(16).padStart(40, '0')}`

  test('behavior: a valid payload is summarised with the 0.3% fee, human and raw', async () => {
    const response = await gateway.post('/free/validate-batch', {
      version: '1.0',
      chain: 'base',
      token: 'USDC',
      recipients: [
        { address: recipient(0), amount: '1.5' },
        { address: recipient(1), amount: '0.5' },
      ],
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body.valid).toBe(true)
    expect(body.summary.recipientCount).toBe(2)
    expect(body.summary).toMatchObject({ totalAmount: '2', totalAmountRaw: '2000000', fee: '0.006', feeRaw: '6000' })
  })

  test('behavior: the original gateway\'s BPA payload (recipients[].to, human amounts) is valid: "2500" is 2,500 USDC', async () => {
    // As the original's Python client and MCP tool send it: chain, token, sender and {to, amount} in whole tokens.
    const response = await gateway.post('/free/validate-batch', {
      chain: 'base',
      token: 'USDC',
      sender: recipient(9),
      recipients: [
        { to: recipient(0), amount: '2500' },
        { to: recipient(1), amount: 1.5 },
      ],
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body.errors).toEqual([])
    expect(body.valid).toBe(true)
    expect(body.summary).toMatchObject({
      chain: 'base',
      token: 'USDC',
      recipientCount: 2,
      uniqueAddresses: 2,
      totalAmount: '2501.5',
      totalAmountRaw: 2_501_500_000n.toString(),
      bpaVersion: '1.0',
    })
  })

  test("behavior: OpenAPI documents recipients' amount as a human decimal of the token", async () => {
    const openapi = (await (await gateway.fetch('/openapi.json')).json()) as any
    const schema = openapi.paths['/free/validate-batch'].post.requestBody.content['application/json'].schema
    expect(schema.properties.recipients.description).toContain('HUMAN decimal of the token')
    expect(Object.keys(schema.properties)).toContain('sender')
  })

  test('error: an amount with more decimals than the token has is reported naming its field', async () => {
    const response = await gateway.post('/free/validate-batch', {
      chain: 'base',
      token: 'USDC',
      recipients: [{ to: recipient(0), amount: '2500.0000001' }],
    })
    const body = (await response.json()) as any
    expect(body.valid).toBe(false)
    expect(body.errors).toEqual([
      { field: 'recipients.0.amount', code: 'invalid_amount', message: 'has at most 6 decimal places here' },
    ])
  })

  test('behavior: every problem is reported with its field, duplicates as warnings', async () => {
    const response = await gateway.post('/free/validate-batch', {
      chain: 'ethereum',
      recipients: [
        { address: recipient(0), amount: 'abc' },
        { address: recipient(0), amount: '10' },
        { address: recipient(0), amount: '10' },
        { address: 'nope', amount: '10' },
      ],
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as any
    expect(body.valid).toBe(false)
    const fields = body.errors.map((error: any) => error.field)
    expect(fields).toContain('chain')
    expect(fields).toContain('recipients.0.amount')
    expect(fields).toContain('recipients.3.address')
    expect(body.warnings.map((warning: any) => warning.code)).toContain('duplicate_recipient')
  })

  test('error: 201 recipients are refused in the report', async () => {
    const recipients = Array.from({ length: 201 }, (_, index) => ({ address: recipient(index), amount: '1' }))
    const body = (await (await gateway.post('/free/validate-batch', { recipients })).json()) as any
    expect(body.valid).toBe(false)
    expect(body.errors.map((error: any) => error.field)).toContain('recipients')
  })

  test('error: a body that is not a JSON object is 400', async () => {
    await refused(await gateway.post('/free/validate-batch', [1, 2]), 400)
    await refused(await gateway.fetch('/free/validate-batch', { method: 'POST' }), 400)
  })
})

describe('GET /free/estimate-batch', () => {
  test('behavior: gas grows with recipients and native transfers are priced apart', async () => {
    const one = await ok('/free/estimate-batch?recipientCount=1')
    const many = await ok('/free/estimate-batch?recipientCount=200')
    expect(BigInt(many.estimatedGas)).toBeGreaterThan(BigInt(one.estimatedGas))
    expect(one.chain).toBe('base')
    expect(one.token).toBe('USDC')
    const eth = await ok('/free/estimate-batch?recipientCount=10&token=ETH')
    expect(eth.token).toBe('ETH')
  })

  test("behavior: the original gateway's call, recipients and a USD amount, answers under estimate", async () => {
    const body = await ok('/free/estimate-batch?recipients=10&chain=base&amount=2500')
    expect(body.estimate).toMatchObject({
      chain: 'base',
      recipients: 10,
      totalAmount: '2500',
      protocolFeeBps: 30,
      protocolFeeUSD: '7.5',
      bpaVersion: '1.0',
    })
    expect(body.recipientCount).toBe(10)
    // No node and no oracle here: the gas is not priced, and the answer says why rather than guessing.
    expect(body.estimate.estimatedGasUSD).toBeNull()
    expect(typeof body.estimate.gasPriceUnavailable).toBe('string')
    expect((await ok('/free/estimate-batch?recipients=1&chain=base-mainnet')).estimate.totalAmount).toBeNull()
  })

  test('behavior: with a node and an oracle, the gas is priced at the live gas price and ETH price, rounded up', async () => {
    const oracle: Oracle = {
      async usdPrice(symbol) {
        return symbol === 'ETH'
          ? { ok: true, usd: '3000', source: 'test', observedAt: new Date(0) }
          : { ok: false, reason: 'unknown_asset', message: 'none' }
      },
    }
    // 1 gwei: 10^9 wei per gas.
    const node = {
      name: 'base',
      chainId: 8453,
      request: async () => ({ ok: true as const, result: '0x3b9aca00' }),
    }
    const priced = testGateway({ oracle, chains: [node] })
    const body = (await (await priced.fetch('/free/estimate-batch?recipients=5&amount=100')).json()) as any
    const gas = BigInt(body.estimatedGas)
    // gas x 10^9 wei x 3000 USD / 10^18, in micro-dollars rounded up.
    const micro = (gas * 10n ** 9n * 3000n + 10n ** 12n - 1n) / 10n ** 12n
    expect(body.estimate.estimatedGasUSD).toBe(Units.toDecimal(micro, 6))
    expect(body.estimate.estimatedTotalCostUSD).toBe(Units.toDecimal(micro + 300_000n, 6))
  })

  test.each([
    ['recipients=5&amount=2500.0000001', 'amount'],
    ['recipients=5&recipientCount=5', 'recipientCount'],
    ['chain=base', 'recipients'],
    ['recipients=0', 'recipients'],
    ['recipients=201', 'recipients'],
  ])("error: the original gateway's %s is 400 naming %s", async (query, field) => {
    await refused(await gateway.fetch(`/free/estimate-batch?${query}`), 400, field)
  })

  test.each([
    ['recipientCount=0', 'recipientCount'],
    ['recipientCount=201', 'recipientCount'],
    ['recipientCount=abc', 'recipientCount'],
    ['recipientCount=5&chain=ethereum', 'chain'],
    ['recipientCount=5&chain=peaq&token=USDT', 'token'],
  ])('error: %s is 400 naming %s', async (query, field) => {
    await refused(await gateway.fetch(`/free/estimate-batch?${query}`), 400, field)
  })
})
