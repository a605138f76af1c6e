import { describe, expect, test } from 'bun:test'
import { encodeFunctionData, encodeFunctionResult, type Hex, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as Multicall3 from '../../core/Multicall3.js'

const random = (bytes: number): Hex => toHex(crypto.getRandomValues(new Uint8Array(bytes)))
const address = () => privateKeyToAccount(generatePrivateKey()).address
const sizes = [0, 1, 4, 31, 32, 33, 68, 100, 228, 260]

describe('encodeAggregate3', () => {
  test('behavior: writes the calldata encodeFunctionData writes, for any calls', () => {
    for (let round = 0; round < 30; round++) {
      const calls = Array.from({ length: round % 6 }, (_, index) => ({
        target: address(),
        allowFailure: (round + index) % 2 === 0,
        callData: random(sizes[(round + index) % sizes.length]!),
      }))
      expect(Multicall3.encodeAggregate3(calls)).toBe(
        encodeFunctionData({ abi: Multicall3.abi, functionName: 'aggregate3', args: [calls] }),
      )
    }
  })

  test('error: a target that is no address, or calldata of half a byte', () => {
    const call = { target: address(), allowFailure: true, callData: '0x12' as Hex }
    expect(() => Multicall3.encodeAggregate3([{ ...call, target: '0x1234' }])).toThrow(TypeError)
    expect(() => Multicall3.encodeAggregate3([{ ...call, callData: '0x123' }])).toThrow(TypeError)
  })
})

describe('decodeAggregate3', () => {
  test('behavior: reads what the contract returns, as decodeFunctionResult does', () => {
    for (let round = 0; round < 30; round++) {
      const results = Array.from({ length: round % 6 }, (_, index) => ({
        success: (round + index) % 3 !== 0,
        returnData: random(sizes[(round * 7 + index) % sizes.length]!),
      }))
      const data = encodeFunctionResult({ abi: Multicall3.abi, functionName: 'aggregate3', result: results })
      expect(Multicall3.decodeAggregate3(data)).toEqual(results)
    }
  })

  test('error: data shorter than it declares is refused', () => {
    const data = encodeFunctionResult({
      abi: Multicall3.abi,
      functionName: 'aggregate3',
      result: [{ success: true, returnData: random(64) }],
    })
    expect(() => Multicall3.decodeAggregate3(data.slice(0, -64) as Hex)).toThrow(RangeError)
    expect(() => Multicall3.decodeAggregate3('0x')).toThrow(RangeError)
  })
})
