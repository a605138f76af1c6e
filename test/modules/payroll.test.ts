import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Abi,
  type Address,
  createWalletClient,
  decodeFunctionData,
  encodeDeployData,
  erc20Abi,
  getAddress,
  type Hex,
  hexToBigInt,
  type PrivateKeyAccount,
  type PublicClient,
  zeroAddress,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { batchChain } from '../../adapters/chain/batch.js'
import batchArtifact from '../../adapters/chain/contracts/artifacts/BatchPayments.json' with { type: 'json' }
import { devnet } from '../../adapters/chain/devnet.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import type { BatchChain, Chains } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { type Event, events, outboxQueue } from '../../core/Events.js'
import * as Gas from '../../core/Gas.js'
import { manifest } from '../../modules/payroll/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'
import { withEstimateOverrides } from '../support/overrides.js'

let chain: devnet.Devnet
let base: BatchChain
let api: ReturnType<typeof moduleGateway>

beforeAll(async () => {
  chain = await devnet()
  base = port(withEstimateOverrides(chain), chain.batch.address)
  api = pays({ base })
})

/** The payroll family alone in the gateway on `chains`, every paid call paid by alice. */
function pays(chains: Chains) {
  return moduleGateway(manifest, { ports: { batch: chains }, payer: payers.alice })
}

afterAll(async () => {
  await chain.close()
})

function port(client: PublicClient, address: Address, tokens?: Record<string, Address>): BatchChain {
  const configured =
    tokens ?? Object.fromEntries(Object.entries(chain.tokens).map(([symbol, token]) => [symbol, token.address]))
  return batchChain({ client, address, chainId: chain.chainId, tokens: configured })
}

/** POSTs `body` to `path` without any payment. */
function unpaid(path: string, body: unknown): Promise<Response> {
  const headers = { 'content-type': 'application/json' }
  return api.handle(new Request(`http://gateway.test${path}`, { method: 'POST', headers, body: JSON.stringify(body) }))
}

function signer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

let counter = 0
function fresh(count: number): Address[] {
  return Array.from({ length: count }, () =>
    getAddress(`0x${(++counter).toString(16).padStart(6, '0')}${'9a7011'.repeat(6).slice(0, 34)}`),
  )
}

async function send(
  account: PrivateKeyAccount,
  transaction: { to?: Address; data: Hex; value?: string | bigint; gasLimit?: Hex },
) {
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.sendTransaction({
    to: transaction.to,
    data: transaction.data,
    value: BigInt(transaction.value ?? 0n),
    ...(transaction.gasLimit ? { gas: hexToBigInt(transaction.gasLimit) } : {}),
  })
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return receipt
}

function balanceOf(token: Address, address: Address): Promise<bigint> {
  return chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
}

/** Employees paid `amounts`, HUMAN decimals of the token as the original gateway's clients send them. */
const staff = (amounts: string[]) =>
  fresh(amounts.length).map((address, index) => ({ address, amount: amounts[index]!, label: `Employee ${index}` }))

describe('POST /api/v1/payroll/execute', () => {
  test("default: ready for the sender's signature, no hash; the approval and the batch it returns pay every employee exactly", async () => {
    const employer = signer(1)
    const employees = staff(['2500', '3100', '1999.999999'])
    const run = await ok(
      await api.post('/api/v1/payroll/execute', { token: 'USDC', sender: employer.address, employees }),
    )
    const total = 7_599_999_999n
    const fee = (total * 30n) / 10_000n
    expect(run).toMatchObject({
      status: 'ready',
      txHash: null,
      employeeCount: 3,
      success: true,
      contract: chain.batch.address,
      batch: { recipientCount: 3, totalAmount: '7599.999999', feePercent: '0.3%' },
      approvalRequired: { token: chain.token.address, spender: chain.batch.address, amount: String(total + fee) },
      approvalTransaction: { to: chain.token.address, value: '0', chainId: chain.chainId },
      transaction: { to: chain.batch.address, value: '0', chainId: chain.chainId },
    })
    expect(decodeFunctionData({ abi: erc20Abi, data: run.approvalTransaction.data })).toEqual({
      functionName: 'approve',
      args: [chain.batch.address, total + fee],
    })
    expect(decodeFunctionData({ abi: BatchPayment.abi, data: run.transaction.data }).functionName).toBe('sprayToken')

    const feeBefore = await balanceOf(chain.token.address, chain.batch.feeRecipient)
    await send(employer, run.approvalTransaction)
    await send(employer, run.transaction)
    const paid = [2_500_000_000n, 3_100_000_000n, 1_999_999_999n]
    for (const [index, { address }] of employees.entries())
      expect(await balanceOf(chain.token.address, address)).toBe(paid[index]!)
    expect(await balanceOf(chain.token.address, chain.batch.feeRecipient)).toBe(feeBefore + fee)
  })

  test('behavior: the original\'s client: "2500" is 2,500 USDC in the calldata, with the original\'s payroll, breakdown and transactions', async () => {
    const employer = signer(1)
    const [alice, bob] = fresh(2)
    const run = await ok(
      await api.post('/api/v1/payroll/execute', {
        token: 'USDC',
        sender: employer.address,
        employees: [
          { address: alice, amount: '2500', label: 'March salary' },
          { address: bob, amount: 1250.5 },
        ],
        memo: 'March 2026 payroll',
      }),
    )
    const total = 3_750_500_000n
    const fee = (total * 30n) / 10_000n
    const { args } = decodeFunctionData({ abi: BatchPayment.abi, data: run.transactions.payroll.data })
    expect(args as unknown).toEqual([
      chain.token.address,
      [
        { recipient: alice, amount: 2_500_000_000n },
        { recipient: bob, amount: 1_250_500_000n },
      ],
    ])
    expect(run).toMatchObject({
      status: 'ready',
      payroll: {
        token: { symbol: 'USDC', address: chain.token.address, decimals: 6 },
        sender: employer.address,
        employeeCount: 2,
        totalAmount: '3750.5',
        totalAmountRaw: total.toString(),
        protocolFee: '11.2515',
        protocolFeeRaw: fee.toString(),
        protocolFeeBps: 30,
        totalWithFee: '3761.7515',
        totalWithFeeRaw: (total + fee).toString(),
        memo: 'March 2026 payroll',
      },
      breakdown: [
        { index: 0, address: alice, amount: '2500', amountRaw: '2500000000', label: 'March salary' },
        { index: 1, address: bob, amount: '1250.5', amountRaw: '1250500000', label: null },
      ],
      transactions: {
        approval: { to: chain.token.address, value: '0', chainId: chain.chainId },
        payroll: { to: chain.batch.address, value: '0', chainId: chain.chainId },
      },
      balanceCheck: { required: '3761.7515', requiredRaw: (total + fee).toString() },
    })
    expect(decodeFunctionData({ abi: erc20Abi, data: run.transactions.approval.data }).args).toEqual([
      chain.batch.address,
      total + fee,
    ])
    expect(typeof run.balanceCheck.sufficient).toBe('boolean')
  })

  test('error: more decimals than the token has is a 400 naming the employee amount, before payment', async () => {
    const [address] = fresh(1)
    const body = { token: 'USDC', sender: signer(1).address, employees: [{ address, amount: '2500.0000001' }] }
    const problem = await refused(await unpaid('/api/v1/payroll/execute', body), 400)
    expect(problem).toMatchObject({ field: 'employees.0.amount', detail: expect.stringContaining('6 decimal places') })
    const twin = { ...body, employees: [{ address, amount: '2500.000001' }] }
    expect((await unpaid('/api/v1/payroll/execute', twin)).status).toBe(402)
  })

  test('behavior: in ether, one sprayETH transaction and no approval', async () => {
    const employees = staff(['0.001', '0.002'])
    const run = await ok(
      await api.post('/api/v1/payroll/execute', { token: 'ETH', sender: signer(2).address, employees }),
    )
    expect(run).toMatchObject({
      status: 'ready',
      txHash: null,
      token: { symbol: 'ETH', address: zeroAddress, isETH: true },
      transactions: { approval: null },
    })
    expect(run.approvalRequired).toBeUndefined()
    expect(run.approvalTransaction).toBeUndefined()
    expect(run.transaction.value).toBe('3009000000000000')
    await send(signer(2), run.transaction)
    const paid = [1_000_000_000_000_000n, 2_000_000_000_000_000n]
    for (const [index, { address }] of employees.entries())
      expect(await chain.publicClient.getBalance({ address })).toBe(paid[index]!)
  })

  test('error: a bad employee names the employee and the field', async () => {
    const sender = signer(1).address
    const [good] = staff(['1'])
    const cases = [
      [[good, { address: good!.address, amount: '1.5.0' }], 'employees.1.amount', 'not a decimal amount'],
      [[good, { address: good!.address, amount: '0' }], 'employees.1.amount', 'greater than 0'],
      [[good, { address: good!.address, amount: '1e3' }], 'employees.1.amount', 'scientific notation'],
      [[{ address: '0x1234', amount: '1' }], 'employees.0.address', 'not an EVM address'],
      [[], 'employees', 'must not be empty'],
      [staff(Array(201).fill('1')), 'employees', 'at most 200'],
      [[{ address: good!.address }], 'employees.0.amount', 'required'],
      [['not an object'], 'employees.0', 'must be an object'],
    ] as const
    for (const [employees, field, detail] of cases) {
      const problem = await refused(
        await api.post('/api/v1/payroll/execute', { token: 'USDC', sender, employees }),
        400,
      )
      expect(problem.field).toBe(field)
      expect(problem.detail).toContain(detail)
    }
  })

  test('error: a chain outside the allowlist is 400; peaq unconfigured is 503', async () => {
    const body = { token: 'USDC', sender: signer(1).address, employees: staff(['1']) }
    expect(await refused(await api.post('/api/v1/payroll/execute', { ...body, chain: 'solana' }), 400)).toMatchObject({
      field: 'chain',
    })
    expect(await refused(await api.post('/api/v1/payroll/execute', { ...body, chain: 'peaq' }), 503)).toMatchObject({
      reason: 'not_configured',
    })
  })
})

describe('events', () => {
  test("behavior: the built run is the payer's payroll.built", async () => {
    const queue = memoryQueue()
    const app = moduleGateway(manifest, {
      ports: { batch: { base }, queue, events: events({ queue }) },
      payer: payers.alice,
    })
    const employees = staff(['1', '2'])
    const answer = await ok(
      await app.post('/api/v1/payroll/execute', { token: 'USDC', sender: signer(1).address, employees }),
    )
    const recorded = await queue.claim<Event>(outboxQueue, { limit: 10 })
    expect(recorded.find((item) => item.payload.type === 'payroll.built')?.payload).toMatchObject({
      owner: payers.alice,
      data: { chain: 'base', recipients: 2, totalRaw: '3009000', transaction: answer.transaction },
    })
  })
})

describe('POST /api/v1/payroll/estimate', () => {
  test("default: the gas model's ceiling by employee count and the contract's fee rate", async () => {
    const { estimate } = await ok(await api.post('/api/v1/payroll/estimate', { employeeCount: 50 }))
    const model = Gas.estimate({ recipientCount: 50, isETH: false })
    expect(estimate).toMatchObject({
      employeeCount: 50,
      chain: 'base',
      token: { symbol: 'USDC', address: chain.token.address, decimals: 6, isETH: false },
      estimatedGas: Number(model.gas),
      suggestedGasLimit: model.gas.toString(),
      baseGas: model.base.toString(),
      gasPerEmployee: model.perRecipient.toString(),
      feePercent: '0.3%',
    })
    expect(estimate.note).toContain('Worst-case gas ceiling')
    expect(estimate.note).toContain('0.3% protocol fee')
  })

  test('behavior: the original\'s totalAmount is a HUMAN decimal: "25000" USDC has its fee in feeBreakdown, with limits', async () => {
    const answer = await ok(
      await api.post('/api/v1/payroll/estimate', { employeeCount: 10, token: 'USDC', totalAmount: '25000' }),
    )
    expect(answer).toMatchObject({
      estimate: { employeeCount: 10, estimatedGas: expect.any(Number) },
      feeBreakdown: {
        totalAmount: '25000',
        totalAmountRaw: '25000000000',
        protocolFee: '75',
        protocolFeeRaw: '75000000',
        protocolFeeBps: 30,
        totalWithFee: '25075',
        totalWithFeeRaw: '25075000000',
        token: 'USDC',
      },
      limits: { maxEmployees: 200, batchesNeeded: 1 },
    })
    expect((await ok(await api.post('/api/v1/payroll/estimate', { employeeCount: 1 }))).feeBreakdown).toBeNull()
  })

  test('error: a totalAmount with more decimals than the token has is a 400 naming it, before payment', async () => {
    const body = { employeeCount: 2, token: 'USDC', totalAmount: '2500.0000001' }
    const problem = await refused(await unpaid('/api/v1/payroll/estimate', body), 400)
    expect(problem).toMatchObject({ field: 'totalAmount', detail: expect.stringContaining('6 decimal places') })
  })

  test('error: an employee count outside 1..200 or missing', async () => {
    for (const body of [{ employeeCount: 0 }, { employeeCount: 201 }, { employeeCount: 2.5 }, {}])
      expect((await refused(await api.post('/api/v1/payroll/estimate', body), 400)).field).toBe('employeeCount')
  })
})

describe('GET /api/v1/payroll/tokens', () => {
  test('default: every base symbol with its devnet address; peaq unconfigured says so', async () => {
    const { tokens, chains, tokenCount, recommended } = await ok(await api.get('/api/v1/payroll/tokens'))
    expect(tokens).toEqual([
      ...Object.entries(chain.tokens).map(([symbol, { address, decimals }]) => ({
        chain: 'base',
        chainId: chain.chainId,
        symbol,
        address,
        decimals,
        isETH: false,
        recommended: symbol === 'USDC' || symbol === 'USDT',
      })),
      {
        chain: 'base',
        chainId: chain.chainId,
        symbol: 'ETH',
        address: zeroAddress,
        decimals: 18,
        isETH: true,
        recommended: false,
      },
    ])
    expect({ tokenCount, recommended }).toEqual({ tokenCount: tokens.length, recommended: ['USDC', 'USDT'] })
    expect(chains).toEqual([
      { chain: 'base', chainId: chain.chainId, contract: chain.batch.address, available: true },
      {
        chain: 'peaq',
        chainId: null,
        contract: null,
        available: false,
        reason: 'peaq is not configured on this gateway',
      },
    ])
  })

  test('behavior: peaq lists its tokens once its contract code is verified; a mismatched peaq lists none and says why', async () => {
    const deployed = await send(signer(9), {
      data: encodeDeployData({
        abi: batchArtifact.abi as unknown as Abi,
        bytecode: batchArtifact.bytecode as Hex,
        args: [signer(9).address, 30n],
      }),
    })
    const twin = getAddress(deployed.contractAddress!)
    const verified = pays({ base, peaq: port(chain.publicClient, twin, { USDC: chain.token.address }) })
    const listed = await ok(await verified.get('/api/v1/payroll/tokens'))
    expect(listed.tokens.filter((token: { chain: string }) => token.chain === 'peaq')).toEqual([
      {
        chain: 'peaq',
        chainId: chain.chainId,
        symbol: 'USDC',
        address: chain.token.address,
        decimals: 6,
        isETH: false,
        recommended: true,
      },
    ])

    const mismatched = pays({
      base,
      peaq: port(chain.publicClient, chain.escrow.address, { USDC: chain.token.address }),
    })
    const refusedPeaq = await ok(await mismatched.get('/api/v1/payroll/tokens'))
    expect(refusedPeaq.tokens.some((token: { chain: string }) => token.chain === 'peaq')).toBe(false)
    expect(refusedPeaq.chains[1]).toMatchObject({
      chain: 'peaq',
      available: false,
      reason: expect.stringContaining('runs different code'),
    })
  })
})
