import { describe, expect, test } from 'bun:test'
import { encodeFunctionData, type Hex, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { abi, encode } from '../../../../adapters/facilitator/internal/eip3009.js'

const random = (bytes: number): Hex => toHex(crypto.getRandomValues(new Uint8Array(bytes)))
const address = () => privateKeyToAccount(generatePrivateKey()).address

describe('Eip3009.encode', () => {
  test('behavior: writes the calldata encodeFunctionData writes, for any arguments', () => {
    for (let round = 0; round < 50; round++) {
      const [from, to] = [address(), address()]
      const nonce = random(32)
      const words = { value: BigInt(random(32)), validAfter: BigInt(round), validBefore: 2n ** 64n - 1n }
      const signature = { v: 27 + (round % 2), r: random(32), s: random(32) }
      expect(encode.balanceOf(from)).toBe(encodeFunctionData({ abi, functionName: 'balanceOf', args: [from] }))
      expect(encode.authorizationState(from, nonce)).toBe(
        encodeFunctionData({ abi, functionName: 'authorizationState', args: [from, nonce] }),
      )
      expect(encode.transferWithAuthorization({ from, to, nonce, ...words, ...signature })).toBe(
        encodeFunctionData({
          abi,
          functionName: 'transferWithAuthorization',
          args: [
            from,
            to,
            words.value,
            words.validAfter,
            words.validBefore,
            nonce,
            signature.v,
            signature.r,
            signature.s,
          ],
        }),
      )
    }
  })

  test('error: refuses what does not fit its word, as the ABI encoder does', () => {
    const transfer = {
      from: address(),
      to: address(),
      value: 1n,
      validAfter: 0n,
      validBefore: 1n,
      nonce: random(32),
      v: 27,
      r: random(32),
      s: random(32),
    }
    expect(() => encode.transferWithAuthorization({ ...transfer, value: 2n ** 256n })).toThrow(RangeError)
    expect(() => encode.transferWithAuthorization({ ...transfer, value: -1n })).toThrow(RangeError)
    expect(() => encode.transferWithAuthorization({ ...transfer, v: 256 })).toThrow(RangeError)
    expect(() => encode.transferWithAuthorization({ ...transfer, nonce: random(31) })).toThrow(TypeError)
    expect(() => encode.balanceOf('0x1234' as Hex)).toThrow(TypeError)
  })
})
