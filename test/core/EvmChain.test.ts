import { describe, expect, test } from 'bun:test'
import * as EvmChain from '../../core/EvmChain.js'
import { fieldOf } from '../support/errors.js'

describe('nameOf', () => {
  test('default: a registry name means itself, in any case', () => {
    for (const name of EvmChain.names) expect(EvmChain.nameOf(name.toUpperCase())).toBe(name)
  })

  test("behavior: the original gateway's spellings mean the registry's chains", () => {
    expect(
      Object.fromEntries(
        [
          'base-mainnet',
          'eth',
          'mainnet',
          'eth-mainnet',
          'arb',
          'op',
          'opt',
          'matic',
          'poly',
          'bnb',
          'binance',
          'avax',
        ].map((spelling) => [spelling, EvmChain.nameOf(spelling)]),
      ),
    ).toEqual({
      'base-mainnet': 'base',
      eth: 'ethereum',
      mainnet: 'ethereum',
      'eth-mainnet': 'ethereum',
      arb: 'arbitrum',
      op: 'optimism',
      opt: 'optimism',
      matic: 'polygon',
      poly: 'polygon',
      bnb: 'bsc',
      binance: 'bsc',
      avax: 'avalanche',
    })
  })

  test('behavior: every alias names a chain of the registry', () => {
    for (const name of Object.values(EvmChain.aliases)) expect(EvmChain.find(name)).toBeDefined()
  })

  test('error: a chain the registry does not hold means nothing', () => {
    for (const spelling of ['unichain', 'solana', 'toString', '__proto__', ''])
      expect(EvmChain.nameOf(spelling)).toBeUndefined()
  })
})

describe('only', () => {
  test('default: absent is the chain served', () => {
    expect(EvmChain.only({ value: undefined, served: 'base' })).toBe('base')
  })

  test("behavior: any spelling of the chain served is it, the original gateway's base-mainnet too", () => {
    for (const value of ['base', 'BASE', 'base-mainnet']) expect(EvmChain.only({ value, served: 'base' })).toBe('base')
  })

  test('error: another chain, an unknown one or no string is a 400 naming chain', () => {
    for (const value of ['ethereum', 'eth', 'solana', 5])
      expect(fieldOf(() => EvmChain.only({ value, served: 'base' }))).toBe('chain')
    expect(() => EvmChain.only({ value: 'eth', served: 'base' })).toThrow('ethereum is not served here')
  })
})
