import { describe, expect, test } from 'bun:test'
import * as PaymentTerms from '../../core/PaymentTerms.js'

const terms: PaymentTerms.PaymentTerms = {
  network: 'eip155:8453',
  asset: { address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', name: 'USD Coin', version: '2', decimals: 6 },
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  maxTimeoutSeconds: 300,
}

describe('chainIdOf', () => {
  test('default', () => {
    expect(PaymentTerms.chainIdOf('eip155:8453')).toBe(8453)
    expect(PaymentTerms.chainIdOf('eip155:84532')).toBe(84_532)
  })
})

describe('toDomain', () => {
  test('default: the token name and version on its chain, the contract checksummed', () => {
    expect(PaymentTerms.toDomain(terms)).toEqual({
      name: 'USD Coin',
      version: '2',
      chainId: 8453,
      verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    })
  })
})
