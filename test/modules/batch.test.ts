import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Abi,
  type Address,
  createWalletClient,
  decodeFunctionData,
  encodeDeployData,
  erc20Abi,
  formatUnits,
  getAddress,
  type Hex,
  hexToBigInt,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  zeroAddress,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { batchChain } from '../../adapters/chain/batch.js'
import batchArtifact from '../../adapters/chain/contracts/artifacts/BatchPayments.json' with { type: 'json' }
import devTokenArtifact from '../../adapters/chain/contracts/artifacts/DevToken.json' with { type: 'json' }
import { devnet } from '../../adapters/chain/devnet.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import type { BatchChain } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { type Event, events, outboxQueue } from '../../core/Events.js'
import * as Gas from '../../core/Gas.js'
import { manifest } from '../../modules/batch/index.js'
import type { Chains } from '../../modules/batch/service.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'
import { withEstimateOverrides } from '../support/overrides.js'

let chain: devnet.Devnet
/** The devnet as a node that takes state overrides in eth_estimateGas (like Base's). */
let base: BatchChain
/** The devnet as EDR is: no state overrides in eth_estimateGas. */
let edr: BatchChain
/** A second BatchPayments deployment: the same runtime code at another address, with its own fee recipient. */
let twin: { address: Address; feeRecipient: Address }
let api: ReturnType<typeof moduleGateway>

const execute = '/api/v1/batch/execute'
const estimate = '/api/v1/batch/estimate'

beforeAll(async () => {
  chain = await devnet()
  base = port(withEstimateOverrides(chain), chain.batch.address)
  edr = port(chain.publicClient, chain.batch.address)
  const feeRecipient = fresh(1)[0]!
  const deployed = await send(signer(9), {
    data: encodeDeployData({
      abi: batchArtifact.abi as unknown as Abi,
      bytecode: batchArtifact.bytecode as Hex,
      args: [feeRecipient, 30n],
    }),
  })
  twin = { address: getAddress(deployed.contractAddress!), feeRecipient }
  api = pays({ base })
})

/** The batch family alone in the gateway on `chains`, every paid call paid by alice. */
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

/** An unpaid POST of `body` to `path`. */
function request(path: string, body: unknown): Request {
  const headers = { 'content-type': 'application/json' }
  return new Request(`http://gateway.test${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
}

function signer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

let counter = 0
/** Addresses that hold nothing yet. */
function fresh(count: number): Address[] {
  return Array.from({ length: count }, () =>
    getAddress(`0x${(++counter).toString(16).padStart(6, '0')}${'ba7c4'.repeat(7).slice(0, 34)}`),
  )
}

/** Sends from `account` and expects success. */
async function send(
  account: PrivateKeyAccount,
  transaction: { to?: Address; data: Hex; value?: bigint; gas?: bigint },
) {
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.sendTransaction(transaction)
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return receipt
}

/** Sends `approvalRequired` as the spec says: `approve(spender, amount)` with the amount verbatim. */
async function approve(account: PrivateKeyAccount, approval: { token: Address; spender: Address; amount: string }) {
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.writeContract({
    address: approval.token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [approval.spender, BigInt(approval.amount)],
  })
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
}

/** Sends the unsigned transaction of an execute answer with its gas limit; returns the receipt. */
function broadcast(
  account: PrivateKeyAccount,
  transaction: { to: Address; data: Hex; value: string; chainId: number; gasLimit: Hex },
) {
  expect(transaction.chainId).toBe(chain.chainId)
  return send(account, {
    to: transaction.to,
    data: transaction.data,
    value: BigInt(transaction.value),
    gas: hexToBigInt(transaction.gasLimit),
  })
}

function holding(token: Address | undefined, address: Address): Promise<bigint> {
  return token === undefined
    ? chain.publicClient.getBalance({ address })
    : chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
}

describe('POST /api/v1/batch/execute', () => {
  test.each([
    ['USDC', 1],
    ['USDC', 2],
    ['USDC', 200],
    ['ETH', 1],
    ['ETH', 2],
    ['ETH', 200],
  ] as const)(
    'default: %s to %p recipients: approved and sent by the sender, it pays every recipient exactly and the fee recipient exactly 0.3%%',
    async (symbol, count) => {
      const sender = signer(1)
      const isETH = symbol === 'ETH'
      const token = isETH ? undefined : chain.tokens[symbol]!.address
      const recipients = fresh(count)
      const amounts = recipients.map((_, index) =>
        isETH ? 10n ** 15n + BigInt(index) : 1_000_000n + 7n * BigInt(index),
      )
      const total = amounts.reduce((sum, amount) => sum + amount, 0n)
      const fee = (total * 30n) / 10_000n
      const decimals = isETH ? 18 : 6

      const answer = await ok(
        await api.post(execute, { token: symbol, recipients, amounts: amounts.map(String), sender: sender.address }),
      )
      expect(answer).toMatchObject({
        success: true,
        contract: chain.batch.address,
        token: { symbol, address: token ?? zeroAddress, decimals, isETH },
        batch: {
          recipientCount: count,
          totalAmount: formatUnits(total, decimals),
          fee: formatUnits(fee, decimals),
          feePercent: '0.3%',
          totalWithFee: formatUnits(total + fee, decimals),
        },
        transaction: { to: chain.batch.address, value: isETH ? String(total + fee) : '0', chainId: chain.chainId },
      })
      expect(answer.transaction.gasLimit).toMatch(/^0x[0-9a-f]+$/)
      if (isETH) expect(answer.approvalRequired).toBeUndefined()
      else
        expect(answer.approvalRequired).toEqual({
          token,
          spender: chain.batch.address,
          amount: String(total + fee),
          amountFormatted: formatUnits(total + fee, decimals),
        })

      const feeBefore = await holding(token, chain.batch.feeRecipient)
      if (!isETH) await approve(sender, answer.approvalRequired)
      const receipt = await broadcast(sender, answer.transaction)
      for (const [index, recipient] of recipients.entries())
        expect(await holding(token, recipient)).toBe(amounts[index]!)
      expect(await holding(token, chain.batch.feeRecipient)).toBe(feeBefore + fee)
      expect(await holding(token, chain.batch.address)).toBe(0n)
      const gasLimit = hexToBigInt(answer.transaction.gasLimit)
      expect(gasLimit).toBeGreaterThanOrEqual(receipt.gasUsed)
      expect(Number(gasLimit) / Number(receipt.gasUsed)).toBeLessThanOrEqual(1.25)
    },
  )

  test('behavior: with the allowance short, gas is measured as if approved and the answer says so', async () => {
    const sender = signer(2)
    const answer = await ok(
      await api.post(execute, {
        token: 'usdc',
        recipients: fresh(3),
        amounts: ['1', '2', '3'],
        sender: sender.address.toLowerCase(),
      }),
    )
    expect(answer.gasEstimate).toMatchObject({
      method: 'eth_estimateGas_with_allowance_override',
      allowanceSufficient: false,
      allowance: '0',
      coldRecipients: null,
    })
    expect(answer.gasEstimate.note).toContain(`must approve 6 base units to ${chain.batch.address}`)
    await approve(sender, answer.approvalRequired)
    const again = await ok(
      await api.post(execute, {
        token: 'USDC',
        recipients: fresh(3),
        amounts: ['1', '2', '3'],
        sender: sender.address,
      }),
    )
    expect(again.gasEstimate).toMatchObject({ method: 'eth_estimateGas', allowanceSufficient: true, allowance: '6' })
  })

  test("behavior: on a node without estimate overrides (EDR), the gas model with the recipients' real balances; still enough gas", async () => {
    const edrApi = pays({ base: edr })
    const sender = signer(3)
    // Two recipients already hold USDC (warm), two hold nothing (cold).
    const recipients = [chain.accounts[7]!.address, chain.accounts[8]!.address, ...fresh(2)]
    const answer = await ok(
      await edrApi.post(execute, { token: 'USDC', recipients, amounts: ['5', '6', '7', '8'], sender: sender.address }),
    )
    expect(answer.gasEstimate).toMatchObject({ method: 'model', allowanceSufficient: false, coldRecipients: 2 })
    expect(answer.gasEstimate.note).toContain('refuses state overrides')
    const gasLimit = hexToBigInt(answer.transaction.gasLimit)
    expect(gasLimit).toBe(Gas.estimate({ recipientCount: 4, coldRecipients: 2, isETH: false }).gas)
    await approve(sender, answer.approvalRequired)
    const receipt = await broadcast(sender, answer.transaction)
    expect(gasLimit).toBeGreaterThanOrEqual(receipt.gasUsed)
  })

  test('behavior: every symbol of base resolves on the devnet, and a token given by address', async () => {
    const sender = signer(1).address
    for (const [symbol, { address, decimals }] of Object.entries(chain.tokens)) {
      const answer = await ok(
        await api.post(execute, { token: symbol.toLowerCase(), recipients: fresh(1), amounts: ['1000'], sender }),
      )
      expect(answer.token).toEqual({ symbol, address, decimals, isETH: false })
      const byAddress = await ok(
        await api.post(execute, { token: address.toLowerCase(), recipients: fresh(1), amounts: ['1000'], sender }),
      )
      expect(byAddress.token).toEqual({ symbol, address, decimals, isETH: false })
    }
    // An ERC-20 the gateway has no symbol for: its symbol and decimals are read from the chain.
    const deployed = await send(signer(9), {
      data: encodeDeployData({
        abi: devTokenArtifact.abi as unknown as Abi,
        bytecode: devTokenArtifact.bytecode as Hex,
        args: ['Guilder', 'GLD', 9],
      }),
    })
    const guilder = getAddress(deployed.contractAddress!)
    const answer = await ok(
      await api.post(execute, { token: guilder, recipients: fresh(1), amounts: ['1000'], sender }),
    )
    expect(answer.token).toEqual({ symbol: 'GLD', address: guilder, decimals: 9, isETH: false })
    expect(answer.batch.totalAmount).toBe('0.000001')
  })

  test('error: a chain other than base or peaq is a 400 naming the allowed values', async () => {
    for (const value of ['ethereum', 'Base', '', 8453]) {
      const problem = await refused(
        await api.post(execute, {
          token: 'USDC',
          recipients: fresh(1),
          amounts: ['1'],
          sender: signer(1).address,
          chain: value,
        }),
        400,
      )
      expect(problem).toMatchObject({ code: 'validation_failed', field: 'chain' })
      expect(problem.detail).toContain('allowed: base, peaq')
    }
  })

  test('behavior: the original\'s legacy shape: { address, amount } recipients, "2500" is 2,500 USDC in the calldata', async () => {
    const [alice, bob] = fresh(2)
    const built = await ok(
      await api.post(execute, {
        token: 'USDC',
        sender: signer(1).address,
        recipients: [
          { address: alice, amount: '2500' },
          { address: bob, amount: 0.31 },
        ],
      }),
    )
    expect(decodeFunctionData({ abi: BatchPayment.abi, data: built.transaction.data }).args as unknown).toEqual([
      chain.tokens.USDC!.address,
      [
        { recipient: alice, amount: 2_500_000_000n },
        { recipient: bob, amount: 310_000n },
      ],
    ])
    expect(built).toMatchObject({ success: true, batch: { recipientCount: 2, totalAmount: '2500.31' } })
  })

  test.each<[(Record<string, string> | 'A')[], string[] | undefined, string, string]>([
    [[{ address: '0x1234', amount: '1' }], undefined, 'recipients.0.address', 'not an EVM address'],
    [[{ amount: '1' }], undefined, 'recipients.0.address', 'required'],
    [[{ address: 'A', amount: '2500.0000001' }], undefined, 'recipients.0.amount', '6 decimal places'],
    [[{ address: 'A', amount: '0' }], undefined, 'recipients.0.amount', 'greater than 0'],
    [[{ address: 'A', amount: '1' }, 'A'], undefined, 'recipients.1', 'object'],
    [[{ address: 'A', amount: '1' }], ['1000000'], 'amounts', 'recipient objects'],
  ])('error: the legacy shape %j (amounts %j) names %s before payment', async (list, amounts, field, detail) => {
    const [address] = fresh(1)
    const recipients = list.map((entry) =>
      entry === 'A' ? address : { ...entry, ...(entry.address === 'A' ? { address } : {}) },
    )
    const body = { token: 'USDC', sender: signer(1).address, recipients, ...(amounts ? { amounts } : {}) }
    const problem = await refused(await api.handle(request(execute, body)), 400)
    expect(problem).toMatchObject({ field, detail: expect.stringContaining(detail) })
  })

  test('error: recipients and amounts of different lengths', async () => {
    const problem = await refused(
      await api.post(execute, { token: 'USDC', recipients: fresh(2), amounts: ['1'], sender: signer(1).address }),
      400,
    )
    expect(problem).toMatchObject({ field: 'amounts' })
    expect(problem.detail).toContain('parallel arrays')
  })

  test.each([
    ['1.5', 'decimal point'],
    ['-1', 'negative'],
    ['0', 'greater than 0'],
    ['1e6', 'scientific notation'],
    [1500000, 'JSON numbers'],
  ])('error: the amount %p is refused with a hint (%s)', async (amount, hint) => {
    const problem = await refused(
      await api.post(execute, {
        token: 'USDC',
        recipients: fresh(2),
        amounts: ['1', amount],
        sender: signer(1).address,
      }),
      400,
    )
    expect(problem).toMatchObject({ code: 'validation_failed', field: 'amounts.1' })
    expect(problem.detail).toContain(hint)
  })

  test('error: 201 recipients is a 400; 200 is the most', async () => {
    const problem = await refused(
      await api.post(execute, {
        token: 'USDC',
        recipients: fresh(201),
        amounts: Array(201).fill('1'),
        sender: signer(1).address,
      }),
      400,
    )
    expect(problem).toMatchObject({ field: 'recipients' })
    expect(problem.detail).toContain('at most 200')
  })

  test('error: a bad recipient, sender or token names the field', async () => {
    const sender = signer(1).address
    const recipient = fresh(1)[0]!
    // One letter's case flipped: fails EIP-55.
    const badChecksum = recipient.replace(/(?<=^0x.*)[a-fA-F]/, (letter) =>
      letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase(),
    )
    const cases = [
      [{ token: 'USDC', recipients: [zeroAddress], amounts: ['1'], sender }, 'recipients.0', 'zero address'],
      [{ token: 'USDC', recipients: ['0x1234'], amounts: ['1'], sender }, 'recipients.0', 'not an EVM address'],
      [{ token: 'USDC', recipients: [recipient], amounts: ['1'], sender: badChecksum }, 'sender', 'checksum'],
      [
        { token: 'DOGE', recipients: [recipient], amounts: ['1'], sender },
        'token',
        'use one of USDC, USDT, EURC, DAI, WETH, ETH',
      ],
      [{ recipients: [recipient], amounts: ['1'], sender }, 'token', 'required'],
      [{ token: zeroAddress, recipients: [recipient], amounts: ['1'], sender }, 'token', 'use the symbol ETH'],
    ] as const
    for (const [body, field, detail] of cases) {
      const problem = await refused(await api.post(execute, body), 400)
      expect(problem.field).toBe(field)
      expect(problem.detail).toContain(detail)
    }
    const notToken = await refused(
      await api.post(execute, { token: chain.escrow.address, recipients: [recipient], amounts: ['1'], sender }),
      400,
    )
    expect(notToken).toMatchObject({ field: 'token' })
    expect(notToken.detail).toContain('is not an ERC-20 on base')
  })

  test('error: a symbol without an address configured on the chain is unavailable (503), before the chain is asked', async () => {
    const partial = pays({ base: port(chain.publicClient, chain.batch.address, { USDC: chain.tokens.USDC!.address }) })
    const problem = await refused(
      await partial.post(execute, { token: 'EURC', recipients: fresh(1), amounts: ['1'], sender: signer(1).address }),
      503,
    )
    expect(problem).toMatchObject({ code: 'upstream_unavailable', field: 'token' })
    expect(problem.detail).toContain('EURC has no contract address configured for base')
  })
})

describe('events', () => {
  test("behavior: the built transaction is the payer's batch.built, with the total and fee in atomic units", async () => {
    const queue = memoryQueue()
    const app = moduleGateway(manifest, {
      ports: { batch: { base }, queue, events: events({ queue }) },
      payer: payers.alice,
    })
    const recipients = fresh(2)
    const answer = await ok(
      await app.post(execute, {
        token: 'USDC',
        recipients,
        amounts: ['1000000', '2000000'],
        sender: signer(1).address,
      }),
    )
    // The paid call's own settlement is in the outbox too: its payment.settled.
    const recorded = await queue.claim<Event>(outboxQueue, { limit: 10 })
    expect(recorded.map((item) => item.payload.type).sort()).toEqual(['batch.built', 'payment.settled'])
    expect(recorded.find((item) => item.payload.type === 'batch.built')?.payload).toMatchObject({
      type: 'batch.built',
      owner: payers.alice,
      data: {
        chain: 'base',
        token: chain.tokens.USDC!.address,
        recipients: 2,
        totalRaw: '3009000',
        transaction: answer.transaction,
      },
    })
  })
})

describe('POST /api/v1/batch/estimate', () => {
  test("default: detailed: totals with the contract's fee; the suggested gas limit (decimal) is at least the gas used and within 25%", async () => {
    const sender = signer(4)
    const recipients = fresh(25)
    const amounts = recipients.map((_, index) => String(3_000_000 + index))
    const quote = await ok(await api.post(estimate, { token: 'USDC', recipients, amounts, sender: sender.address }))
    const total = amounts.reduce((sum, amount) => sum + BigInt(amount), 0n)
    expect(quote).toMatchObject({
      success: true,
      token: { symbol: 'USDC', address: chain.tokens.USDC!.address, decimals: 6, isETH: false },
      recipientCount: 25,
      totalAmount: formatUnits(total, 6),
      fee: formatUnits((total * 30n) / 10_000n, 6),
      totalWithFee: formatUnits(total + (total * 30n) / 10_000n, 6),
      feePercent: '0.3%',
    })
    expect(quote.suggestedGasLimit).toMatch(/^[0-9]+$/)
    expect(quote.estimatedGas).toBeUndefined()

    const built = await ok(await api.post(execute, { token: 'USDC', recipients, amounts, sender: sender.address }))
    await approve(sender, built.approvalRequired)
    const { gasUsed } = await send(sender, {
      to: built.transaction.to,
      data: built.transaction.data,
      gas: BigInt(quote.suggestedGasLimit),
    })
    expect(BigInt(quote.suggestedGasLimit)).toBeGreaterThanOrEqual(gasUsed)
    expect(Number(quote.suggestedGasLimit) / Number(gasUsed)).toBeLessThanOrEqual(1.25)
  })

  test("behavior: detailed without a sender: the gas model over the recipients' real balances", async () => {
    const recipients = [chain.accounts[0]!.address, ...fresh(2)]
    const quote = await ok(await api.post(estimate, { token: 'ETH', recipients, amounts: ['1', '2', '3'] }))
    expect(quote.gasEstimate).toMatchObject({ method: 'model', coldRecipients: 2, allowanceSufficient: null })
    expect(quote.suggestedGasLimit).toBe(
      Gas.estimate({ recipientCount: 3, coldRecipients: 2, isETH: true }).gas.toString(),
    )
    expect(quote.totalWithFee).toBe('0.000000000000000006')
  })

  test('behavior: count-only: the worst-case ceiling as a decimal string, a note, and no totals', async () => {
    const quote = await ok(await api.post(estimate, { recipientCount: 200 }))
    const { gas } = Gas.estimate({ recipientCount: 200, isETH: false })
    expect(quote).toMatchObject({
      success: true,
      token: { symbol: 'USDC', address: chain.tokens.USDC!.address, decimals: 6, isETH: false },
      recipientCount: 200,
      feePercent: '0.3%',
      estimatedGas: gas.toString(),
      suggestedGasLimit: gas.toString(),
      chain: 'base',
    })
    expect(quote.note).toContain('Conservative ceiling')
    for (const field of ['totalAmount', 'fee', 'totalWithFee']) expect(quote[field]).toBeUndefined()
    const ether = await ok(await api.post(estimate, { recipientCount: 2, token: 'ETH' }))
    expect(ether.estimatedGas).toBe(Gas.estimate({ recipientCount: 2, isETH: true }).gas.toString())
  })

  test("behavior: neither form is the original's count-only estimate of one payment", async () => {
    const quote = await ok(await api.post(estimate, {}))
    expect(quote).toMatchObject({
      recipientCount: 1,
      estimatedGas: Gas.estimate({ recipientCount: 1, isETH: false }).gas.toString(),
    })
  })

  test("behavior: the original's legacy shape: recipient objects with HUMAN-decimal amounts give the detailed totals", async () => {
    const recipients = fresh(2).map((address, index) => ({ address, amount: ['2500', 0.5][index]! }))
    const quote = await ok(await api.post(estimate, { token: 'USDC', recipients }))
    expect(quote).toMatchObject({ recipientCount: 2, totalAmount: '2500.5', fee: '7.5015', totalWithFee: '2508.0015' })
  })

  test('error: neither form, a count outside 1..200, a count that disagrees with recipients, or a chain outside the allowlist', async () => {
    const cases = [
      [{ recipientCount: 0 }, 400, 'recipientCount'],
      [{ recipientCount: 201 }, 400, 'recipientCount'],
      [{ recipientCount: 1.5 }, 400, 'recipientCount'],
      [{ recipients: fresh(2), amounts: ['1', '2'], recipientCount: 3 }, 400, 'recipientCount'],
      [{ recipients: fresh(2), amounts: ['1'] }, 400, 'amounts'],
      [{ recipientCount: 2, chain: 'polygon' }, 400, 'chain'],
    ] as const
    for (const [body, status, field] of cases)
      expect((await refused(await api.post(estimate, body), status)).field).toBe(field)
  })
})

describe('chain peaq', () => {
  const body = () => ({
    token: 'USDC',
    recipients: fresh(1),
    amounts: ['1000'],
    sender: signer(1).address,
    chain: 'peaq',
  })

  test('error: unconfigured, peaq is refused with 503 and the reason', async () => {
    for (const path of [execute, estimate]) {
      const problem = await refused(await api.post(path, body()), 503)
      expect(problem).toMatchObject({
        code: 'upstream_unavailable',
        field: 'chain',
        chain: 'peaq',
        reason: 'not_configured',
      })
      expect(problem.detail).toContain('peaq is not configured')
    }
  })

  test("error: a peaq contract whose code differs from base's is refused with both hashes; so is one without code", async () => {
    const mismatched = pays({ base, peaq: port(chain.publicClient, chain.escrow.address) })
    const problem = await refused(await mismatched.post(execute, body()), 503)
    expect(problem).toMatchObject({
      code: 'upstream_unavailable',
      chain: 'peaq',
      reason: 'code_mismatch',
      primaryCodeHash: keccak256(batchArtifact.deployedBytecode as Hex),
      codeHash: keccak256((await chain.publicClient.getCode({ address: chain.escrow.address }))!),
    })
    expect(problem.detail).toContain('verified identical')
    const empty = pays({ base, peaq: port(chain.publicClient, fresh(1)[0]!) })
    expect(await refused(await empty.post(estimate, { recipientCount: 1, chain: 'peaq' }), 503)).toMatchObject({
      reason: 'no_code',
    })
  })

  test("behavior: a peaq contract with base's code is accepted, checked once and cached; its transaction pays out", async () => {
    let reads = 0
    const counted = (inner: BatchChain): BatchChain => ({
      ...inner,
      codeHash: () => {
        reads++
        return inner.codeHash()
      },
    })
    const chains: Chains = {
      base: counted(base),
      peaq: counted(port(chain.publicClient, twin.address, { USDC: chain.tokens.USDC!.address })),
    }
    const peaqApi = pays(chains)
    const sender = signer(5)
    const answer = await ok(await peaqApi.post(execute, body()))
    expect(answer).toMatchObject({ chain: 'peaq', contract: twin.address, transaction: { to: twin.address } })
    await ok(await peaqApi.post(estimate, { recipientCount: 3, chain: 'peaq' }))
    // One read per chain, however many requests.
    expect(reads).toBe(2)

    const built = await ok(await peaqApi.post(execute, { ...body(), sender: sender.address, amounts: ['1000000'] }))
    await approve(sender, built.approvalRequired)
    await broadcast(sender, built.transaction)
    expect(await holding(chain.tokens.USDC!.address, twin.feeRecipient)).toBe(3_000n)
    // peaq accepts only its own symbols.
    expect((await refused(await peaqApi.post(execute, { ...body(), token: 'ETH' }), 400)).field).toBe('token')
  })
})

describe('before payment', () => {
  /** The module in the gateway, called with no payment: the real guard answers 402 to what reaches it. */
  function guarded(chains: Chains) {
    const app = moduleGateway(manifest, { ports: { batch: chains } })
    return (payload: unknown) => app.post(execute, payload).then((response) => response.status)
  }

  test('security: a refused chain or malformed batch is answered before the payment guard; a valid one reaches it', async () => {
    const call = guarded({ base })
    const valid = { token: 'USDC', recipients: fresh(1), amounts: ['1'], sender: signer(1).address }
    expect(await call(valid)).toBe(402)
    expect(await call({ ...valid, chain: 'ethereum' })).toBe(400)
    expect(await call({ ...valid, chain: 'peaq' })).toBe(503)
    expect(await call({ ...valid, recipients: fresh(201), amounts: Array(201).fill('1') })).toBe(400)
    expect(await call({ ...valid, amounts: ['1.5'] })).toBe(400)
    const mismatched = guarded({ base, peaq: port(chain.publicClient, chain.escrow.address) })
    expect(await mismatched({ ...valid, chain: 'peaq' })).toBe(503)
  })
})
