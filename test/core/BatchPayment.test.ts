import { describe, expect, test } from 'bun:test'
import { type Address, decodeFunctionData, erc20Abi, zeroAddress } from 'viem'
import type * as Batch from '../../core/Batch.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import * as Gas from '../../core/Gas.js'
import { fieldOf } from '../support/errors.js'

const contract: Address = '0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC'
const usdc: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const bob: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const carol: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

const usdcToken: BatchPayment.Token = { symbol: 'USDC', address: usdc, decimals: 6, isETH: false }
const ether: BatchPayment.Token = { symbol: 'ETH', address: zeroAddress, decimals: 18, isETH: true }
const payments: Batch.validateRecipients.Entry[] = [
  { address: bob, amount: 1_500_000n },
  { address: carol, amount: 2_000_001n },
]

describe('totals', () => {
  test('default', () => {
    expect(BatchPayment.totals({ recipients: payments, feeBps: 30n })).toEqual({
      recipientCount: 2,
      total: 3_500_001n,
      fee: 10_500n,
      totalWithFee: 3_510_501n,
    })
  })

  // The contract's rate, whatever it is: calculateFee = total * feeBps / 10000, rounded down.
  test.each([
    [30n, 10_500n],
    [0n, 0n],
    [500n, 175_000n],
    [1n, 350n],
  ])('behavior: at %p bps the fee is %p', (feeBps, fee) => {
    expect(BatchPayment.totals({ recipients: payments, feeBps }).fee).toBe(fee)
  })
})

describe('feePercent', () => {
  test.each([
    [30n, '0.3%'],
    [0n, '0%'],
    [100n, '1%'],
    [25n, '0.25%'],
    [500n, '5%'],
  ])('behavior: %p bps -> %p', (feeBps, percent) => {
    expect(BatchPayment.feePercent(feeBps)).toBe(percent)
  })
})

describe('calldata', () => {
  test('default: sprayToken(token, recipients) for an ERC-20', () => {
    const data = BatchPayment.calldata({ token: usdcToken, recipients: payments })
    expect(data.slice(0, 10)).toBe('0xfb83b683')
    expect(decodeFunctionData({ abi: BatchPayment.abi, data })).toEqual({
      functionName: 'sprayToken',
      args: [
        usdc,
        [
          { recipient: bob, amount: 1_500_000n },
          { recipient: carol, amount: 2_000_001n },
        ],
      ],
    })
  })

  test('behavior: sprayETH(recipients) for native ether', () => {
    const data = BatchPayment.calldata({ token: ether, recipients: payments })
    expect(decodeFunctionData({ abi: BatchPayment.abi, data })).toEqual({
      functionName: 'sprayETH',
      args: [
        [
          { recipient: bob, amount: 1_500_000n },
          { recipient: carol, amount: 2_000_001n },
        ],
      ],
    })
  })

  test('behavior: sprayEqual(token, recipients, amountPerRecipient); the zero address pays ether', () => {
    const data = BatchPayment.equalCalldata({ token: zeroAddress, recipients: [bob, carol], amountPerRecipient: 7n })
    expect(decodeFunctionData({ abi: BatchPayment.abi, data })).toEqual({
      functionName: 'sprayEqual',
      args: [zeroAddress, [bob, carol], 7n],
    })
  })

  test('behavior: approve(spender, amount) for the allowance', () => {
    const data = BatchPayment.approveCalldata({ spender: contract, amount: 3_510_501n })
    expect(decodeFunctionData({ abi: erc20Abi, data })).toEqual({
      functionName: 'approve',
      args: [contract, 3_510_501n],
    })
  })
})

describe('gasLimit', () => {
  test('default: a measured estimate plus 5%, rounded up', () => {
    expect(BatchPayment.gasLimit({ measured: 100_001n, recipientCount: 1, isETH: false, chain: 'base' })).toBe(105_002n)
  })

  test('behavior: without a measurement, the gas model with the given cold recipients', () => {
    const model = Gas.estimate({ recipientCount: 10, coldRecipients: 3, isETH: true, chain: 'base' })
    expect(BatchPayment.gasLimit({ recipientCount: 10, coldRecipients: 3, isETH: true, chain: 'base' })).toBe(model.gas)
    expect(BatchPayment.gasLimit({ recipientCount: 10, isETH: true, chain: 'base' })).toBe(
      Gas.estimate({ recipientCount: 10, isETH: true }).gas,
    )
  })

  test('behavior: never below the peaq storage-proof floor', () => {
    const { proofFloor } = Gas.estimate({ recipientCount: 1, isETH: false, chain: 'peaq' })
    expect(proofFloor).toBeGreaterThan(100_000n)
    expect(BatchPayment.gasLimit({ measured: 50_000n, recipientCount: 1, isETH: false, chain: 'peaq' })).toBe(
      proofFloor,
    )
  })

  test('error: a recipient count outside 1..200', () => {
    expect(fieldOf(() => BatchPayment.gasLimit({ recipientCount: 201, isETH: false, chain: 'base' }))).toBe(
      'recipientCount',
    )
  })
})

describe('coldRecipients', () => {
  test('default: recipients with an empty balance', () => {
    expect(BatchPayment.coldRecipients({ recipients: payments, balances: [0n, 5n] })).toBe(1)
  })

  test('behavior: an address paid twice is cold once', () => {
    const twice = [...payments, { address: bob, amount: 1n }]
    expect(BatchPayment.coldRecipients({ recipients: twice, balances: [0n, 0n, 0n] })).toBe(2)
  })
})

describe('toExecution', () => {
  test('default: an ERC-20 batch with its approval, amounts human, value "0", gas limit hex', () => {
    expect(
      BatchPayment.toExecution({
        chainId: 8453,
        contract,
        token: usdcToken,
        recipients: payments,
        feeBps: 30n,
        gasLimit: 123_317n,
      }),
    ).toMatchInlineSnapshot(`
      {
        "approvalRequired": {
          "amount": "3510501",
          "amountFormatted": "3.510501",
          "spender": "0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC",
          "token": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        },
        "batch": {
          "fee": "0.0105",
          "feePercent": "0.3%",
          "recipientCount": 2,
          "totalAmount": "3.500001",
          "totalWithFee": "3.510501",
        },
        "contract": "0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC",
        "success": true,
        "token": {
          "address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          "decimals": 6,
          "isETH": false,
          "symbol": "USDC",
        },
        "transaction": {
          "chainId": 8453,
          "data": "0xfb83b683000000000000000000000000833589fcd6edb6e08f4c7c32d4f71b54bda029130000000000000000000000000000000000000000000000000000000000000040000000000000000000000000000000000000000000000000000000000000000200000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8000000000000000000000000000000000000000000000000000000000016e3600000000000000000000000003c44cdddb6a900fa2b585dd299e03d12fa4293bc00000000000000000000000000000000000000000000000000000000001e8481",
          "gasLimit": "0x1e1b5",
          "to": "0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC",
          "value": "0",
        },
      }
    `)
  })

  test('behavior: a native batch sends the total with fee as value in wei and needs no approval', () => {
    const recipients = [{ address: bob, amount: 10n ** 18n }]
    const execution = BatchPayment.toExecution({
      chainId: 8453,
      contract,
      token: ether,
      recipients,
      feeBps: 30n,
      gasLimit: 60_000n,
    })
    expect(execution.transaction.value).toBe('1003000000000000000')
    expect(execution.batch).toEqual({
      recipientCount: 1,
      totalAmount: '1',
      fee: '0.003',
      feePercent: '0.3%',
      totalWithFee: '1.003',
    })
    expect(execution.token).toEqual({ symbol: 'ETH', address: zeroAddress, decimals: 18, isETH: true })
    expect('approvalRequired' in execution).toBe(false)
  })

  test('error: no recipients', () => {
    expect(
      fieldOf(() =>
        BatchPayment.toExecution({ chainId: 1, contract, token: ether, recipients: [], feeBps: 30n, gasLimit: 1n }),
      ),
    ).toBe('recipients')
  })
})

describe('toDetailedEstimate', () => {
  test('default: totals human, suggested gas limit decimal', () => {
    expect(
      BatchPayment.toDetailedEstimate({ token: usdcToken, recipients: payments, feeBps: 30n, gasLimit: 123_317n }),
    ).toEqual({
      success: true,
      token: usdcToken,
      recipientCount: 2,
      totalAmount: '3.500001',
      fee: '0.0105',
      totalWithFee: '3.510501',
      feePercent: '0.3%',
      suggestedGasLimit: '123317',
    })
  })
})

describe('toCountEstimate', () => {
  test("default: the gas model's worst case as a decimal string, no totals, and a note saying it is a ceiling", () => {
    const estimate = BatchPayment.toCountEstimate({ token: usdcToken, recipientCount: 200, feeBps: 30n, chain: 'base' })
    const { gas } = Gas.estimate({ recipientCount: 200, isETH: false })
    expect(estimate).toMatchObject({
      success: true,
      token: usdcToken,
      recipientCount: 200,
      feePercent: '0.3%',
      estimatedGas: gas.toString(),
    })
    expect(estimate.suggestedGasLimit).toBe(gas.toString())
    expect(estimate.note).toContain('Conservative ceiling')
    expect('totalAmount' in estimate).toBe(false)
  })

  test('behavior: native batches and peaq use their own model', () => {
    expect(
      BatchPayment.toCountEstimate({ token: ether, recipientCount: 3, feeBps: 30n, chain: 'base' }).estimatedGas,
    ).toBe(Gas.estimate({ recipientCount: 3, isETH: true }).gas.toString())
    expect(
      BatchPayment.toCountEstimate({ token: usdcToken, recipientCount: 1, feeBps: 30n, chain: 'peaq' }).estimatedGas,
    ).toBe(Gas.estimate({ recipientCount: 1, isETH: false, chain: 'peaq' }).gas.toString())
  })
})
