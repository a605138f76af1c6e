import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Abi,
  type AbiParameter,
  type Address,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  type PrivateKeyAccount,
  parseEventLogs,
  zeroAddress,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { batchChain } from '../../../adapters/chain/batch.js'
import batchArtifact from '../../../adapters/chain/contracts/artifacts/BatchPayments.json' with { type: 'json' }
import { deployerIndex, devnet, mnemonic } from '../../../adapters/chain/devnet.js'
import * as Batch from '../../../core/Batch.js'
import type { BatchChain } from '../../../core/BatchChain.js'
import * as BatchPayment from '../../../core/BatchPayment.js'
import { withEstimateOverrides } from '../../support/overrides.js'

let chain: devnet.Devnet
let port: BatchChain

// JSON imports widen ABI literals; the whole compiled ABI is typed here once.
const compiledAbi = batchArtifact.abi as unknown as Abi

beforeAll(async () => {
  chain = await devnet()
  port = batchChain({
    client: chain.publicClient,
    address: chain.batch.address,
    chainId: chain.chainId,
    tokens: addressesOf(chain),
  })
})

afterAll(async () => {
  await chain.close()
})

function addressesOf(chain: devnet.Devnet): Record<string, Address> {
  return Object.fromEntries(Object.entries(chain.tokens).map(([symbol, { address }]) => [symbol, address]))
}

const sender = () => signer(1)

function signer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

let fresh = 0
/** `count` addresses that have never held anything: every payment to them is cold. */
function freshAddresses(count: number): Address[] {
  return Array.from({ length: count }, () =>
    getAddress(`0x${(++fresh).toString(16).padStart(8, '0')}${'c0ffee'.repeat(6).slice(0, 32)}`),
  )
}

function balanceOf(token: Address, address: Address): Promise<bigint> {
  return chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
}

function etherOf(address: Address): Promise<bigint> {
  return chain.publicClient.getBalance({ address })
}

/** Sends from `account`, waits, and expects success; returns the receipt. */
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

/** Simulates from `account`; rejects with the decoded revert. */
function call(account: PrivateKeyAccount, transaction: { to?: Address; data: Hex; value?: bigint }) {
  return chain.publicClient.call({ account, to: chain.batch.address, ...transaction })
}

function entries(addresses: readonly Address[], amount: (index: number) => bigint): Batch.validateRecipients.Entry[] {
  return addresses.map((address, index) => ({ address, amount: amount(index) }))
}

const usdc = () => chain.tokens.USDC!.address

describe('BatchPayments.sol', () => {
  test("default: deployed at the deployer's third address with 30 bps to the fee recipient", async () => {
    const deployer = mnemonicToAccount(mnemonic, { addressIndex: deployerIndex }).address
    expect(chain.batch.address).toBe(getContractAddress({ from: deployer, nonce: 2n }))
    // DevUSDC and Escrow keep the addresses every client and test relies on.
    expect(chain.token.address).toBe('0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9')
    expect(chain.escrow.address).toBe('0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404')
    const read = <name extends 'feeBps' | 'feeRecipient' | 'MAX_RECIPIENTS' | 'MAX_FEE_BPS' | 'paused'>(
      functionName: name,
    ) => chain.publicClient.readContract({ address: chain.batch.address, abi: BatchPayment.abi, functionName })
    expect(await read('feeBps')).toBe(30n)
    expect(await read('feeRecipient')).toBe(chain.batch.feeRecipient)
    expect(await read('MAX_RECIPIENTS')).toBe(200n)
    expect(await read('MAX_FEE_BPS')).toBe(500n)
    expect(await read('paused')).toBe(false)
  })

  test('behavior: the ABI in core is part of the compiled contract, with the signatures of the contract on Base', () => {
    const signature = (item: { type: string; name?: string; inputs?: readonly AbiParameter[] }) => {
      const types = (parameters: readonly AbiParameter[]): string =>
        parameters
          .map((parameter) => {
            const type =
              'components' in parameter && parameter.components
                ? `(${types(parameter.components)})${parameter.type.slice(5)}`
                : parameter.type
            return `${type}${(parameter as { indexed?: boolean }).indexed ? ' indexed' : ''}`
          })
          .join(',')
      return `${item.type} ${item.name}(${types(item.inputs ?? [])})`
    }
    const compiled = compiledAbi.map((item) => signature(item as never))
    for (const item of BatchPayment.abi) expect(compiled).toContain(signature(item))
    for (const expected of [
      'function sprayETH((address,uint256)[])',
      'function sprayToken(address,(address,uint256)[])',
      'function sprayEqual(address,address[],uint256)',
      'function calculateFee(uint256)',
      'function calculateTotalCost(uint256)',
      'function feeBps()',
      'function feeRecipient()',
      'event SprayETHExecuted(address indexed,uint256,uint256,uint256,uint256)',
      'event SprayTokenExecuted(address indexed,address indexed,uint256,uint256,uint256,uint256)',
    ])
      expect(compiled).toContain(expected)
  })

  // must match core/Batch.ts fee: total * feeBps / 10000, rounded down.
  test.each([0n, 1n, 333n, 334n, 666n, 667n, 10_000n, 1_500_000n, 10n ** 18n, 10n ** 30n + 333n, maxUint256 / 30n])(
    'behavior: calculateFee(%p) equals Batch.fee and calculateTotalCost its totalWithFee',
    async (total) => {
      const read = (functionName: 'calculateFee' | 'calculateTotalCost') =>
        chain.publicClient.readContract({
          address: chain.batch.address,
          abi: BatchPayment.abi,
          functionName,
          args: [total],
        })
      const expected = Batch.fee({ total, feeBps: 30n })
      expect(await read('calculateFee')).toBe(expected.fee)
      expect(await read('calculateTotalCost')).toBe(expected.totalWithFee)
    },
  )

  test('behavior: sprayToken pays every recipient exactly and the fee recipient exactly; the contract keeps nothing', async () => {
    const recipients = entries(freshAddresses(3), (index) => 1_000_000n * BigInt(index + 1) + 7n)
    const { fee, totalWithFee, total } = BatchPayment.totals({ recipients, feeBps: 30n })
    const feeBefore = await balanceOf(usdc(), chain.batch.feeRecipient)
    const senderBefore = await balanceOf(usdc(), sender().address)
    await send(sender(), {
      to: usdc(),
      data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: totalWithFee }),
    })
    const receipt = await send(sender(), {
      to: chain.batch.address,
      data: BatchPayment.calldata({ token: { address: usdc(), isETH: false }, recipients }),
    })

    for (const { address, amount } of recipients) expect(await balanceOf(usdc(), address)).toBe(amount)
    expect(await balanceOf(usdc(), chain.batch.feeRecipient)).toBe(feeBefore + fee)
    expect(await balanceOf(usdc(), sender().address)).toBe(senderBefore - totalWithFee)
    expect(await balanceOf(usdc(), chain.batch.address)).toBe(0n)
    expect(await port.allowance({ token: usdc(), owner: sender().address })).toBe(0n)
    const [event] = parseEventLogs({ abi: BatchPayment.abi, logs: receipt.logs, eventName: 'SprayTokenExecuted' })
    expect(event?.args).toMatchObject({
      sender: sender().address,
      token: usdc(),
      totalAmount: total,
      recipientCount: 3n,
      feeAmount: fee,
    })
  })

  test('behavior: sprayETH pays exactly, pays the fee, and refunds the excess to the sender', async () => {
    const recipients = entries(freshAddresses(2), (index) => 10n ** 15n * BigInt(index + 1) + 1n)
    const { fee, totalWithFee, total } = BatchPayment.totals({ recipients, feeBps: 30n })
    const excess = 123_456_789n
    const feeBefore = await etherOf(chain.batch.feeRecipient)
    const senderBefore = await etherOf(sender().address)
    const receipt = await send(sender(), {
      to: chain.batch.address,
      data: BatchPayment.calldata({ token: { address: BatchPayment.nativeToken, isETH: true }, recipients }),
      value: totalWithFee + excess,
    })
    for (const { address, amount } of recipients) expect(await etherOf(address)).toBe(amount)
    expect(await etherOf(chain.batch.feeRecipient)).toBe(feeBefore + fee)
    // The sender is out exactly the total with fee and the gas; the excess came back.
    expect(await etherOf(sender().address)).toBe(
      senderBefore - totalWithFee - receipt.gasUsed * receipt.effectiveGasPrice,
    )
    expect(await etherOf(chain.batch.address)).toBe(0n)
    const [event] = parseEventLogs({ abi: BatchPayment.abi, logs: receipt.logs, eventName: 'SprayETHExecuted' })
    expect(event?.args).toMatchObject({
      sender: sender().address,
      totalAmount: total,
      recipientCount: 2n,
      feeAmount: fee,
    })
  })

  test('behavior: sprayEqual pays the same amount in an ERC-20 and, with the zero address as token, in ether', async () => {
    const dai = chain.tokens.DAI!.address
    const tokenRecipients = freshAddresses(4)
    const amount = 25n * 10n ** 17n
    const { fee, totalWithFee } = Batch.fee({ total: amount * 4n, feeBps: 30n })
    const feeBefore = await balanceOf(dai, chain.batch.feeRecipient)
    await send(sender(), {
      to: dai,
      data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: totalWithFee }),
    })
    await send(sender(), {
      to: chain.batch.address,
      data: BatchPayment.equalCalldata({ token: dai, recipients: tokenRecipients, amountPerRecipient: amount }),
    })
    for (const address of tokenRecipients) expect(await balanceOf(dai, address)).toBe(amount)
    expect(await balanceOf(dai, chain.batch.feeRecipient)).toBe(feeBefore + fee)

    const etherRecipients = freshAddresses(3)
    const ether = Batch.fee({ total: 3n * 1_000_003n, feeBps: 30n })
    const etherFeeBefore = await etherOf(chain.batch.feeRecipient)
    await send(sender(), {
      to: chain.batch.address,
      data: BatchPayment.equalCalldata({
        token: zeroAddress,
        recipients: etherRecipients,
        amountPerRecipient: 1_000_003n,
      }),
      value: ether.totalWithFee + 5n,
    })
    for (const address of etherRecipients) expect(await etherOf(address)).toBe(1_000_003n)
    expect(await etherOf(chain.batch.feeRecipient)).toBe(etherFeeBefore + ether.fee)
    expect(await etherOf(chain.batch.address)).toBe(0n)
  })

  test('error: more than 200 recipients, none, the zero address or a zero amount revert with the reason of the contract on Base', async () => {
    const token = { address: usdc(), isETH: false }
    const data = (recipients: Batch.validateRecipients.Entry[]) => BatchPayment.calldata({ token, recipients })
    await expect(call(sender(), { data: data(entries(freshAddresses(201), () => 1n)) })).rejects.toThrow(
      'Too many recipients',
    )
    await expect(call(sender(), { data: data([]) })).rejects.toThrow('No recipients')
    await expect(call(sender(), { data: data([{ address: zeroAddress, amount: 1n }]) })).rejects.toThrow(
      'Invalid recipient',
    )
    await expect(call(sender(), { data: data(entries(freshAddresses(1), () => 0n)) })).rejects.toThrow('Invalid amount')
    await expect(
      call(sender(), {
        data: BatchPayment.equalCalldata({
          token: zeroAddress,
          recipients: freshAddresses(201),
          amountPerRecipient: 1n,
        }),
        value: 10n ** 18n,
      }),
    ).rejects.toThrow('Too many recipients')
  })

  test('error: an allowance short of the total with fee, too little ether, or ether along an ERC-20 batch revert', async () => {
    const recipients = entries(freshAddresses(2), () => 1_000_000n)
    const { totalWithFee } = BatchPayment.totals({ recipients, feeBps: 30n })
    await send(sender(), {
      to: usdc(),
      data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: totalWithFee - 1n }),
    })
    await expect(
      call(sender(), { data: BatchPayment.calldata({ token: { address: usdc(), isETH: false }, recipients }) }),
    ).rejects.toThrow('exceeds allowance')
    await expect(
      call(sender(), {
        data: BatchPayment.calldata({ token: { address: zeroAddress, isETH: true }, recipients }),
        value: totalWithFee - 1n,
      }),
    ).rejects.toThrow('Insufficient ETH')
    await expect(
      call(sender(), {
        data: BatchPayment.equalCalldata({ token: usdc(), recipients: freshAddresses(1), amountPerRecipient: 1n }),
        value: 1n,
      }),
    ).rejects.toThrow('ETH sent with token batch')
    await send(sender(), {
      to: usdc(),
      data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: 0n }),
    })
  })

  test('security: only the owner changes the fee (at most 500 bps) or pauses; a paused contract refuses batches', async () => {
    // A second deployment, owned by a test account, so the devnet's own contract keeps its state.
    const owner = signer(9)
    const receipt = await send(owner, {
      data: encodeDeployData({ abi: compiledAbi, bytecode: batchArtifact.bytecode as Hex, args: [owner.address, 30n] }),
    })
    const contract = receipt.contractAddress!
    const simulate = (
      account: PrivateKeyAccount,
      functionName: string,
      args: readonly unknown[] = [],
      value?: bigint,
    ) =>
      chain.publicClient.simulateContract({ account, address: contract, abi: compiledAbi, functionName, args, value })
    await expect(simulate(sender(), 'updateFee', [10n])).rejects.toThrow('OwnableUnauthorizedAccount')
    await expect(simulate(sender(), 'pause')).rejects.toThrow('OwnableUnauthorizedAccount')
    await expect(simulate(owner, 'updateFee', [501n])).rejects.toThrow('Fee too high')
    const paused = () =>
      chain.publicClient.readContract({ address: contract, abi: BatchPayment.abi, functionName: 'paused' })
    expect(await paused()).toBe(false)
    await send(owner, { to: contract, data: encodeFunctionData({ abi: compiledAbi, functionName: 'pause' }) })
    expect(await paused()).toBe(true)
    const recipients = freshAddresses(1).map((recipient) => ({ recipient, amount: 1n }))
    await expect(simulate(sender(), 'sprayETH', [recipients], 2n)).rejects.toThrow('EnforcedPause')
  })
})

describe('batchChain', () => {
  test('default: the configured contract, chain and tokens; the fee rate read from the contract', async () => {
    expect(port.address).toBe(chain.batch.address)
    expect(port.chainId).toBe(chain.chainId)
    expect(port.tokens).toEqual(addressesOf(chain))
    expect(await port.feeBps()).toBe(30n)
  })

  test('behavior: codeHash is keccak256 of the runtime code, the same for every deployment; undefined without code', async () => {
    expect(await port.codeHash()).toBe(keccak256(batchArtifact.deployedBytecode as Hex))
    const empty = batchChain({
      client: chain.publicClient,
      address: freshAddresses(1)[0]!,
      chainId: chain.chainId,
      tokens: {},
    })
    expect(await empty.codeHash()).toBeUndefined()
  })

  test('behavior: allowance, and balances of many accounts in one call (ERC-20 and ether)', async () => {
    await send(sender(), {
      to: usdc(),
      data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: 42n }),
    })
    expect(await port.allowance({ token: usdc(), owner: sender().address })).toBe(42n)
    const [empty] = freshAddresses(1)
    expect(await port.balances({ token: usdc(), accounts: [chain.accounts[0]!.address, empty!] })).toEqual([
      1_000_000_000_000n,
      0n,
    ])
    expect(await port.balances({ token: chain.tokens.DAI!.address, accounts: [chain.accounts[0]!.address] })).toEqual([
      10n ** 24n,
    ])
    expect(await port.balances({ token: undefined, accounts: [empty!] })).toEqual([0n])
    expect(await port.balances({ token: undefined, accounts: [] })).toEqual([])
  })

  test('behavior: readToken answers symbol and decimals, or why an address is not an ERC-20', async () => {
    expect(await port.readToken(chain.tokens.WETH!.address)).toEqual({ ok: true, symbol: 'WETH', decimals: 18 })
    expect(await port.readToken(chain.tokens.USDT!.address)).toEqual({ ok: true, symbol: 'USDT', decimals: 6 })
    expect(await port.readToken(freshAddresses(1)[0]!)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no contract code'),
    })
    expect(await port.readToken(chain.escrow.address)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('does not answer'),
    })
  })

  test('behavior: estimateGas measures the call; with the margin the limit is at least the gas used and within 25%', async () => {
    const measured: string[] = []
    for (const [label, isETH, count] of [
      ['ERC-20', false, 1],
      ['ERC-20', false, 2],
      ['ERC-20', false, 200],
      ['ETH', true, 1],
      ['ETH', true, 2],
      ['ETH', true, 200],
    ] as const) {
      const recipients = entries(freshAddresses(count), (index) => 1_000n + BigInt(index))
      const token = { address: isETH ? zeroAddress : usdc(), isETH }
      const { totalWithFee } = BatchPayment.totals({ recipients, feeBps: 30n })
      const data = BatchPayment.calldata({ token, recipients })
      const value = isETH ? totalWithFee : 0n
      if (!isETH)
        await send(sender(), {
          to: usdc(),
          data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: totalWithFee }),
        })
      const estimate = await port.estimateGas({ from: sender().address, data, value })
      if (!estimate.ok) throw new Error(estimate.message)
      const limit = BatchPayment.gasLimit({ measured: estimate.gas, recipientCount: count, isETH, chain: 'base' })
      const { gasUsed } = await send(sender(), { to: chain.batch.address, data, value, gas: limit })
      expect(limit).toBeGreaterThanOrEqual(gasUsed)
      expect(Number(limit) / Number(gasUsed)).toBeLessThanOrEqual(1.25)
      measured.push(
        `${label} x${count}: used ${gasUsed}, estimate ${estimate.gas}, limit ${limit} (${(Number(limit) / Number(gasUsed)).toFixed(3)})`,
      )
    }
    console.info(`batch gas on the devnet, cold recipients:\n  ${measured.join('\n  ')}`)
  })

  test('behavior: a call that reverts comes back as data with the reason', async () => {
    const recipients = entries(freshAddresses(1), () => 10n ** 30n)
    const data = BatchPayment.calldata({ token: { address: usdc(), isETH: false }, recipients })
    expect(await port.estimateGas({ from: sender().address, data, value: 0n })).toMatchObject({
      ok: false,
      reason: 'reverted',
      message: expect.stringContaining('exceeds allowance'),
    })
  })

  test('behavior: EDR refuses state overrides in eth_estimateGas: override_unsupported, after the allowance slot was found', async () => {
    const recipients = entries(freshAddresses(1), () => 1_000n)
    for (const token of [usdc(), chain.tokens.DAI!.address]) {
      const data = BatchPayment.calldata({ token: { address: token, isETH: false }, recipients })
      expect(
        await port.estimateGas({ from: signer(5).address, data, value: 0n, allowance: { token, amount: 1_003n } }),
      ).toMatchObject({
        ok: false,
        reason: 'override_unsupported',
      })
    }
  })

  test('behavior: a token whose allowance slot cannot be found: allowance_slot_unknown', async () => {
    const data = BatchPayment.calldata({
      token: { address: chain.escrow.address, isETH: false },
      recipients: entries(freshAddresses(1), () => 1n),
    })
    expect(
      await port.estimateGas({
        from: sender().address,
        data,
        value: 0n,
        allowance: { token: chain.escrow.address, amount: 1n },
      }),
    ).toMatchObject({ ok: false, reason: 'allowance_slot_unknown' })
  })

  test('behavior: on a node that takes overrides, the estimate runs as if approved, and that limit carries the batch once approved', async () => {
    const overriding = batchChain({
      client: withEstimateOverrides(chain),
      address: chain.batch.address,
      chainId: chain.chainId,
      tokens: addressesOf(chain),
    })
    const payer = signer(6)
    for (const token of [usdc(), chain.tokens.DAI!.address, chain.tokens.WETH!.address]) {
      const recipients = entries(freshAddresses(3), (index) => 5_000n + BigInt(index))
      const { totalWithFee } = BatchPayment.totals({ recipients, feeBps: 30n })
      const data = BatchPayment.calldata({ token: { address: token, isETH: false }, recipients })
      expect(await overriding.allowance({ token, owner: payer.address })).toBe(0n)
      const estimate = await overriding.estimateGas({
        from: payer.address,
        data,
        value: 0n,
        allowance: { token, amount: totalWithFee },
      })
      if (!estimate.ok) throw new Error(estimate.message)
      // The override lived only inside the estimate.
      expect(await overriding.allowance({ token, owner: payer.address })).toBe(0n)
      await send(payer, {
        to: token,
        data: BatchPayment.approveCalldata({ spender: chain.batch.address, amount: totalWithFee }),
      })
      const limit = BatchPayment.gasLimit({ measured: estimate.gas, recipientCount: 3, isETH: false, chain: 'base' })
      const { gasUsed } = await send(payer, { to: chain.batch.address, data, gas: limit })
      expect(limit).toBeGreaterThanOrEqual(gasUsed)
      expect(Number(limit) / Number(gasUsed)).toBeLessThanOrEqual(1.25)
    }
  })
})
