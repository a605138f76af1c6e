import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Keypair } from '@stellar/stellar-sdk'
import { type Address, createWalletClient, decodeFunctionData, erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { Wallet } from 'xrpl'
import type { Chains } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import * as Catalog from '../../core/Catalog.js'
import type { ValidationError } from '../../core/Errors.js'
import * as Escrow from '../../core/Escrow.js'
import * as Uniswap from '../../core/Uniswap.js'
import * as Units from '../../core/Units.js'
import * as Cron from '../../modules/cron/service.js'
import { startAcross, startLifi } from '../adapters/bridge/bridge-fixture.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'

// Issue 34: no field is read in two units. Every amount field of every route's request, as the machine description
// (OpenAPI) shows it, says its unit for machines (`x-unit`: human or raw) and in words, and does what it says with
// "2500" and "2500.5": a HUMAN field reads them as 2,500 and 2,500.5 tokens and refuses more decimals than the token
// has, a RAW field reads "2500" as 2,500 atomic units and refuses "2500.5"; refusals are 400s naming the field, before
// any payment. Where the answer shows what the handler read (the calldata of an unsigned transaction, a raw amount),
// the call is paid on the devnet and the amount checked.

let gateway: Awaited<ReturnType<typeof paidGateway>>
let openapi: { paths: Record<string, Record<string, Operation>> }
const lifi = startLifi()
const across = startAcross()
/** A supplier and a purchase order of the payer's (supply-chain payments), which the sctp fixtures name. */
const supplyChain = { supplierId: '', poId: '' }

beforeAll(async () => {
  // Stellar and XRP mount with a server named (never reached here: every check below is answered before payment); the
  // bridges are local stand-ins of LI.FI and Across.
  gateway = await paidGateway({
    env: {
      HORIZON_URL: 'http://127.0.0.1:9',
      STELLAR_NETWORK_PASSPHRASE: 'Test SDF Network ; September 2015',
      RIPPLED_URL: 'http://127.0.0.1:9',
      LIFI_API_URL: lifi.url,
      ACROSS_API_URL: across.url,
    },
  })
  openapi = await (await gateway.fetch(`${origin}/openapi.json`)).json()
  // An invoice's amounts are read in its order's token, so its checks before payment need the order.
  const supplier = await ok(
    await gateway.paid(payer(), 'POST', '/api/v1/sctp/supplier', { name: 'Bolts Ltd', wallet: someone }),
  )
  supplyChain.supplierId = supplier.supplierId
  const order = { supplierId: supplyChain.supplierId, lines: [{ sku: 'A', quantity: '1', unitPriceRaw: '1' }] }
  supplyChain.poId = (await ok(await gateway.paid(payer(), 'POST', '/api/v1/sctp/po', order))).poId
})
afterAll(async () => {
  await gateway.close()
  lifi.stop()
  across.stop()
})

type Schema = {
  properties?: Record<string, Schema>
  items?: Schema
  anyOf?: Schema[]
  description?: string
  [Units.readingKeyword]?: Units.Reading
}
type Operation = {
  'x-alias-of'?: string
  parameters?: { name: string; in: string; schema?: Schema; description?: string }[]
  requestBody?: { content: { 'application/json': { schema: Schema } } }
}

/** Every field of a schema, by dotted path (`employees[].amount`), through objects, arrays and unions. */
function fieldsOf(schema: Schema | undefined, prefix = ''): [string, Schema][] {
  if (!schema) return []
  const nested = [...(schema.anyOf ?? []), ...(schema.items ? [schema.items] : [])].flatMap((inner) =>
    fieldsOf(inner, schema.items === inner ? `${prefix.replace(/\.$/, '')}[].` : prefix),
  )
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, property]): [string, Schema][] => [
    [`${prefix}${name}`, property],
    ...fieldsOf(property, `${prefix}${name}.`),
  ])
  return [...own, ...nested]
}

/** Every request field of every operation, as `METHOD /path` and the field's path (`?name` for a query parameter). */
function requestFields(): { route: string; field: string; schema: Schema }[] {
  const found = new Map<string, { route: string; field: string; schema: Schema }>()
  for (const [path, methods] of Object.entries(openapi.paths))
    for (const [method, operation] of Object.entries(methods)) {
      if (operation['x-alias-of'] !== undefined) continue
      const route = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`
      const query = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter): [string, Schema] => [
          `?${parameter.name}`,
          { description: parameter.description, ...parameter.schema },
        ])
      const body = fieldsOf(operation.requestBody?.content['application/json'].schema)
      for (const [field, schema] of [...query, ...body]) found.set(`${route} ${field}`, { route, field, schema })
    }
  return [...found.values()]
}

/** Words of a field's last name (`prioritizationFeeLamports` -> prioritization, fee, lamports). */
const wordsOf = (field: string) =>
  (
    field
      .split(/[.?[\]]/)
      .filter(Boolean)
      .at(-1) ?? ''
  )
    .split(/_|(?=[A-Z])/)
    .map((word) => word.toLowerCase())

/** A name made of one of these words is an amount. */
const amountWords = ['amount', 'amounts', 'price', 'pricing', 'total', 'cost', 'proceeds', 'usd', 'fee', 'spend']
/** Names with an amount word that hold no amount, and why. */
const notAmounts: Record<string, string> = {
  'POST /api/v1/tax/calculate transactions[].priceId': "the price source's id of the asset, not a price",
}

/** A request the route accepts, with the amount field given `value`. */
type Call = { method: string; path: string; body?: unknown }

/** What the walk does with one amount field. */
type Fixture = {
  /** `METHOD /path` of the catalog entry. */
  route: string
  /** The field's path as the walk names it (`employees[].amount`, `?amountIn` for a query parameter). */
  field: string
  /** How the handler reads it. */
  unit: Units.Reading
  /** Decimals of the asset a HUMAN field is in; 0 for a RAW one. */
  decimals: number
  /** The field as a refusal names it (`employees.0.amount`). */
  named: string
  /** A valid request with the field set to `value` (a decimal string; a JSON number where the field takes only numbers). */
  call: (value: string) => Call
  /** The amount the handler read, in atomic units, from its answer (paid on the devnet when the route is paid). */
  read?: Read | undefined
}
/** The amount a handler read, in atomic units, from its answer. */
type Read = (answer: any) => bigint

/**
 * A fixture: `request` is the body of a POST with the field set to `value`, or the query of a GET with `$` for it; the
 * refusal names the field as its path with `.0` for `[]` (or `named`).
 */
function fixture(
  unit: Units.Reading,
  decimals: number,
  [route, field, request, read, named]: [string, string, string | ((value: string) => unknown), Read?, string?],
): Fixture {
  const [method, path] = route.split(' ') as [string, string]
  const call = (value: string): Call =>
    typeof request === 'string'
      ? { method, path: `${path}?${request.replace('$', value)}` }
      : { method, path, body: request(value) }
  return { route, field, unit, decimals, named: named ?? field.replace('?', '').replaceAll('[]', '.0'), call, read }
}
const human = (decimals: number, ...rows: Parameters<typeof fixture>[2][]) =>
  rows.map((row) => fixture('human', decimals, row))
const raw = (...rows: Parameters<typeof fixture>[2][]) => rows.map((row) => fixture('raw', 0, row))

const payer = () => gateway.account(1)
const someone = privateKeyToAccount(generatePrivateKey()).address
const stellarSecret = Keypair.random().secret()
const stellarAccount = Keypair.random().publicKey()
const stellarSender = Keypair.random().publicKey()
const xrpSecret = Wallet.generate().seed!
const xrpAccount = Wallet.generate().classicAddress
const xrpSender = Wallet.generate().classicAddress
const wsol = 'So11111111111111111111111111111111111111112'
const usdcMint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

/** The one payment of batch calldata (`sprayToken(token, [{ recipient, amount }])`). */
const sprayed = (data: Hex) => {
  const { args } = decodeFunctionData({ abi: BatchPayment.abi, data })
  return (args as unknown as [Address, { amount: bigint }[]])[1][0]!.amount
}
/** A human decimal of USDC in an answer, in atomic units. */
const usdc = (value: string) => Units.fromDecimal({ value, decimals: 6, field: 'answer' })

const legacyBatch = (value: string) => ({
  token: 'USDC',
  sender: someone,
  recipients: [{ address: someone, amount: value }],
})
const flatBatch = (value: string) => ({ token: 'USDC', sender: someone, recipients: [someone], amounts: [value] })
const quoted = (fields: Record<string, string>) => ({
  quoteResponse: { inputMint: wsol, outputMint: usdcMint, inAmount: '1', outAmount: '1', routePlan: [{}], ...fields },
  userPublicKey: wsol,
})
/** A tax transaction in the original's per-transaction form, or in the lot form, with `fields` over its defaults. */
const taxed = (fields: Record<string, unknown>) => ({
  transactions: [
    { asset: 'ETH', amount: '1', acquisitionDate: '2024-01-01', disposalDate: '2024-06-01', type: 'sale', ...fields },
  ],
})
const lot = (fields: Record<string, unknown>) => ({
  transactions: [{ asset: 'ETH', amount: '1', kind: 'buy', time: '2024-01-01T00:00:00Z', usdValue: '1', ...fields }],
})
/** A purchase order, or an invoice against the payer's, with `fields` over one line or item. */
const ordered = (fields: Record<string, unknown>) => ({ supplierId: supplyChain.supplierId, ...fields })
const invoiced = (fields: Record<string, unknown>) => ({ poId: supplyChain.poId, total: '1', ...fields })
const priced = (value: string) => [{ sku: 'A', quantity: '1', unitPriceRaw: value }]
/** The unit price of the first line of an answered purchase order or invoice, atomic. */
const unitPriceOf = (document: { lines: { unitPriceRaw: string }[] }) => BigInt(document.lines[0]!.unitPriceRaw)
/** A robot as the original gateway registers it, and an update of a robot, with `fields` over its defaults. */
const robot = (fields: Record<string, unknown>) => ({
  name: 'Picker',
  capabilities: ['pick'],
  payment_address: someone,
  connection: { type: 'webhook', webhookUrl: 'https://robot.example/rtp' },
  ...fields,
})
const robotUpdate = (fields: Record<string, unknown>) => ({
  robot_id: `rbt_${'0'.repeat(24)}`,
  payment_address: someone,
  token: 'USDC',
  ...fields,
})

const fixtures: Fixture[] = [
  ...human(6, [
    'GET /free/estimate-batch',
    '?amount',
    'recipients=2&amount=$',
    (answer) => usdc(answer.estimate.totalAmount),
  ]),
  ...human(18, ['GET /free/convert', '?amount', 'amount=$&from=ether&to=wei', (answer) => BigInt(answer.atomic)]),
  ...human(
    6,
    [
      'GET /api/v1/swap/quote',
      '?amountIn',
      'tokenIn=USDC&tokenOut=WETH&amountIn=$',
      (answer) => BigInt(answer.tokenIn.amountRaw),
    ],
    [
      'POST /api/v1/swap/execute',
      'amountIn',
      (value) => ({ tokenIn: 'USDC', tokenOut: 'WETH', amountIn: value, recipient: someone }),
      (answer) => {
        const multicall = decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data: answer.transactions.swap.data })
        const [call] = multicall.args[1] as readonly Hex[]
        return (decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data: call! }).args[0] as { amountIn: bigint })
          .amountIn
      },
    ],
    [
      'POST /api/v1/payroll/execute',
      'employees[].amount',
      (value) => ({ token: 'USDC', sender: someone, employees: [{ address: someone, amount: value }] }),
      (answer) => sprayed(answer.transactions.payroll.data),
    ],
    [
      'POST /api/v1/payroll/estimate',
      'totalAmount',
      (value) => ({ employeeCount: 2, token: 'USDC', totalAmount: value }),
      (answer) => BigInt(answer.feeBreakdown.totalAmountRaw),
    ],
    [
      'POST /api/v1/invoice/create',
      'amount',
      (value) => ({ creator: payer().address, token: 'USDC', amount: value }),
      (answer) => decodeFunctionData({ abi: erc20Abi, data: answer.payment.transaction.data }).args[1] as bigint,
    ],
    [
      'POST /api/v1/escrow/create',
      'amount',
      (value) => ({ depositor: payer().address, beneficiary: someone, token: 'USDC', amount: value }),
      (answer) =>
        decodeFunctionData({ abi: Escrow.abi, data: answer.escrow.transactions.deposit.data }).args![2] as bigint,
    ],
    ['POST /api/v1/batch/execute', 'recipients[].amount', legacyBatch, (answer) => sprayed(answer.transaction.data)],
    ['POST /api/v1/batch/estimate', 'recipients[].amount', legacyBatch, (answer) => usdc(answer.totalAmount)],
  ),
  ...raw(
    ['POST /api/v1/batch/execute', 'amounts', flatBatch, (answer) => sprayed(answer.transaction.data), 'amounts.0'],
    ['POST /api/v1/batch/estimate', 'amounts', flatBatch, (answer) => usdc(answer.totalAmount), 'amounts.0'],
  ),
  ...human(18, [
    'POST /api/v1/agent-wallet/session-key',
    'spendLimitEth',
    (value) => ({ walletAddress: payer().address, sessionKeyAddress: someone, spendLimitEth: value, durationHours: 1 }),
  ]),
  ...raw([
    'POST /api/v1/agent-wallet/session-key',
    'limits[].amount',
    (value) => ({
      key: someone,
      expiresAt: 4_000_000_000,
      period: 86_400,
      limits: [{ token: someone, amount: value }],
    }),
  ]),
  ...human(
    7,
    [
      'POST /api/v1/stellar/batch',
      'recipients[].amount',
      (value) => ({ sender: stellarSender, recipients: [{ address: stellarAccount, amount: value }] }),
    ],
    [
      'POST /api/v1/stellar/batch',
      'amounts',
      (value) => ({ sourceSecret: stellarSecret, recipients: [stellarAccount], amounts: [value] }),
      undefined,
      'amounts.0',
    ],
    ['POST /api/v1/stellar/estimate', 'totalAmount', (value) => ({ recipientCount: 2, totalAmount: value })],
    [
      'POST /api/v1/stellar/estimate',
      'recipients[].amount',
      (value) => ({ recipients: [{ address: stellarAccount, amount: value }] }),
    ],
  ),
  ...human(
    6,
    [
      'POST /api/v1/xrp/batch',
      'recipients[].amount',
      (value) => ({ sender: xrpSender, recipients: [{ address: xrpAccount, amount: value }] }),
    ],
    [
      'POST /api/v1/xrp/batch',
      'amounts',
      (value) => ({ senderSecret: xrpSecret, recipients: [xrpAccount], amounts: [value] }),
      undefined,
      'amounts.0',
    ],
    [
      'POST /api/v1/xrp/estimate',
      'recipients[].amount',
      (value) => ({ sender: xrpSender, recipients: [{ address: xrpAccount, amount: value }] }),
    ],
  ),
  ...raw(
    ['GET /api/v1/solana/aggregator/quote', '?amount', `inputMint=${wsol}&outputMint=${usdcMint}&amount=$`],
    ['POST /api/v1/solana/aggregator/swap-tx', 'quoteResponse.inAmount', (value) => quoted({ inAmount: value })],
    ['POST /api/v1/solana/aggregator/swap-tx', 'quoteResponse.outAmount', (value) => quoted({ outAmount: value })],
    [
      'POST /api/v1/solana/aggregator/swap-tx',
      'prioritizationFeeLamports',
      (value) => ({ ...quoted({}), prioritizationFeeLamports: Number(value) }),
    ],
  ),
  ...raw(
    [
      'GET /api/v1/bridge/quote',
      '?amount',
      `fromChain=base&toChain=arbitrum&token=USDC&amount=$&fromAddress=${someone}`,
      (answer) => BigInt(answer.route.fromChain.amount),
    ],
    ['GET /api/v1/robots/list', '?maxPrice', 'maxPrice=$'],
    [
      'POST /api/v1/robots/register',
      'pricing',
      (value) => robot({ pricing: { pick: value } }),
      undefined,
      'pricing.pick',
    ],
    [
      'PATCH /api/v1/robots/update',
      'pricing',
      (value) => robotUpdate({ pricing: { pick: value } }),
      undefined,
      'pricing.pick',
    ],
  ),
  ...human(18, ['GET /api/v1/robots/list', '?max_price', 'max_price=$']),
  ...human(
    6,
    ['POST /api/v1/robots/register', 'price_per_task', (value) => robot({ price_per_task: value })],
    ['PATCH /api/v1/robots/update', 'price_per_task', (value) => robotUpdate({ price_per_task: value })],
    [
      'POST /api/v1/compute-futures/deposit',
      'amount',
      (value) => ({ amount: value }),
      (answer) => BigInt(answer.amountRaw),
    ],
    [
      'POST /api/v1/compute-futures/refund',
      'amount',
      (value) => ({ amount: value }),
      (answer) => BigInt(answer.refundAmountRaw),
    ],
  ),
  ...human(
    6,
    ...(['unitPrice', 'price'] as const).flatMap((name): Parameters<typeof fixture>[2][] => [
      [
        'POST /api/v1/sctp/po',
        `items[].${name}`,
        (value) => ordered({ items: [{ description: 'Bolts', [name]: value }] }),
        (answer) => unitPriceOf(answer.po),
      ],
      [
        'POST /api/v1/sctp/invoice',
        `items[].${name}`,
        (value) => invoiced({ items: [{ sku: 'A', [name]: value }] }),
        (answer) => unitPriceOf(answer.invoice),
      ],
    ]),
    [
      'POST /api/v1/sctp/po',
      'total',
      // Its line costs what the total says, so that the total is refused only for what it is.
      (value) => ordered({ total: value, lines: priced(/^\d+(\.\d{1,6})?$/.test(value) ? `${usdc(value)}` : '1') }),
      (answer) => BigInt(answer.totalRaw),
    ],
    [
      'POST /api/v1/sctp/invoice',
      'total',
      (value) => invoiced({ total: value, lines: priced('1') }),
      (answer) => BigInt(answer.totalRaw),
    ],
    [
      'POST /api/v1/sctp/pay',
      'amount',
      (value) => ({ supplierId: supplyChain.supplierId, amount: value }),
      (answer) => BigInt(answer.payments[0].amountRaw),
    ],
    [
      'POST /api/v1/sctp/pay',
      'payments[].amount',
      (value) => ({ payments: [{ supplierId: supplyChain.supplierId, amount: value }] }),
      (answer) => BigInt(answer.payments[0].amountRaw),
    ],
  ),
  ...raw(
    [
      'POST /api/v1/sctp/po',
      'lines[].unitPriceRaw',
      (value) => ordered({ lines: priced(value) }),
      (answer) => unitPriceOf(answer.po),
    ],
    [
      'POST /api/v1/sctp/invoice',
      'lines[].unitPriceRaw',
      (value) => invoiced({ lines: priced(value) }),
      (answer) => unitPriceOf(answer.invoice),
    ],
  ),
  ...human(
    18,
    [
      'POST /api/v1/tax/calculate',
      'transactions[].amount',
      (value) => taxed({ amount: value, costBasisUsd: '1', proceedsUsd: '2' }),
    ],
    ...['priceAtAcquisition', 'priceAtDisposal', 'costBasisUsd', 'proceedsUsd'].map(
      (name): Parameters<typeof fixture>[2] => [
        'POST /api/v1/tax/calculate',
        `transactions[].${name}`,
        (value) => taxed({ priceAtAcquisition: '1', priceAtDisposal: '2', [name]: value }),
      ],
    ),
    ...['usdValue', 'price', 'feeUsd'].map((name): Parameters<typeof fixture>[2] => [
      'POST /api/v1/tax/calculate',
      `transactions[].${name}`,
      (value) => lot(name === 'price' ? { usdValue: undefined, price: value } : { [name]: value }),
    ]),
  ),
  // Wei sent with a contract call: the unsigned transaction carries it (simulated on the devnet, to an account).
  ...raw([
    'POST /api/v1/contract/write',
    'value',
    (value) => ({ address: someone, method: 'deposit()', value }),
    (answer) => BigInt(answer.transaction.value),
  ]),
]

const keyOf = (fixture: { route: string; field: string }) => `${fixture.route} ${fixture.field}`

/** Sends a call unpaid, or paid by the payer when `paid`. */
async function send(call: Call, paid = false): Promise<Response> {
  if (paid) return gateway.paid(payer(), call.method, call.path, call.body)
  return gateway.fetch(`${origin}${call.path}`, {
    method: call.method,
    ...(call.body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(call.body) }),
  })
}

/** Whether a route is free (answered without payment). */
const isFree = (route: string) =>
  Catalog.entries.some((entry) => `${entry.method} ${entry.path}` === route && Catalog.isFree(entry))

/** The value with one decimal more than `decimals`: 2500.0000001 for 6. */
const tooPrecise = (decimals: number) => `2500.${'0'.repeat(decimals)}1`

describe('every amount field of the catalog', () => {
  test('behavior: says its unit for machines (x-unit) and in words (HUMAN or RAW), and has a fixture here', () => {
    const amounts = requestFields().filter(
      ({ route, field, schema }) =>
        schema[Units.readingKeyword] !== undefined ||
        (wordsOf(field).some((word) => amountWords.includes(word)) && notAmounts[`${route} ${field}`] === undefined),
    )
    const byKey = new Map(fixtures.map((fixture) => [keyOf(fixture), fixture]))
    const problems = amounts.flatMap(({ route, field, schema }) => {
      const key = `${route} ${field}`
      const unit = schema[Units.readingKeyword]
      if (unit === undefined) return [`${key}: an amount with no x-unit`]
      const word = unit === 'human' ? 'HUMAN' : 'RAW'
      return [
        ...(schema.description?.includes(word) ? [] : [`${key}: its description does not say ${word}`]),
        ...(byKey.get(key)?.unit === unit ? [] : [`${key}: x-unit ${unit} and no fixture here of that unit`]),
      ]
    })
    expect(problems).toEqual([])
    // Every fixture is a field the machine description shows.
    const shown = new Set(amounts.map(({ route, field }) => `${route} ${field}`))
    expect([...byKey.keys()].filter((key) => !shown.has(key))).toEqual([])
  })

  describe.each(fixtures)('$route $field ($unit)', (fixture) => {
    const accepted = isFree(fixture.route) ? 200 : 402

    test('behavior: "2500" is taken, before payment', async () => {
      const response = await send(fixture.call('2500'))
      expect({ status: response.status, body: await response.text() }).toMatchObject({ status: accepted })
    })

    if (fixture.unit === 'human')
      test(`behavior: "2500.5" is taken; ${fixture.decimals} decimals are, one more is a 400 naming the field`, async () => {
        expect((await send(fixture.call('2500.5'))).status).toBe(accepted)
        expect((await send(fixture.call(`2500.${'0'.repeat(fixture.decimals - 1)}1`))).status).toBe(accepted)
        const problem = await refused(await send(fixture.call(tooPrecise(fixture.decimals))), 400)
        expect(problem.field).toBe(fixture.named)
      })
    else
      test('error: "2500.5" is a 400 naming the field, before payment: raw units are integers', async () => {
        const problem = await refused(await send(fixture.call('2500.5')), 400)
        expect(problem.field).toBe(fixture.named)
      })
  })
})

describe('what the handler read', () => {
  const observed = fixtures.filter((fixture) => fixture.read !== undefined)

  beforeAll(async () => {
    // Refunds take the payer's compute-futures credit: 2,500 and 2,500.5 USDC, deposited through the gateway.
    const asked = await ok(
      await send({ method: 'POST', path: '/api/v1/compute-futures/deposit', body: { amount: '5000.5' } }, true),
    )
    const wallet = createWalletClient({
      account: payer(),
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    const { to, data } = asked.transactions[0]
    const transaction = await wallet.sendTransaction({ to, data })
    await gateway.devnet.publicClient.waitForTransactionReceipt({ hash: transaction })
    await ok(await send({ method: 'POST', path: '/api/v1/compute-futures/deposit', body: { transaction } }, true))
  })

  test.each(observed)('$route $field ($unit): "2500" and "2500.5" are read in the documented unit', async (fixture) => {
    const scale = 10n ** BigInt(fixture.decimals)
    const read = async (value: string) =>
      fixture.read!(await ok(await send(fixture.call(value), !isFree(fixture.route))))
    expect(await read('2500')).toBe(2_500n * scale)
    if (fixture.unit === 'human') expect(await read('2500.5')).toBe(25_005n * (scale / 10n))
  })
})

describe("cron's batch and payroll payloads", () => {
  const usdcAddress = privateKeyToAccount(generatePrivateKey()).address
  const batch = { base: { chainId: 8453, address: someone, tokens: { USDC: usdcAddress } } } as unknown as Chains
  const objects = (amount: string) => ({ token: 'USDC', recipients: [{ address: someone, amount }] })
  const flat = (amount: string) => ({ token: 'usdc', recipients: [someone], amounts: [amount] })
  const fieldOf = (refused: Promise<unknown>) =>
    refused.then(
      () => undefined,
      (error: ValidationError) => error.field,
    )

  test('behavior: read as batch/execute reads them, and stored with RAW amounts; a run builds exactly those', async () => {
    for (const [payload, raw] of [
      [objects('2500'), 2_500_000_000n],
      [objects('2500.5'), 2_500_500_000n],
      [flat('2500'), 2_500n],
    ] as const) {
      const stored = await Cron.storedPayload(batch, payload)
      expect(stored).toEqual({ token: 'USDC', recipients: [someone], amounts: [raw.toString()] })
      const transaction = await Cron.buildTransaction(batch, stored)
      expect(sprayed(transaction.data)).toBe(raw)
      expect(transaction).toMatchObject({ token: 'USDC', totalRaw: raw.toString(), value: '0' })
    }
  })

  test('error: RAW "2500.5" and HUMAN past the decimals name their field; a payload stored with objects is refused', async () => {
    expect(await fieldOf(Cron.storedPayload(batch, flat('2500.5')))).toBe('payload.amounts.0')
    expect(await fieldOf(Cron.storedPayload(batch, objects(tooPrecise(6))))).toBe('payload.recipients.0.amount')
    // Stored before this reading, `{ address, amount }` objects held RAW amounts: a run never reads them as HUMAN.
    expect(await fieldOf(Cron.buildTransaction(batch, objects('2500000')))).toBe('payload.recipients')
  })

  test('error: cron/create refuses a payload amount past the decimals with a 400 naming it, before payment', async () => {
    const body = { action: 'batch.execute', schedule: '0 * * * *', payload: objects(tooPrecise(6)) }
    const problem = await refused(await send({ method: 'POST', path: '/api/v1/cron/create', body }), 400)
    expect(problem.field).toBe('payload.recipients.0.amount')
  })
})
